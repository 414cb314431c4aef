"""Exponential(rate): the exponential distribution with density rate e^(-rate x) on x >= 0."""
import torchlite

from . import constraints
from .distribution import broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return torchlite.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=torchlite.Size()):
        e = torchlite.empty(self._extended_shape(sample_shape), dtype=self.rate.dtype, device=self.rate.device)
        return e.exponential_() / self.rate  # a standard exponential draw, scaled

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlite.log(self.rate) - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torchlite.expm1(-self.rate * value)

    def icdf(self, value):
        return -torchlite.log1p(-value) / self.rate

    def entropy(self):
        return 1 - torchlite.log(self.rate)

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -torchlite.log(-x)
