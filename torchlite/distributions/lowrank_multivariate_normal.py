"""LowRankMultivariateNormal(loc, cov_factor, cov_diag): the Gaussian on R^k with covariance
W W^T + diag(D), W = cov_factor (k x r) and D = cov_diag > 0, computed without forming the k x k matrix:
a draw is loc + W z_r + sqrt(D) z_k, and log_prob and the log-determinant go through the r x r capacitance
matrix C = I + W^T D^-1 W (Woodbury's identity and the matrix determinant lemma)."""
import math

import torchlite

from . import constraints
from .distribution import Distribution

__all__ = ["LowRankMultivariateNormal"]


class LowRankMultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        k = loc.shape[-1]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2] != k:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {k} x m")
        if cov_diag.dim() < 1 or cov_diag.shape[-1] != k:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {(k,)}")
        try:
            batch_shape = torchlite.broadcast_shapes(tuple(loc.shape[:-1]), tuple(cov_factor.shape[:-2]),
                                                     tuple(cov_diag.shape[:-1]))
        except RuntimeError:
            raise ValueError(f"Incompatible batch shapes: loc {tuple(loc.shape)}, cov_factor "
                             f"{tuple(cov_factor.shape)}, cov_diag {tuple(cov_diag.shape)}") from None
        r = cov_factor.shape[-1]
        self.loc = loc.expand(batch_shape + (k,))
        self.cov_factor = cov_factor.expand(batch_shape + (k, r))
        self.cov_diag = cov_diag.expand(batch_shape + (k,))
        super().__init__(batch_shape, (k,), validate_args=validate_args)
        # C = I + W^T D^-1 W and its Cholesky factor
        w_scaled = self.cov_factor / self.cov_diag.unsqueeze(-1).sqrt()
        capacitance = w_scaled.mT @ w_scaled + torchlite.eye(r, dtype=loc.dtype, device=loc.device)
        self._capacitance_tril = torchlite.linalg.cholesky(capacitance)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self.cov_factor.pow(2).sum(-1) + self.cov_diag

    @property
    def covariance_matrix(self):
        return self.cov_factor @ self.cov_factor.mT + torchlite.diag_embed(self.cov_diag)

    @property
    def precision_matrix(self):
        # Woodbury: D^-1 - D^-1 W C^-1 W^T D^-1
        d_inv = self.cov_diag.reciprocal()
        a = torchlite.linalg.solve_triangular(self._capacitance_tril, (self.cov_factor * d_inv.unsqueeze(-1)).mT,
                                              upper=False)
        return torchlite.diag_embed(d_inv) - a.mT @ a

    @property
    def scale_tril(self):
        return torchlite.linalg.cholesky(self.covariance_matrix)

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        r = self.cov_factor.shape[-1]
        z_r = torchlite.randn(shape[:-1] + (r,), dtype=self.loc.dtype, device=self.loc.device)
        z_k = torchlite.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + torchlite.matmul(self.cov_factor, z_r.unsqueeze(-1)).squeeze(-1)
                + self.cov_diag.sqrt() * z_k)

    def _log_det(self):
        # log det(W W^T + D) = log det C + sum log D
        return (2 * self._capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                + self.cov_diag.log().sum(-1))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        d_inv = self.cov_diag.reciprocal()
        # x^T S^-1 x = x^T D^-1 x - |L_C^-1 W^T D^-1 x|^2
        wt_dx = torchlite.matmul(self.cov_factor.mT, (diff * d_inv).unsqueeze(-1))
        tril = self._capacitance_tril.expand(wt_dx.shape[:-2] + self._capacitance_tril.shape[-2:])
        y = torchlite.linalg.solve_triangular(tril, wt_dx, upper=False).squeeze(-1)
        mahalanobis = (diff * diff * d_inv).sum(-1) - y.pow(2).sum(-1)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + mahalanobis + self._log_det())

    def entropy(self):
        k = self._event_shape[0]
        return (0.5 * (k * (1.0 + math.log(2 * math.pi)) + self._log_det())).expand(self._batch_shape)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        batch_shape = torchlite.Size(batch_shape)
        new._capacitance_tril = self._capacitance_tril.expand(batch_shape + self._capacitance_tril.shape[-2:])
        return new
