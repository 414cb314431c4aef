"""Gumbel(loc, scale): the law of the maximum of many light-tailed draws, with CDF exp(-exp(-(x - loc) /
scale)). Built as loc - scale log(-log U) for U uniform on (0, 1)."""
import math

import torchlite

from . import constraints
from .distribution import broadcast_all
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform

__all__ = ["Gumbel"]

_EULER_GAMMA = 0.57721566490153286061


class Gumbel(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = torchlite.finfo(self.loc.dtype)
        # U on [tiny, 1 - eps] keeps both logarithms finite
        low = torchlite.full_like(self.loc, info.tiny)
        high = torchlite.full_like(self.loc, 1 - info.eps)
        chain = [ExpTransform().inv,            # log U < 0
                 AffineTransform(0, -1),        # -log U > 0
                 ExpTransform().inv,            # log(-log U)
                 AffineTransform(self.loc, -self.scale)]
        super().__init__(Uniform(low, high, validate_args=validate_args), chain, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -(z + torchlite.exp(-z)) - torchlite.log(self.scale)

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return torchlite.log(self.scale) + (1 + _EULER_GAMMA)
