"""InverseGamma(concentration, rate): the law of 1 / X for X ~ Gamma(concentration, rate), density
rate^c x^(-c - 1) e^(-rate / x) / Gamma(c) on x > 0 (reparameterizable through the Gamma's draws)."""
import math

import torchlite

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        minus_one = torchlite.tensor(-1.0, dtype=base.rate.dtype, device=base.rate.device)
        super().__init__(base, PowerTransform(minus_one), validate_args=validate_args)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        c = self.concentration
        return torchlite.where(c > 1, self.rate / (c - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        c = self.concentration
        return torchlite.where(c > 2, self.rate.pow(2) / ((c - 1).pow(2) * (c - 2)), math.inf)

    def entropy(self):
        c = self.concentration
        return c + torchlite.log(self.rate) + torchlite.lgamma(c) - (1 + c) * torchlite.digamma(c)
