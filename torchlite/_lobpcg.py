"""torchlite.lobpcg: the k largest (or smallest) eigenpairs of a symmetric positive definite generalized
eigenvalue problem A X = B X diag(E) by Knyazev's Locally Optimal Block Preconditioned Conjugate Gradient method
(SIAM J. Sci. Comput. 23(2), 2001), with Stathopoulos and Wu's SVQB orthonormalization (SIAM J. Sci. Comput.
23(6), 2002) of each search subspace. Written with torchlite ops (any device); the derivatives are those of the
eigenpairs themselves (the eigenvalues always, the eigenvectors for B = I), not of the iterations."""
import math

from . import _C, linalg
from ._dtype_info import finfo
from .autograd import Function, no_grad

_F = _C._functions


def _svqb(S, B, drop):
    """A B-orthonormal basis of the span of S's columns (SVQB: the eigendecomposition of the scaled Gram
    matrix, directions whose eigenvalue is below `drop` times the largest left out)."""
    BS = S if B is None else B @ S
    G = S.mT @ BS
    G = (G + G.mT) / 2
    d = G.diagonal().clamp_min(finfo(S.dtype).tiny).rsqrt()
    w, V = linalg.eigh(G * d.unsqueeze(0) * d.unsqueeze(1))
    keep = w > drop * w[-1].clamp_min(0)
    V, w = V[:, keep], w[keep]
    return S @ (V * d.unsqueeze(1) * w.rsqrt().unsqueeze(0))


def _b_project_out(W, X, B):
    """W minus its B-orthogonal projection on the B-orthonormal columns of X."""
    BX = X if B is None else B @ X
    return W - X @ (BX.mT @ W)


def _rayleigh_ritz(Q, A, n, largest):
    """The n extreme Ritz pairs of A on the B-orthonormal basis Q: (values, coefficients), largest first when
    `largest`, else smallest first."""
    T = Q.mT @ (A @ Q)
    theta, Y = linalg.eigh((T + T.mT) / 2)
    order = _F.arange(theta.shape[0] - 1, theta.shape[0] - 1 - n, -1) if largest else _F.arange(n)
    return theta[order], Y[:, order]


def _lobpcg_2d(A, B, X, iK, k, niter, tol, largest, method, tracker):
    m, n = X.shape
    drop = 10 * m * finfo(A.dtype).eps
    X = _svqb(X, B, drop)
    if X.shape[1] < n:  # a rank-deficient start: completed with random directions
        X = _svqb(_F.cat([X, _F.randn(m, n - X.shape[1], dtype=A.dtype, device=A.device)], 1), B, drop)
    E, Y = _rayleigh_ritz(X, A, n, largest)
    X = X @ Y
    P = None
    a_norm = linalg.matrix_norm(A, 2).item()
    b_norm = 1.0 if B is None else linalg.matrix_norm(B, 2).item()
    step, converged = 0, 0
    while niter < 0 or step < niter:
        BX = X if B is None else B @ X
        R = A @ X - BX * E.unsqueeze(0)
        rerr = R.norm(dim=0) / (a_norm + E.abs() * b_norm)
        converged = int((rerr[:k] < tol).sum().item())
        if tracker is not None:
            tracker(_Progress(step, converged, E, X, R, rerr))
        if converged >= k:
            break
        W = R if iK is None else iK @ R
        blocks = [W] if P is None else [W, P]
        if method == "ortho":  # the new directions B-orthogonal to X first, twice for accuracy
            Z = _F.cat(blocks, 1)
            for _ in range(2):
                Z = _b_project_out(Z, X, B)
            Z = _svqb(Z, B, drop)
            Z = _svqb(_b_project_out(Z, X, B), B, drop)
            Q = _F.cat([X, Z], 1)
        else:  # basic: one orthonormalization of the whole subspace [X, W, P]
            Q = _svqb(_F.cat([X] + blocks, 1), B, drop)
        E, Y = _rayleigh_ritz(Q, A, n, largest)
        X_next = Q @ Y
        # the step's direction outside the old X, the P of the next subspace
        P = Z @ Y[n:] if method == "ortho" else _svqb(_b_project_out(X_next, X, B), B, drop)
        X = X_next
        step += 1
    return E[:k], X[:, :k]


class _Progress:
    """What a tracker receives after each iteration: the step, how many of the k wanted pairs have converged,
    the current approximations E and X, the residuals R = A X - B X diag(E), and their relative errors."""

    def __init__(self, step, converged, E, X, R, rerr):
        self.ivars = {"istep": step, "converged_count": converged}
        self.E, self.X, self.R = E, X, R
        self.tvars = {"rerr": rerr}


