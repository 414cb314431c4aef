"""Parametrizations built on torchlite.nn.utils.parametrize (PyTorch's torch.nn.utils.parametrizations):
weight_norm, spectral_norm and orthogonal.

torchlite.linalg has no QR / solve / matrix_exp / householder_product yet, so this module carries small
private versions of them: matrix_exp and householder_product are written with differentiable torchlite ops
(matmul, so gradients flow), solve is an autograd Function whose forward and backward call NumPy, and
the QR factorizations used by `right_inverse` (no gradient needed) call NumPy. All of this is CPU only.
Real tensors only (torchlite has no complex dtypes).
"""
import math
from enum import Enum, auto

import numpy as np

import torchlite
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------------------------------- linalg helpers
def _np(x):
    return np.array(x.detach().numpy(), copy=True)


def _from_np(a, like):
    return torchlite.from_numpy(np.ascontiguousarray(a)).to(dtype=like.dtype)


def _geqrf(A):
    """LAPACK geqrf through NumPy: (a, tau) with R on and above the diagonal of `a` and the Householder
    vectors below it (no gradient)."""
    h, tau = np.linalg.qr(_np(A), mode="raw")  # h comes transposed (Fortran order)
    return _from_np(np.swapaxes(h, -1, -2), A), _from_np(tau, A)


def _householder_product(A, tau):
    """The first A.size(-1) columns of H_1 ... H_k with H_i = I - tau_i v_i v_i^T (v_i: column i of A below
    the diagonal, 1 on it). Built from differentiable ops."""
    m, n = A.shape[-2], A.shape[-1]
    rows = torchlite.arange(m)
    Q = torchlite.eye(m, dtype=A.dtype)
    for i in range(tau.shape[-1]):
        v = A[..., :, i] * (rows > i).to(A.dtype) + (rows == i).to(A.dtype)
        Qv = Q @ v.unsqueeze(-1)
        Q = Q - (Qv * tau[..., i:i + 1].unsqueeze(-1)) @ v.unsqueeze(-2)
    return Q[..., :, :n]


def _matrix_exp(A):
    """exp(A) for square matrices by scaling and squaring with a Taylor polynomial (differentiable)."""
    n = A.shape[-1]
    with no_grad():
        norm = float(A.detach().abs().sum(-2).max()) if A.numel() else 0.0
    s = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    X = A / (2.0 ** s) if s else A
    eye = torchlite.eye(n, dtype=A.dtype)
    degree = 18 if A.dtype == torchlite.float64 else 12
    E = eye + X / degree
    for k in range(degree - 1, 0, -1):
        E = eye + (X @ E) / k
    for _ in range(s):
        E = E @ E
    return E


class _Solve(Function):
    @staticmethod
    def forward(ctx, A, B):
        X = _from_np(np.linalg.solve(_np(A), _np(B)), B)
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        gB = _from_np(np.linalg.solve(np.swapaxes(_np(A), -1, -2), _np(grad)), grad)
        gA = -(gB @ X.mT)
        return gA, gB


def _solve(A, B):
    return _Solve.apply(A, B)


def _is_orthogonal(Q, eps=None):
    n, k = Q.size(-2), Q.size(-1)
    Id = torchlite.eye(k, dtype=Q.dtype)
    eps = 10.0 * n * torchlite.finfo(Q.dtype).eps
    return torchlite.allclose(Q.mT @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A's QR decomposition with R's diagonal made positive (no gradient)."""
    q, r = np.linalg.qr(_np(A))
    d = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    d[d == 0] = 1
    return _from_np(q * d[..., None, :], A)


def _is_complex(t):
    return bool(getattr(t, "is_complex", lambda: False)())


# ---------------------------------------------------------------------------------------- orthogonal
class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    base: Tensor

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if _is_complex(weight) and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # here n >= k and X is a tall matrix
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = torchlite.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _matrix_exp(A)
            else:
                Id = torchlite.eye(n, dtype=A.dtype)
                Q = _solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            # the diagonal of X is 1's and -1's; it flips the sign of each column of Q
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                              "or the Cayley parametrizations when use_trivialization=False.")
                A, tau = _geqrf(Q)
                # a QR with diag(R) > 0; store the signs of R's diagonal on A's diagonal
                diag = A.diagonal(dim1=-2, dim2=-1)
                signs = diag.sign()
                signs = torchlite.where(tau == 0.0, -signs, signs)
                diag.copy_(signs)
                return A.mT if transpose else A
            if n == k:
                Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
            else:
                N = torchlite.randn(*(tuple(Q.size()[:-2]) + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(torchlite.cat([Q, N], dim=-1))
            self.base = Q
            # -Id makes householder(zeros) == eye, and is the zero of the other two maps' domain
            neg_Id = torchlite.zeros_like(Q_init)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrizes `module.<name>` (a matrix or batch of matrices) to be orthogonal (orthonormal columns
    or rows). orthogonal_map: "matrix_exp" (default for square), "cayley" or "householder" (default
    otherwise). With use_trivialization (default), the map is applied relative to a buffer `base` set on
    assignment. Returns module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1) or _is_complex(weight)
                          else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---------------------------------------------------------------------------------------- weight norm
def _norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of v over every dim except `dim` (kept with size 1); dim=-1 is the whole norm."""
    if dim == -1:
        return v.norm(pow)
    ndim = v.dim()
    if dim < 0:
        dim += ndim
    if not 0 <= dim < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                         f"{dim})")
    if ndim == 0:
        return v.abs()
    moved = v.transpose(0, dim) if dim != 0 else v
    norms = moved.reshape(moved.shape[0], -1).norm(pow, dim=1)
    shape = [1] * ndim
    shape[dim] = v.shape[dim]
    return norms.reshape(shape)


def _weight_norm(v, g, dim=0):
    return v * (g / _norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = _norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    """Weight normalization as a parametrization: `module.<name>` = g * v / ||v|| with the magnitude g in
    `parametrizations.<name>.original0` and the direction v in `original1`; the norm is taken over every
    dim except `dim` (dim=None: over the whole tensor). Loading an old state_dict with `<name>_g` /
    `<name>_v` keys works. Returns module."""
    _weight_norm_module = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm_module, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---------------------------------------------------------------------------------------- spectral norm
class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from a good estimate of the top singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        assert weight.ndim > 1
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # updates the _u and _v buffers in place (no gradient)
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(torchlite.mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(torchlite.mv(weight_mat.mT, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = torchlite.vdot(u, torchlite.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        # the buffers keep their values; the next forward in training mode refreshes them
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalization as a parametrization: `module.<name>` = W / sigma(W), sigma estimated by power
    iteration with the buffers `parametrizations.<name>.0._u` / `._v` (updated on every access in training
    mode). dim defaults to 1 for ConvTranspose modules, else 0. Returns module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
