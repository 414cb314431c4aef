"""Relaxed (continuous) Bernoulli variables of the Concrete / Gumbel-softmax construction.

LogitRelaxedBernoulli(temperature, probs=None, logits=None) is the law of (logits + L) / temperature for L a
standard logistic draw (log U - log(1 - U)); RelaxedBernoulli squashes it into (0, 1) with a sigmoid. As the
temperature goes to 0 a RelaxedBernoulli draw approaches a Bernoulli(probs) one, while staying differentiable
in the parameters."""
import math

import torchlite

from . import constraints
from .distribution import Distribution, broadcast_all, probs_and_logits
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


def _log_of(t):
    return torchlite.log(t) if isinstance(t, torchlite.Tensor) else math.log(t)


class LogitRelaxedBernoulli(Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self.probs, self.logits, given = probs_and_logits(probs, logits)
        self._given = (given,)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def param_shape(self):
        return self.probs.size()

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        info = torchlite.finfo(self.logits.dtype)
        u = torchlite.rand(shape, dtype=self.logits.dtype, device=self.logits.device).clamp(info.eps, 1 - info.eps)
        return (self.logits + (torchlite.log(u) - torchlite.log1p(-u))) / self.temperature

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # with d = logits - temperature x: log p(x) = log temperature + d - 2 softplus(d)
        logits, value = broadcast_all(self.logits, value)
        d = logits - value * self.temperature
        return _log_of(self.temperature) + d - 2 * torchlite.nn.functional.softplus(d)


class RelaxedBernoulli(TransformedDistribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs=probs, logits=logits, validate_args=validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
