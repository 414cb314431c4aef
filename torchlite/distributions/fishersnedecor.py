"""FisherSnedecor(df1, df2): the F distribution, the ratio (V1 / df1) / (V2 / df2) of independent
chi-squared variables with df1 and df2 degrees of freedom (drawn as Gammas, so rsample is differentiable)."""
import math

import torchlite

from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(self.df1.shape, validate_args=validate_args)

    @property
    def mean(self):
        return torchlite.where(self.df2 > 2, self.df2 / (self.df2 - 2), math.nan)

    @property
    def mode(self):
        m = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return torchlite.where(self.df1 > 2, m, math.nan)

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2
        v = 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))
        return torchlite.where(d2 > 4, v, math.nan)

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        x1 = torchlite._standard_gamma(0.5 * self.df1.expand(shape)) / self.df1  # chi2(df1) / (2 df1)
        x2 = torchlite._standard_gamma(0.5 * self.df2.expand(shape)) / self.df2
        tiny = torchlite.finfo(x1.dtype).tiny
        return (x1 / x2).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = 0.5 * self.df1, 0.5 * self.df2
        log_norm = torchlite.lgamma(h1 + h2) - torchlite.lgamma(h1) - torchlite.lgamma(h2)
        return (log_norm + h1 * torchlite.log(self.df1 / self.df2) + (h1 - 1) * torchlite.log(value)
                - (h1 + h2) * torchlite.log1p(self.df1 / self.df2 * value))
