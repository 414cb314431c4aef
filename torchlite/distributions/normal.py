"""Normal(loc, scale): the Gaussian with mean loc and standard deviation scale."""
import math

import torchlite

from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["Normal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class Normal(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale * self.scale

    def rsample(self, sample_shape=torchlite.Size()):
        z = torchlite.randn(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + self.scale * z

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -0.5 * z * z - torchlite.log(self.scale) - _HALF_LOG_2PI

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * torchlite.erfc((self.loc - value) / (self.scale * math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * math.sqrt(2) * torchlite.erfinv(2 * value - 1)

    def entropy(self):
        return (0.5 + _HALF_LOG_2PI) + torchlite.log(self.scale)
