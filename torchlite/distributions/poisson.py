"""Poisson(rate): counts k = 0, 1, 2... with probability rate^k e^(-rate) / k!."""
import torchlite

from . import constraints
from .distribution import broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            return torchlite.poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = torchlite.broadcast_tensors(self.rate, value.to(self.rate.dtype))
        return torchlite.xlogy(value, rate) - rate - torchlite.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (torchlite.log(self.rate),)

    def _log_normalizer(self, x):
        return torchlite.exp(x)
