"""Kumaraswamy(concentration1, concentration0): on (0, 1), with density a b x^(a-1) (1 - x^a)^(b-1) and CDF
1 - (1 - x^a)^b (a = concentration1, b = concentration0); a Beta-like law whose quantiles are in closed form:
x = (1 - U^(1/b))^(1/a) for U uniform."""
import math

import torchlite

from . import constraints
from .distribution import broadcast_all
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform

__all__ = ["Kumaraswamy"]

_EULER_GAMMA = 0.57721566490153286061


def _raw_moment(a, b, n):
    """E[X^n] = b B(1 + n/a, b), through log-gammas."""
    first = 1 + n / a
    return b * torchlite.exp(torchlite.lgamma(first) + torchlite.lgamma(b) - torchlite.lgamma(first + b))


class Kumaraswamy(TransformedDistribution):
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(torchlite.zeros_like(self.concentration0), torchlite.ones_like(self.concentration0),
                       validate_args=validate_args)
        chain = [PowerTransform(exponent=self.concentration0.reciprocal()),  # U^(1/b)
                 AffineTransform(loc=1.0, scale=-1.0),                        # 1 - U^(1/b)
                 PowerTransform(exponent=self.concentration1.reciprocal())]  # (...)^(1/a)
        super().__init__(base, chain, validate_args=validate_args)

    @property
    def mean(self):
        return _raw_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # ((a - 1) / (a b - 1))^(1/a) when a >= 1 and b >= 1 (not both 1); otherwise the density has no
        # interior maximum, and the answer is nan
        a, b = self.concentration1, self.concentration0
        interior = (a >= 1) & (b >= 1) & ((a > 1) | (b > 1))
        safe_a = torchlite.where(interior, a, 2.0)
        safe_b = torchlite.where(interior, b, 2.0)
        value = ((safe_a - 1) / (safe_a * safe_b - 1)).pow(safe_a.reciprocal())
        return torchlite.where(interior, value, math.nan)

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _raw_moment(a, b, 2) - _raw_moment(a, b, 1).pow(2)

    def entropy(self):
        # (1 - 1/b) + (1 - 1/a) H_b - log(a b), with the harmonic number H_b = digamma(b + 1) + gamma
        a, b = self.concentration1, self.concentration0
        harmonic = torchlite.digamma(b + 1) + _EULER_GAMMA
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - torchlite.log(a * b)
