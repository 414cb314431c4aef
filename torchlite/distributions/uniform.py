"""Uniform(low, high): the uniform distribution on [low, high)."""
import math

import torchlite

from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    arg_constraints = {"low": constraints.dependent, "high": constraints.dependent}
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError("Uniform is not defined when low>= high")

    @property
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.low + self.high) / 2

    @property
    def mode(self):
        return torchlite.full_like(self.low, math.nan)  # every point of the interval is a mode

    @property
    def variance(self):
        width = self.high - self.low
        return width * width / 12

    def rsample(self, sample_shape=torchlite.Size()):
        u = torchlite.rand(self._extended_shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + (self.high - self.low) * u

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = (value >= self.low) & (value < self.high)
        return torchlite.where(inside, -torchlite.log(self.high - self.low), -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value):
        return self.low + value * (self.high - self.low)

    def entropy(self):
        return torchlite.log(self.high - self.low)
