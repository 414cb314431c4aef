"""Bernoulli(probs=None, logits=None): 1 with probability probs (= sigmoid(logits)), else 0."""
import math

import torchlite

from . import constraints
from .distribution import probs_and_logits
from .exp_family import ExponentialFamily

__all__ = ["Bernoulli"]


def _softplus(x):
    return torchlite.nn.functional.softplus(x)


class Bernoulli(ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self.probs, self.logits, given = probs_and_logits(probs, logits)
        self._given = (given,)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def param_shape(self):
        return self.probs.size()

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return torchlite.where(self.probs == 0.5, math.nan, mode)  # both outcomes are modes

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            return torchlite.bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # log p = x logits - log(1 + e^logits), written to stay finite for large |logits|
        logits, value = torchlite.broadcast_tensors(self.logits, value.to(self.logits.dtype))
        return value * logits - _softplus(logits)

    def entropy(self):
        return _softplus(self.logits) - self.probs * self.logits

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return _softplus(x)

    def enumerate_support(self, expand=True):
        values = torchlite.arange(2, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
