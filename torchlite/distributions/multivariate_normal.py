"""MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None): the Gaussian on
R^k with mean loc (the last dim is the event) and covariance S = L L^T, given as S, as its inverse, or as the
lower-triangular Cholesky factor L with a positive diagonal.

Everything is computed from L: a draw is loc + L z (z standard normal), log_prob needs one triangular solve
and log det S = 2 sum log diag L."""
import math

import torchlite

from . import constraints
from .distribution import Distribution

__all__ = ["MultivariateNormal"]


class _CholeskyParameterized:
    """The shared part of the families given one of covariance_matrix, precision_matrix or scale_tril
    (MultivariateNormal, Wishart): they keep the unbroadcast lower Cholesky factor L of the covariance and compute
    the two matrices not given from it when asked for, broadcast to batch_shape (the base class's expand expands
    the parameters given)."""

    @staticmethod
    def _one_matrix(covariance_matrix, precision_matrix, scale_tril):
        """(name, matrix) of the one matrix given."""
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix), ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        return given[0]

    def _set_cholesky(self, name, matrix):
        if name == "scale_tril":
            self._scale_tril = matrix
        elif name == "covariance_matrix":
            self._scale_tril = torchlite.linalg.cholesky(matrix)
        else:
            self._scale_tril = torchlite.linalg.cholesky(torchlite.linalg.inv(matrix))

    def __getattr__(self, name):
        if name not in ("scale_tril", "covariance_matrix", "precision_matrix") or "_scale_tril" not in self.__dict__:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        L = self._scale_tril
        k = L.shape[-1]
        if name == "covariance_matrix":
            L = L @ L.mT
        elif name == "precision_matrix":
            L = torchlite.cholesky_inverse(L)
        return L.expand(tuple(self._batch_shape) + (k, k))


def _batch_mv(matrix, vector):
    """matrix @ vector over broadcast batch dims."""
    return torchlite.matmul(matrix, vector.unsqueeze(-1)).squeeze(-1)


class MultivariateNormal(_CholeskyParameterized, Distribution):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        name, matrix = self._one_matrix(covariance_matrix, precision_matrix, scale_tril)
        if matrix.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional leading batch "
                             "dimensions")
        batch_shape = torchlite.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        k = loc.shape[-1]
        self.loc = loc.expand(batch_shape + (k,))
        setattr(self, name, matrix.expand(batch_shape + (k, k)))
        self._given = ("loc", name)
        super().__init__(batch_shape, (k,), validate_args=validate_args)
        self._set_cholesky(name, matrix)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        z = torchlite.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._scale_tril, z)

    def _half_log_det(self):
        return self._scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        L = self._scale_tril.expand(diff.shape[:-1] + self._event_shape + self._event_shape)
        white = torchlite.linalg.solve_triangular(L, diff.unsqueeze(-1), upper=False).squeeze(-1)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + white.pow(2).sum(-1)) - self._half_log_det()

    def entropy(self):
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(self._batch_shape)
