"""Dirichlet(concentration) and Beta(concentration1, concentration0): distributions on the probability
simplex (the last dim of concentration indexes its K coordinates) and on [0, 1].

A draw normalizes K independent Gamma(concentration_k, 1) draws; the gammas' implicit reparameterization
makes the normalized draw differentiable in the concentrations."""
import torchlite

from . import constraints
from .distribution import broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Beta", "Dirichlet"]


def _log_beta(concentration):
    """log B(a) = sum_k lgamma(a_k) - lgamma(sum_k a_k), over the last dim."""
    return torchlite.lgamma(concentration).sum(-1) - torchlite.lgamma(concentration.sum(-1))


class Dirichlet(ExponentialFamily):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        # (a_k - 1)+ normalized; where every a_k < 1 the density is unbounded at each vertex, and the first
        # vertex is taken (PyTorch's choice)
        excess = (self.concentration - 1).clamp(min=0)
        mode = excess / excess.sum(-1, keepdim=True)
        all_small = (self.concentration < 1).all(-1, keepdim=True)
        first = torchlite.zeros_like(mode)
        first[..., 0] = 1
        return torchlite.where(all_small, first, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        g = torchlite._standard_gamma(self.concentration.expand(shape))
        x = g / g.sum(-1, keepdim=True)
        tiny = torchlite.finfo(x.dtype).tiny
        return x.clamp(tiny, 1 - torchlite.finfo(x.dtype).eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlite.xlogy(self.concentration - 1, value).sum(-1) - _log_beta(self.concentration)

    def entropy(self):
        a = self.concentration
        k = a.shape[-1]
        total = a.sum(-1)
        return _log_beta(a) + (total - k) * torchlite.digamma(total) - ((a - 1) * torchlite.digamma(a)).sum(-1)


class Beta(ExponentialFamily):
    """Beta(concentration1, concentration0): density x^(a - 1) (1 - x)^(b - 1) / B(a, b) with a =
    concentration1, b = concentration0; the first coordinate of Dirichlet([a, b])."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        a, b = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(torchlite.stack([a, b], -1), validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    def _given_params(self):
        return list(self.arg_constraints)

    def __repr__(self):
        parts = []
        for name in self.arg_constraints:
            v = getattr(self, name)
            shown = v.item() if v.dim() == 0 else v if v.numel() == 1 else v.size()
            parts.append(f"{name}: {shown}")
        return f"Beta({', '.join(parts)})"

    def expand(self, batch_shape, _instance=None):
        new = object.__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        new._batch_shape = torchlite.Size(batch_shape)
        return new

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=torchlite.Size()):
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return (torchlite.xlogy(a - 1, value) + torchlite.xlogy(b - 1, 1 - value)
                - _log_beta(self._dirichlet.concentration))

    def entropy(self):
        return self._dirichlet.entropy()
