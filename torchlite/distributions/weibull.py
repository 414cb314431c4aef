"""Weibull(scale, concentration): CDF 1 - exp(-(x / scale)^concentration) on x > 0; the law of
scale E^(1 / concentration) for E a standard exponential."""
import torchlite

from . import constraints
from .distribution import broadcast_all
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform

__all__ = ["Weibull"]

_EULER_GAMMA = 0.57721566490153286061


class Weibull(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(torchlite.ones_like(self.scale), validate_args=validate_args)
        chain = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance=_instance)
        new.concentration_reciprocal = new.concentration.reciprocal()
        return new

    @property
    def mean(self):
        # scale Gamma(1 + 1/k)
        return self.scale * torchlite.exp(torchlite.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        # scale ((k - 1) / k)^(1/k) for k > 1; the density is largest at 0 when k <= 1
        k = self.concentration
        inner = ((k - 1) / k).clamp(min=0)
        return self.scale * inner.pow(self.concentration_reciprocal)

    @property
    def variance(self):
        # scale^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2)
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (torchlite.exp(torchlite.lgamma(1 + 2 * r)) -
                                    torchlite.exp(2 * torchlite.lgamma(1 + r)))

    def entropy(self):
        k = self.concentration
        return _EULER_GAMMA * (1 - self.concentration_reciprocal) + torchlite.log(self.scale / k) + 1
