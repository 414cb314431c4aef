"""Laplace(loc, scale): the double exponential with density e^(-|x - loc| / scale) / (2 scale)."""
import math

import torchlite

from .distribution import _LocationScale

__all__ = ["Laplace"]


class Laplace(_LocationScale):
    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @property
    def variance(self):
        return 2 * self.scale * self.scale

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        eps = torchlite.finfo(self.loc.dtype).eps
        # t uniform on (-1, 1): the inverse CDF of the standard Laplace is -sign(t) log(1 - |t|)
        t = (torchlite.rand(shape, dtype=self.loc.dtype, device=self.loc.device) * 2 - 1).clamp(min=eps - 1)
        return self.loc - self.scale * t.sign() * torchlite.log1p(-t.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torchlite.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * torchlite.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        t = value - 0.5
        return self.loc - self.scale * t.sign() * torchlite.log1p(-2 * t.abs())

    def entropy(self):
        return 1 + torchlite.log(2 * self.scale)
