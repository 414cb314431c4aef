"""VonMises(loc, concentration): the circular normal distribution on angles, density
exp(concentration cos(x - loc)) / (2 pi I0(concentration)), drawn on [-pi, pi).

Sampling is Best and Fisher's rejection method (1979), in float64, repeated on the draws not yet accepted."""
import math

import torchlite

from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["VonMises"]


def _log_i0(x):
    return torchlite.log(torchlite.special.i0e(x)) + x  # log I0, without overflow for large x


class VonMises(Distribution):
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        # the circular variance 1 - I1(k) / I0(k)
        k = self.concentration
        return 1 - torchlite.special.i1e(k) / torchlite.special.i0e(k)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        return k * torchlite.cos(value - self.loc) - math.log(2 * math.pi) - _log_i0(k)

    def sample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        with torchlite.no_grad():
            k = self.concentration.to(torchlite.float64).expand(shape)
            # Best-Fisher: with r = 1 + sqrt(1 + 4 k^2), rho = (r - sqrt(2 r)) / (2 k), s = (1 + rho^2) / (2 rho)
            # (for tiny k, s ~ 1 / k + k, written so as not to divide 0 by 0)
            tau = 1 + torchlite.sqrt(1 + 4 * k * k)
            rho = (tau - torchlite.sqrt(2 * tau)) / (2 * k)
            s = torchlite.where(k < 1e-5, 1 / k + k, (1 + rho * rho) / (2 * rho))
            x = torchlite.empty(shape, dtype=torchlite.float64, device=k.device)
            todo = torchlite.ones(shape, dtype=torchlite.bool, device=k.device)
            while bool(todo.any()):
                u1, u2, u3 = (torchlite.rand(shape, dtype=torchlite.float64, device=k.device) for _ in range(3))
                z = torchlite.cos(math.pi * u1)
                f = (1 + s * z) / (s + z)
                c = k * (s - f)
                accept = ((c * (2 - c) - u2) > 0) | (torchlite.log(c / u2) + 1 - c >= 0)
                angle = torchlite.sign(u3 - 0.5) * torchlite.acos(f.clamp(-1, 1))
                new = todo & accept
                x = torchlite.where(new, angle, x)
                todo = todo & ~accept
            x = (x + math.pi + self.loc.to(torchlite.float64)).remainder(2 * math.pi) - math.pi
            return x.to(self.loc.dtype)
