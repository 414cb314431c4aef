"""Pareto(scale, alpha): the power law with survival function (scale / x)^alpha on x >= scale; the law of
scale e^E for E ~ Exponential(alpha)."""
import math

import torchlite

from . import constraints
from .distribution import broadcast_all
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        # alpha scale / (alpha - 1), infinite for alpha <= 1
        a = self.alpha
        finite = a * self.scale / (a - 1)
        return torchlite.where(a > 1, finite, math.inf)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        # scale^2 alpha / ((alpha - 1)^2 (alpha - 2)), infinite for alpha <= 2
        a = self.alpha
        finite = self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))
        return torchlite.where(a > 2, finite, math.inf)

    def entropy(self):
        return torchlite.log(self.scale / self.alpha) + (1 + self.alpha.reciprocal())
