"""StudentT(df, loc=0, scale=1): Student's t with df degrees of freedom, shifted by loc and scaled by scale.

A draw is loc + scale * Z / sqrt(V / df) with Z standard normal and V chi-squared(df) (a Gamma(df / 2, 1 / 2)
draw, differentiable in df), so rsample's gradient reaches all three parameters."""
import math

import torchlite

from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        return torchlite.where(self.df > 1, self.loc, math.nan)  # no mean for df <= 1

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        # scale^2 df / (df - 2) for df > 2, infinite for 1 < df <= 2, undefined for df <= 1
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        return torchlite.where(self.df > 2, finite, torchlite.where(self.df > 1, math.inf, math.nan))

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        z = torchlite.randn(shape, dtype=self.df.dtype, device=self.df.device)
        half_df = 0.5 * self.df.expand(shape)
        v = torchlite._standard_gamma(half_df) * 2  # chi-squared(df)
        return self.loc + self.scale * z * torchlite.rsqrt(v / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        df = self.df
        log_norm = (torchlite.log(self.scale) + 0.5 * torchlite.log(df) + 0.5 * math.log(math.pi)
                    + torchlite.lgamma(0.5 * df) - torchlite.lgamma(0.5 * (df + 1)))
        return -0.5 * (df + 1) * torchlite.log1p(y * y / df) - log_norm

    def entropy(self):
        df = self.df
        log_beta = torchlite.lgamma(0.5 * df) + math.lgamma(0.5) - torchlite.lgamma(0.5 * (df + 1))
        return (0.5 * (df + 1) * (torchlite.digamma(0.5 * (df + 1)) - torchlite.digamma(0.5 * df))
                + 0.5 * torchlite.log(df) + log_beta + torchlite.log(self.scale))