class _Eigenpairs(Function):
    """The computed eigenpairs as a function of A (and B): dE_i = x_i^T (dA - E_i dB) x_i for B-normalized x_i;
    for B = I, dx_i = -(A - E_i I)^+ dA x_i, the pseudo-inverse taken on the complement of x_i (a simple
    eigenvalue)."""

    @staticmethod
    def forward(ctx, A, B, E, X):
        ctx.save_for_backward(A, E, X)
        ctx.has_b = B is not None
        return E.clone(), X.clone()

    @staticmethod
    def backward(ctx, gE, gX):
        A, E, X = ctx.saved_tensors
        gA = (X * gE.unsqueeze(-2)) @ X.mT
        gB = -(X * (gE * E).unsqueeze(-2)) @ X.mT if ctx.has_b else None
        if gX is not None and bool((gX != 0).any()):
            if ctx.has_b:
                raise NotImplementedError("lobpcg: the derivative of the eigenvectors of a generalized problem "
                                          "(B given) is not implemented; the eigenvalues are differentiable")
            eye = _F.eye(A.shape[-1], dtype=A.dtype, device=A.device)
            for i in range(X.shape[-1]):
                x, g = X[..., i:i + 1], gX[..., i:i + 1]
                shifted = A - E[..., i].unsqueeze(-1).unsqueeze(-1) * eye + x @ x.mT
                y = linalg.solve(shifted, g - x @ (x.mT @ g))
                gA = gA - y @ x.mT
            gA = (gA + gA.mT) / 2  # symmetric, as PyTorch's (A is symmetric: only that part is defined)
        return gA, gB, None, None


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """(E, X): the k largest (largest=False: smallest) eigenvalues, in that order, and B-orthonormal
    eigenvectors of A X = B X diag(E) for symmetric A (*, m, m) and symmetric positive definite B (default the
    identity), by LOBPCG. k: the number of pairs (default X's columns, or 1); X: the starting approximation
    (*, m, n), random by default with n (default k) columns; iK: a preconditioner (an approximate inverse of A,
    applied to the residuals); niter: the most iterations (default 1000, -1 until convergence); tol: the relative
    residual at which a pair has converged (default the square root of the dtype's epsilon); method "ortho"
    (default: the new directions B-orthogonalized against X before each Rayleigh-Ritz step) or "basic" (one
    orthonormalization of the whole subspace); tracker: called after each iteration with the progress (its
    `ivars['istep']`, `ivars['converged_count']`, `E`, `X`, `R`). ortho_iparams/fparams/bparams are accepted for
    PyTorch's signature and have no effect (the orthonormalization is always SVQB). An unknown method raises
    ValueError, where PyTorch runs "ortho"."""
    if not isinstance(A, _C.TensorBase):
        raise TypeError(f"lobpcg: expected a Tensor as A, got {type(A).__name__}")
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"lobpcg: A must be a square matrix or a batch of them, got shape {tuple(A.shape)}")
    if not A.is_floating_point() or A.dtype not in (_C.float32, _C.float64):
        raise RuntimeError(f"lobpcg: expected a float32 or float64 tensor, got {A.dtype}")
    m = A.shape[-1]
    if method is None:
        method = "ortho"
    if method not in ("ortho", "basic"):
        raise ValueError(f"lobpcg: method must be 'ortho' or 'basic', got {method!r}")
    for name, other in (("B", B), ("iK", iK)):
        if other is not None and tuple(other.shape[-2:]) != (m, m):
            raise ValueError(f"lobpcg: {name} must have the shape of A's matrices ({m}, {m}), got "
                             f"{tuple(other.shape)}")
    if X is not None:
        if X.dim() < 2 or X.shape[-2] != m:
            raise ValueError(f"lobpcg: X must be (*, {m}, n), got shape {tuple(X.shape)}")
        if n is not None and n != X.shape[-1]:
            raise ValueError(f"lobpcg: n (={n}) must be the number of X's columns (={X.shape[-1]})")
        n = X.shape[-1]
        k = n if k is None else k
    else:
        k = 1 if k is None else k
        n = k if n is None else n
    if not isinstance(k, int) or k < 1 or k > n:
        raise ValueError(f"lobpcg: k (={k}) must be a positive integer at most n (={n})")
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than "
                         f"3 x the number of requested eigenpairs (={n})")
    niter = 1000 if niter is None else niter
    tol = math.sqrt(finfo(A.dtype).eps) if tol is None else tol
    largest = True if largest is None else largest

    batch = tuple(A.shape[:-2])
    count = math.prod(batch)
    def flat(t):  # (count, ..., ...): the matrices of t broadcast to A's batch
        if t is None:
            return None
        return t.detach().broadcast_to(batch + tuple(t.shape[-2:])).reshape((count,) + tuple(t.shape[-2:]))

    with no_grad():
        As, Bs, Ks = flat(A), flat(B), flat(iK)
        Xs = flat(X) if X is not None else _F.randn(count, m, n, dtype=A.dtype, device=A.device)
        pairs = [_lobpcg_2d(As[i], None if Bs is None else Bs[i], Xs[i].to(A.dtype),
                            None if Ks is None else Ks[i], k, niter, tol, largest, method, tracker)
                 for i in range(count)]
        E = _F.stack([p[0] for p in pairs]).reshape(batch + (k,))
        V = _F.stack([p[1] for p in pairs]).reshape(batch + (m, k))
    if A.requires_grad or (B is not None and B.requires_grad):
        return _Eigenpairs.apply(A, B, E, V)
    return E, V
