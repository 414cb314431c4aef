"""Relaxed one-hot categorical variables (the Concrete / Gumbel-softmax distribution).

ExpRelaxedCategorical(temperature, probs=None, logits=None) is the law of log softmax((logits + G) /
temperature) for G a vector of independent standard Gumbel draws; RelaxedOneHotCategorical is its
exponential, a point of the simplex that approaches a one-hot Categorical draw as the temperature goes to 0.

The log density of the first, at a point y with sum(exp(y)) = 1, is
log (K-1)! + (K-1) log temperature + sum_i s_i - K logsumexp(s), where s = logits - temperature y."""
import math

import torchlite

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = torchlite.Size(batch_shape)
        new = _instance if _instance is not None else object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._categorical = self._categorical.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        logits = self.logits
        info = torchlite.finfo(logits.dtype)
        u = torchlite.rand(shape, dtype=logits.dtype, device=logits.device).clamp(info.tiny, 1 - info.eps)
        gumbel = -torchlite.log(-torchlite.log(u))
        scores = (logits + gumbel) / self.temperature
        return scores - torchlite.logsumexp(scores, -1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.event_shape[-1]
        temperature = self.temperature
        if isinstance(temperature, torchlite.Tensor):
            log_temperature = torchlite.log(temperature)
        else:
            log_temperature = math.log(temperature)
        log_norm = math.lgamma(k) + (k - 1) * log_temperature
        s = self.logits - value * temperature
        return s.sum(-1) - k * torchlite.logsumexp(s, -1) + log_norm


class RelaxedOneHotCategorical(TransformedDistribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
