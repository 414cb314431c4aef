"""ExponentialFamily: the base of the families whose density is h(x) exp(<theta, T(x)> - A(theta)) in their
natural parameters theta. A subclass gives `_natural_params` (theta), `_log_normalizer(*theta)` (A) and
`_mean_carrier_measure` (E[log h(x)]); the entropy then follows for any of them:
H = A(theta) - <theta, grad A(theta)> - E[log h(x)], since E[T(x)] = grad A(theta)."""
import torchlite

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        theta = [p.detach().requires_grad_() for p in self._natural_params]
        with torchlite.enable_grad():
            a = self._log_normalizer(*theta)
            grads = torchlite.autograd.grad(a.sum(), theta, create_graph=True)
        h = a - self._mean_carrier_measure
        for p, g in zip(theta, grads):
            h = h - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return h
