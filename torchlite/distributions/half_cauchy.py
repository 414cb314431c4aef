"""HalfCauchy(scale): the law of |X| for X ~ Cauchy(0, scale), with density 2 / (pi scale (1 + (x/scale)^2))
on x >= 0. Its mean and variance are infinite."""
import math

import torchlite

from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0.0, scale, validate_args=validate_args), AbsTransform(),
                         validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return torchlite.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype,
                              device=self.scale.device)

    @property
    def mode(self):
        return torchlite.zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        if not isinstance(value, torchlite.Tensor):
            value = torchlite.tensor(float(value), dtype=self.scale.dtype, device=self.scale.device)
        if self._validate_args:
            self._validate_sample(value)
        folded = self.base_dist.log_prob(value) + math.log(2)
        return torchlite.where(value >= 0, folded, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
