"""Cauchy(loc, scale): the density 1 / (pi scale (1 + ((x - loc) / scale)^2)), the ratio of two independent
standard normals, shifted and scaled. Its tails are so heavy that it has no mean and no variance."""
import math

import torchlite

from .distribution import _LocationScale

__all__ = ["Cauchy"]


class Cauchy(_LocationScale):
    @property
    def mean(self):
        return torchlite.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def variance(self):
        return torchlite.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        standard = torchlite.empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + self.scale * standard

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - torchlite.log(self.scale) - torchlite.log1p(z * z)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlite.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return self.loc + self.scale * torchlite.tan(math.pi * (value - 0.5))

    def entropy(self):
        return math.log(4 * math.pi) + torchlite.log(self.scale)
