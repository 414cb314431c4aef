"""OneHotCategorical(probs=None, logits=None), OneHotCategoricalStraightThrough (the same with a
straight-through rsample) and Multinomial(total_count=1, probs=None, logits=None): the category of one draw
as a one-hot vector, and the counts of each category over total_count draws (the event is the last dim, of
the K categories)."""
import torchlite

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["Multinomial", "OneHotCategorical", "OneHotCategoricalStraightThrough"]


class _OverCategorical(Distribution):
    """The shared part: a Categorical over the last dim holds the parameters; probs and logits are its."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, probs, logits, validate_args):
        self._categorical = Categorical(probs, logits)
        self._given = self._categorical._given
        shape = self._categorical.param_shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def _given_params(self):
        return list(self._given)

    def __repr__(self):
        v = getattr(self, self._given[0])
        return f"{type(self).__name__}({self._given[0]}: {v if v.numel() == 1 else v.size()})"

    def expand(self, batch_shape, _instance=None):
        new = object.__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        new._categorical = self._categorical.expand(batch_shape)
        new._batch_shape = torchlite.Size(batch_shape)
        return new


class OneHotCategorical(_OverCategorical):
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(probs, logits, validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return torchlite.nn.functional.one_hot(self.probs.argmax(-1), self._event_shape[0]).to(self.probs.dtype)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=torchlite.Size()):
        index = self._categorical.sample(sample_shape)
        return torchlite.nn.functional.one_hot(index, self._event_shape[0]).to(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        k = self._event_shape[0]
        values = torchlite.eye(k, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view((k,) + (1,) * len(self._batch_shape) + (k,))
        return values.expand((k,) + tuple(self._batch_shape) + (k,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical with the straight-through gradient estimator: rsample returns the one-hot draw in the
    forward pass and passes gradients to the probabilities as if it were probs (Bengio et al., 2013)."""

    has_rsample = True

    def rsample(self, sample_shape=torchlite.Size()):
        draw = self.sample(sample_shape)
        probs = self.probs
        return draw + (probs - probs.detach())


class Multinomial(_OverCategorical):
    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        super().__init__(probs, logits, validate_args)

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=torchlite.Size()):
        sample_shape = torchlite.Size(sample_shape)
        k = self._event_shape[0]
        # total_count category draws per event, counted
        draws = self._categorical.sample(torchlite.Size((self.total_count,)) + sample_shape)
        draws = draws.movedim(0, -1)  # sample + batch + (total_count,)
        counts = torchlite.zeros(tuple(draws.shape[:-1]) + (k,), dtype=self.probs.dtype, device=self.probs.device)
        return counts.scatter_add_(-1, draws, torchlite.ones(draws.shape, dtype=self.probs.dtype,
                                                               device=self.probs.device))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = torchlite.broadcast_tensors(self.logits, value.to(self.logits.dtype))
        # log n! - sum log k_i! + sum k_i log p_i (a zero count contributes nothing, even where p_i = 0)
        log_coef = torchlite.lgamma(value.sum(-1) + 1) - torchlite.lgamma(value + 1).sum(-1)
        terms = torchlite.where((value == 0) & (logits == float("-inf")), 0.0, value * logits)
        return log_coef + terms.sum(-1)

    def entropy(self):
        # sum over the outcomes of one category's count: -log n! + n H(p) + sum_i E[log k_i!], k_i ~ Bin(n, p_i)
        from .binomial import Binomial

        n = self.total_count
        counts = torchlite.arange(n + 1, dtype=self.probs.dtype, device=self.probs.device)
        counts = counts.view((-1,) + (1,) * (len(self._batch_shape) + 1))
        marginal = Binomial(n, self.probs)
        log_p = marginal.log_prob(counts.expand((-1,) + tuple(self.probs.shape)))
        expected_log_fact = (torchlite.exp(log_p) * torchlite.lgamma(counts + 1)).sum(0).sum(-1)
        return n * self._categorical.entropy() - torchlite.lgamma(torchlite.tensor(n + 1.0)) + expected_log_fact
