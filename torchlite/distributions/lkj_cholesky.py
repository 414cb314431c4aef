"""LKJCholesky(dim, concentration=1.0): the lower Cholesky factor L of a dim x dim correlation matrix C = L L^T
drawn from the LKJ distribution, density proportional to det(C)^(concentration - 1).

Drawn by the onion method (Lewandowski, Kurowicka and Joe, 2009): row k (k = 1 .. dim - 1) is
[sqrt(y_k) u_k, sqrt(1 - y_k)] with y_k ~ Beta(k / 2, b_k), b_k = concentration + (dim - 1 - k) / 2, and u_k
uniform on the unit sphere of R^k. That construction also gives the density of L over its free entries:
prod_k L_kk^(2 b_k - 2) / Z with log Z = sum_k [lgamma(b_k) - lgamma(b_k + k / 2) + (k / 2) log pi]."""
import math

import torchlite

from . import constraints
from .dirichlet import Beta
from .distribution import Distribution, broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        super().__init__(self.concentration.shape, (dim, dim), validate_args=validate_args)
        k = torchlite.arange(1, dim, dtype=self.concentration.dtype, device=self.concentration.device)
        self._k = k
        # b_k for each batch element: concentration + (dim - 1 - k) / 2
        self._b = self.concentration.unsqueeze(-1) + 0.5 * (dim - 1 - k)
        self._beta = Beta(0.5 * k.expand(self._b.shape), self._b)

    def expand(self, batch_shape, _instance=None):
        return LKJCholesky(self.dim, self.concentration.expand(batch_shape), validate_args=False)

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            shape = self._extended_shape(sample_shape)
            y = self._beta.sample(sample_shape)  # (..., dim - 1)
            z = torchlite.randn(shape, dtype=y.dtype, device=y.device).tril(-1)
            u = z / torchlite.linalg.norm(z, dim=-1, keepdim=True).clamp(min=torchlite.finfo(y.dtype).tiny)
            # row 0 is e_0; row k > 0 is sqrt(y_k) u_k off the diagonal and sqrt(1 - y_k) on it
            scale = torchlite.cat([torchlite.zeros_like(y[..., :1]), y.sqrt()], -1).unsqueeze(-1)
            off = u * scale
            diag = torchlite.cat([torchlite.ones_like(y[..., :1]), (1 - y).clamp(min=0).sqrt()], -1)
            return off + torchlite.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        unnormalized = ((2 * self._b - 2) * torchlite.log(diag)).sum(-1)
        log_z = (torchlite.lgamma(self._b) - torchlite.lgamma(self._b + 0.5 * self._k)
                 + 0.5 * self._k * math.log(math.pi)).sum(-1)
        return unnormalized - log_z
