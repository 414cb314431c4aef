"""Binomial(total_count=1, probs=None, logits=None), Geometric(probs=None, logits=None) and
NegativeBinomial(total_count, probs=None, logits=None): the counting distributions of Bernoulli trials that
succeed with probability probs = sigmoid(logits).

- Binomial: successes in total_count trials;
- Geometric: failures before the first success (support 0, 1, 2...);
- NegativeBinomial: successes before total_count failures (PyTorch's convention), a Gamma-Poisson mixture."""
import torchlite

from . import constraints
from .distribution import Distribution, probs_and_logits

__all__ = ["Binomial", "Geometric", "NegativeBinomial"]


def _softplus(x):
    return torchlite.nn.functional.softplus(x)


class Binomial(Distribution):
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self.probs, self.logits, self.total_count, given = probs_and_logits(probs, logits, total_count)
        self.total_count = self.total_count.to(self.probs.dtype)
        self._given = ("total_count", given)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def param_shape(self):
        return self.probs.size()

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        with torchlite.no_grad():
            return torchlite.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_choose = torchlite.lgamma(n + 1) - torchlite.lgamma(value + 1) - torchlite.lgamma(n - value + 1)
        # k logits - n log(1 + e^logits) = k log p + (n - k) log(1 - p); probs of 0 or 1 have logits clamped at
        # log(eps) (as PyTorch), so an impossible count gets a very negative log_prob rather than -inf
        return log_choose + value * self.logits - n * _softplus(self.logits)

    def entropy(self):
        n = self.total_count
        if not bool((n == n.flatten()[0]).all()) if n.numel() else False:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        support = self.enumerate_support(expand=False)
        log_p = self.log_prob(support)
        return -(torchlite.exp(log_p) * log_p).sum(0)

    def enumerate_support(self, expand=True):
        n = self.total_count
        total = int(n.flatten()[0].item()) if n.numel() else 0
        if n.numel() and not bool((n == total).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = torchlite.arange(1 + total, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class Geometric(Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self.probs, self.logits, given = probs_and_logits(probs, logits)
        self._given = (given,)
        super().__init__(self.probs.shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            raise ValueError(f"Expected parameter probs (Tensor of shape {tuple(self.probs.shape)}) of distribution "
                             f"{self!r} to satisfy the constraint HalfOpenInterval(lower_bound=0.0, "
                             f"upper_bound=1.0), but found invalid values:\n{self.probs}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torchlite.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        with torchlite.no_grad():
            tiny = torchlite.finfo(self.probs.dtype).tiny
            u = torchlite.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            # inversion: floor(log U / log(1 - p)) failures before the first success
            return (torchlite.log(u) / torchlite.log1p(-self.probs.expand(shape))).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = torchlite.broadcast_tensors(value.to(self.probs.dtype), self.probs)
        # k log(1 - p) + log p, with 0 log 0 = 0 at p = 1, k = 0
        return torchlite.xlogy(value, 1 - probs) + torchlite.log(probs)

    def entropy(self):
        # (-(1 - p) log(1 - p) - p log p) / p
        bce = torchlite.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs


class NegativeBinomial(Distribution):
    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self.probs, self.logits, self.total_count, given = probs_and_logits(probs, logits, total_count)
        self.total_count = self.total_count.to(self.probs.dtype)
        self._given = ("total_count", given)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * torchlite.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * torchlite.exp(self.logits)).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torchlite.sigmoid(-self.logits)

    def sample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        with torchlite.no_grad():
            # Poisson with a Gamma(total_count, (1 - p) / p) rate
            rate = torchlite._standard_gamma(self.total_count.expand(shape)) * torchlite.exp(self.logits.expand(shape))
            return torchlite.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        # log C(k + r - 1, k) + r log(1 - p) + k log p, with log(1 - p) = -softplus(logits), log p = logits -
        # softplus(logits)
        log_unnormalized = r * -_softplus(self.logits) + value * (self.logits - _softplus(self.logits))
        log_unnormalized = torchlite.where((r == 0) & (value == 0), 0.0, log_unnormalized)
        log_norm = torchlite.lgamma(r + value) - torchlite.lgamma(value + 1) - torchlite.lgamma(r)
        log_norm = torchlite.where(r + value == 0, 0.0, log_norm)
        return log_unnormalized + log_norm
