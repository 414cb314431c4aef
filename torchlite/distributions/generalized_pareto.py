"""GeneralizedPareto(loc, scale, concentration): the peaks-over-threshold law with CDF
1 - (1 + xi z)^(-1 / xi), z = (x - loc) / scale, xi = concentration (the exponential law 1 - e^(-z) at xi = 0).
Its support is x >= loc, and also x <= loc - scale / xi when xi < 0. Drawn by inversion (reparameterizable)."""
import math

import torchlite

from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _xi_nonzero(self):
        """concentration, with 1 where it is 0 (its formulas then take the exponential branch instead)."""
        zero = self.concentration == 0
        return zero, torchlite.where(zero, torchlite.ones_like(self.concentration), self.concentration)

    @property
    def support(self):
        upper = torchlite.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)

    @property
    def mean(self):
        xi = self.concentration
        return torchlite.where(xi < 1, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        xi = self.concentration
        return torchlite.where(xi < 0.5, self.scale.pow(2) / ((1 - xi).pow(2) * (1 - 2 * xi)), math.nan)

    def entropy(self):
        return torchlite.log(self.scale) + self.concentration + 1

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._xi_nonzero()
        general = -(1 / xi + 1) * torchlite.log1p(xi * z)
        return torchlite.where(zero, -z, general) - torchlite.log(self.scale)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._xi_nonzero()
        general = -torchlite.expm1(-torchlite.log1p(xi * z) / xi)
        return torchlite.where(zero, -torchlite.expm1(-z), general)

    def icdf(self, value):
        zero, xi = self._xi_nonzero()
        log_tail = torchlite.log1p(-value)
        general = torchlite.expm1(-xi * log_tail) / xi
        return self.loc + self.scale * torchlite.where(zero, -log_tail, general)

    def rsample(self, sample_shape=torchlite.Size()):
        u = torchlite.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)
