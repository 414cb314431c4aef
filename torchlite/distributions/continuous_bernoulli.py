"""ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501)): the distribution on [0, 1] with density
C(p) p^x (1 - p)^(1 - x) (Loaiza-Ganem and Cunningham, 2019), C(p) = 2 atanh(1 - 2p) / (1 - 2p) = log((1 - p)
/ p) / (1 - 2p), and C(1/2) = 2.

Its normalizer, mean, variance and CDF divide by 1 - 2p; for p inside `lims` they use their Taylor series in
x = p - 1/2 instead (log C = log 2 + 4/3 x^2 + 104/45 x^4, mean = 1/2 + x/3 + 16/45 x^3, variance = 1/12 -
x^2/15 + 128/945 x^4). A draw is the inverse CDF of a uniform, so rsample is differentiable."""
import math

import torchlite

from . import constraints
from .distribution import probs_and_logits
from .exp_family import ExponentialFamily

__all__ = ["ContinuousBernoulli"]


def _softplus(x):
    return torchlite.nn.functional.softplus(x)


class ContinuousBernoulli(ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        self.probs, self.logits, given = probs_and_logits(probs, logits)
        self._given = (given,)
        self._lims = lims
        super().__init__(self.probs.shape, validate_args=validate_args)

    # ---------------------------------------------------------------- the two regimes
    def _outside(self):
        return (self.probs <= self._lims[0]) | (self.probs >= self._lims[1])

    def _cut_probs(self):
        """probs outside lims, and lims[0] inside (where the exact formulas would divide by ~0 and are not used)."""
        return torchlite.where(self._outside(), self.probs, self._lims[0] * torchlite.ones_like(self.probs))

    def _log_normalizer_of(self, probs):
        outside = (probs <= self._lims[0]) | (probs >= self._lims[1])
        cut = torchlite.where(outside, probs, self._lims[0] * torchlite.ones_like(probs))
        # log |log((1 - p) / p)| - log |1 - 2p|, with p kept below 1/2 by symmetry (C(p) = C(1 - p))
        low = torchlite.where(cut <= 0.5, cut, 1 - cut)
        exact = torchlite.log(torchlite.log1p(-low) - torchlite.log(low)) - torchlite.log(1 - 2 * low)
        x = probs - 0.5
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x * x) * x * x
        return torchlite.where(outside, exact, taylor)

    def _cont_bern_log_norm(self):
        return self._log_normalizer_of(self.probs)

    # ---------------------------------------------------------------- moments
    @property
    def mean(self):
        cut = self._cut_probs()
        exact = cut / (2 * cut - 1) + 1 / (torchlite.log1p(-cut) - torchlite.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x * x) * x
        return torchlite.where(self._outside(), exact, taylor)

    @property
    def variance(self):
        cut = self._cut_probs()
        exact = cut * (cut - 1) / (1 - 2 * cut).pow(2) + 1 / (torchlite.log1p(-cut) - torchlite.log(cut)).pow(2)
        x2 = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x2) * x2
        return torchlite.where(self._outside(), exact, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    # ---------------------------------------------------------------- densities
    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = torchlite.broadcast_tensors(self.logits, value.to(self.logits.dtype))
        # x log p + (1 - x) log(1 - p) = x logits - softplus(logits)
        return value * logits - _softplus(logits) + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        exact = (cut.pow(value) * (1 - cut).pow(1 - value) + cut - 1) / (2 * cut - 1)
        inner = torchlite.where(self._outside(), exact, value)
        return torchlite.where(value <= 0, 0.0, torchlite.where(value >= 1, 1.0, inner))

    def icdf(self, value):
        cut = self._cut_probs()
        exact = (torchlite.log1p(value * (2 * cut - 1) / (1 - cut))) / (torchlite.log(cut) - torchlite.log1p(-cut))
        return torchlite.where(self._outside(), exact, value)

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        u = torchlite.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            return self.rsample(sample_shape)

    def entropy(self):
        log_p0 = torchlite.log1p(-self.probs.clamp(max=1 - torchlite.finfo(self.probs.dtype).eps))
        log_p1 = torchlite.log(self.probs.clamp(min=torchlite.finfo(self.probs.dtype).eps))
        return self.mean * (log_p0 - log_p1) - self._cont_bern_log_norm() - log_p0

    # ---------------------------------------------------------------- exponential family
    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        # A(logits) = log of the integral of e^(logits x) over [0, 1] = softplus(logits) - log C(sigmoid(logits))
        return _softplus(x) - self._log_normalizer_of(torchlite.sigmoid(x))
