"""Gamma(concentration, rate) and Chi2(df): densities x^(c - 1) e^(-rate x) rate^c / Gamma(c) on x >= 0.

Draws come from torchlite._standard_gamma, which is differentiable in the concentration (its implicit
reparameterization), so rsample's gradient reaches both parameters."""
import torchlite

from . import constraints
from .distribution import broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Chi2", "Gamma"]


def _tiny(dtype):
    return torchlite.finfo(dtype).tiny


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        draws = torchlite._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return draws.clamp(min=_tiny(draws.dtype))  # a quotient can underflow to 0, outside log_prob's domain

    def log_prob(self, value):
        value = torchlite.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        return torchlite.xlogy(c, r) + torchlite.xlogy(c - 1, value) - r * value - torchlite.lgamma(c)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlite.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        c = self.concentration
        return c - torchlite.log(self.rate) + torchlite.lgamma(c) + (1 - c) * torchlite.digamma(c)

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return torchlite.lgamma(x + 1) + (x + 1) * torchlite.log(-y.reciprocal())


class Chi2(Gamma):
    """The chi-squared distribution with df degrees of freedom: Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, torchlite.full_like(df, 0.5), validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2

    def _given_params(self):
        return ["df"]

    def __repr__(self):
        df = self.df
        shown = df.item() if df.dim() == 0 else df if df.numel() == 1 else df.size()
        return f"Chi2(df: {shown})"

    def _tensor_params(self):
        return ["concentration", "rate"]
