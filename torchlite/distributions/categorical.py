"""Categorical(probs=None, logits=None): one of K categories, 0..K-1, with the probabilities of the last
dim of probs (normalized), or softmax(logits)."""
import math

import torchlite

from . import constraints
from .distribution import Distribution

__all__ = ["Categorical"]


class Categorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            eps = torchlite.finfo(self.probs.dtype).eps  # PyTorch's clamp: a zero probability has logit log(eps)
            self.logits = torchlite.log(self.probs.clamp(eps, 1 - eps))
            self._given = ("probs",)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            self.probs = torchlite.exp(self.logits)
            self._given = ("logits",)
        self._num_events = self.probs.shape[-1]
        super().__init__(self.probs.shape[:-1], validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self):
        return self.probs.size()

    @property
    def mean(self):
        return torchlite.full(tuple(self._batch_shape), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=torchlite.Size()):
        sample_shape = torchlite.Size(sample_shape)
        with torchlite.no_grad():
            rows = self.probs.reshape(-1, self._num_events)
            draws = torchlite.multinomial(rows, max(sample_shape.numel(), 1), True)  # (rows, n)
            draws = draws[:, :sample_shape.numel()].t().contiguous()
            return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, logits = torchlite.broadcast_tensors(value, self.logits)
        return logits.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        terms = torchlite.where(self.probs > 0, self.probs * self.logits, 0.0)
        return -terms.sum(-1)

    def enumerate_support(self, expand=True):
        values = torchlite.arange(self._num_events, device=self.probs.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
