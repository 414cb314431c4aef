"""Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None): the distribution of
sum_i x_i x_i^T over df draws x_i ~ N(0, S), for real df > p - 1 (p x p matrices S = L L^T).

A draw uses Bartlett's decomposition: L A A^T L^T with A lower triangular, A_ii = sqrt(chi-squared(df - i)) and
standard normals below the diagonal."""
import math

import torchlite

from . import constraints
from .exp_family import ExponentialFamily
from .multivariate_normal import _CholeskyParameterized

__all__ = ["Wishart"]


def _mvlgamma(a, p):
    """log of the multivariate gamma function Gamma_p(a)."""
    j = torchlite.arange(p, dtype=a.dtype, device=a.device)
    return p * (p - 1) / 4 * math.log(math.pi) + torchlite.lgamma(a.unsqueeze(-1) - j / 2).sum(-1)


class Wishart(_CholeskyParameterized, ExponentialFamily):
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        name, matrix = self._one_matrix(covariance_matrix, precision_matrix, scale_tril)
        if matrix.dim() < 2:
            raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch dimensions")
        p = matrix.shape[-1]
        if not isinstance(df, torchlite.Tensor):
            df = torchlite.tensor(float(df), dtype=matrix.dtype, device=matrix.device)
        if bool((df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        batch_shape = torchlite.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(df.shape))
        self.arg_constraints = {"covariance_matrix": constraints.positive_definite,
                                "precision_matrix": constraints.positive_definite,
                                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(p - 1)}
        self.df = df.expand(batch_shape)
        setattr(self, name, matrix.expand(batch_shape + (p, p)))
        self._given = (name, "df")
        super().__init__(batch_shape, (p, p), validate_args=validate_args)
        self._set_cholesky(name, matrix)

    @property
    def mean(self):
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        p = self._event_shape[-1]
        factor = self.df - p - 1
        factor = torchlite.where(factor <= 0, math.nan, factor)
        return factor.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        s = self.covariance_matrix
        diag = s.diagonal(dim1=-2, dim2=-1)
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * (s.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        p = self._event_shape[-1]
        lead = tuple(shape[:-2])
        dtype, device = self.df.dtype, self.df.device
        # Bartlett: chi-squared(df - i) on the diagonal (Gamma((df - i) / 2, 1 / 2)), normals below
        i = torchlite.arange(p, dtype=dtype, device=device)
        half = 0.5 * (self.df.unsqueeze(-1) - i).expand(lead + (p,))
        diag = (2 * torchlite._standard_gamma(half)).sqrt()
        a = torchlite.randn(lead + (p, p), dtype=dtype, device=device).tril(-1) + torchlite.diag_embed(diag)
        la = torchlite.matmul(self._scale_tril, a)
        return la @ la.mT

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._event_shape[-1]
        nu = self.df
        log_det_s = 2 * self._scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        log_det_x = torchlite.linalg.slogdet(value)[1]
        trace = (torchlite.cholesky_inverse(self._scale_tril) * value).sum((-2, -1))  # tr(S^-1 X)
        return (0.5 * (nu - p - 1) * log_det_x - 0.5 * trace - 0.5 * nu * p * math.log(2) - 0.5 * nu * log_det_s
                - _mvlgamma(0.5 * nu, p))

    def entropy(self):
        p = self._event_shape[-1]
        nu = self.df
        log_det_s = 2 * self._scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        j = torchlite.arange(p, dtype=nu.dtype, device=nu.device)
        sum_digamma = torchlite.digamma(0.5 * (nu.unsqueeze(-1) - j)).sum(-1)
        return (0.5 * (p + 1) * log_det_s + 0.5 * p * (p + 1) * math.log(2) + _mvlgamma(0.5 * nu, p)
                - 0.5 * (nu - p - 1) * sum_digamma + 0.5 * nu * p)
