"""Normal(loc, scale): the Gaussian with mean loc and standard deviation scale."""
import math

import torchlite

from .distribution import _LocationScale
from .exp_family import ExponentialFamily

__all__ = ["Normal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class Normal(_LocationScale, ExponentialFamily):
    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * torchlite.log(-math.pi / y)

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
