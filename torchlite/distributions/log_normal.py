"""LogNormal(loc, scale): the law of exp(X) for X ~ Normal(loc, scale)."""
import torchlite

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return torchlite.exp(self.loc + self.scale.pow(2) / 2)

    @property
    def mode(self):
        return torchlite.exp(self.loc - self.scale.pow(2))

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        # (e^{s^2} - 1) e^{2 loc + s^2}, with expm1 for small s
        return torchlite.expm1(s2) * torchlite.exp(2 * self.loc + s2)

    def entropy(self):
        return self.base_dist.entropy() + self.loc
