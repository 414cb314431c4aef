"""torchlite.svd_lowrank and pca_lowrank: randomized low-rank SVD (Halko, Martinsson and Tropp, "Finding structure
with randomness", 2009: a randomized range finder with subspace iterations, Algorithm 4.4, then the SVD of the
small projected matrix, Algorithm 5.1), written with torchlite ops so that it runs on any device and is
differentiable through linalg.qr and linalg.svd."""
from . import _C, linalg

_F = _C._functions


def _check_matrix(api, A):
    if not isinstance(A, _C.TensorBase):
        raise TypeError(f"{api}: expected a Tensor as A, got {type(A).__name__}")
    if A.dim() < 2:
        raise ValueError(f"{api}: A must be a matrix or a batch of matrices (at least 2 dimensions), got "
                         f"{A.dim()} dimension{'s' if A.dim() != 1 else ''}")
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"{api}: expected a floating point or complex tensor, got {A.dtype}")


def _approximate_basis(A, q, niter):
    """An orthonormal basis (..., m, min(m, q)) of most of A's range: Q of A Omega for a Gaussian Omega (n, q),
    refined by `niter` subspace iterations (a QR between each product keeps the rounding errors small)."""
    omega = _F.randn(A.shape[-1], q, dtype=A.dtype, device=A.device)
    Q = linalg.qr(A @ omega).Q
    for _ in range(niter):
        Z = linalg.qr(A.mH @ Q).Q
        Q = linalg.qr(A @ Z).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ~ U diag(S) V^H (M broadcast to A; none by default), of rank min(q, m, n): the
    randomized SVD of Halko et al. (their Algorithm 5.1 over a range finder with `niter` subspace iterations).
    Random: set torchlite.manual_seed for repeatable results."""
    _check_matrix("svd_lowrank", A)
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    X = A if M is None else A - M.broadcast_to(A.shape)
    Q = _approximate_basis(X, q, max(niter, 0))
    Ub, S, Vh = linalg.svd(Q.mH @ X, full_matrices=False)
    return Q @ Ub, S, Vh.mH


def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V) of the principal component analysis of A's rows: svd_lowrank of A minus its column means
    (center=True), of rank q (default min(6, m, n)); V's columns are the principal directions and
    S ** 2 / (m - 1) the variances along them."""
    _check_matrix("pca_lowrank", A)
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not isinstance(q, int) or isinstance(q, bool) or not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not isinstance(niter, int) or isinstance(niter, bool) or niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter)
    return svd_lowrank(A, q, niter=niter, M=A.mean(dim=-2, keepdim=True))
