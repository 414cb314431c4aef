"""Samples and error cases for linear algebra (matmul family, einsum, tensordot, kron, trace, tril/triu, diag, and
torch.linalg with the old top-level names: solve, inv, det, cholesky, qr, eigh, svd, lstsq, lu...); part of
torchlite.testing's op database."""

import numpy as np

import torchlite as tl


def _ints(shape, seed, noncontiguous=False, dtype=np.float32):
    """float32 tensor of small integers: products and sums of them are exact, so the NumPy float64 reference
    matches exactly. Transposed (a non-contiguous layout) when asked."""
    rng = np.random.default_rng(seed)
    if noncontiguous:
        data = rng.integers(-4, 5, size=tuple(reversed(shape))).astype(dtype)
        return tl.tensor(data).permute(*reversed(range(len(shape))))
    return tl.tensor(rng.integers(-4, 5, size=shape).astype(dtype))


def _matmul_ref(self, other):
    return np.matmul(self, other)


def _diag_embed_ref(self, offset, dim1, dim2):
    """Zeros with self's last dim on the offset diagonal of the new dims (dim1, dim2), as PyTorch lays it out."""
    n = abs(offset) + self.shape[-1]
    out = np.zeros(self.shape[:-1] + (n, n))
    idx = np.arange(self.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., rows, cols] = self
    nd = self.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    return np.moveaxis(out, (-2, -1), (d1, d2))


def samples():
    """Full overload name -> a function returning a sample call's arguments by name."""
    return {}


def numpy_cases():
    """Full overload name -> (sample as in samples(), reference computing the result from the sample's
    arguments as float64 NumPy arrays); the sample also serves the variant tests."""
    return {**_products_cases(), **_linalg_cases()}


def _products_cases():
    return {
        "linear": (lambda: {"input": _ints((3, 4), 40), "weight": _ints((5, 4), 41, True), "bias": _ints((5,), 42)},
                   lambda input, weight, bias: input @ weight.T + bias),
        "bmm": (lambda: {"self": _ints((3, 2, 4), 1), "mat2": _ints((3, 4, 5), 2, True)},
                lambda self, mat2: self @ mat2),
        "addmm": (lambda: {"self": _ints((2, 4), 3), "mat1": _ints((2, 3), 4, True), "mat2": _ints((3, 4), 5),
                           "beta": 2, "alpha": -1.5},
                  lambda self, mat1, mat2, beta, alpha: beta * self + alpha * (mat1 @ mat2)),
        "baddbmm": (lambda: {"self": _ints((2, 3, 4), 6), "batch1": _ints((2, 3, 5), 7),
                             "batch2": _ints((2, 5, 4), 8, True), "beta": 0.5, "alpha": 2},
                    lambda self, batch1, batch2, beta, alpha: beta * self + alpha * (batch1 @ batch2)),
        "addbmm": (lambda: {"self": _ints((3, 5), 9), "batch1": _ints((4, 3, 2), 10, True),
                            "batch2": _ints((4, 2, 5), 11), "beta": -1, "alpha": 3},
                   lambda self, batch1, batch2, beta, alpha: beta * self + alpha * (batch1 @ batch2).sum(0)),
        "addmv": (lambda: {"self": _ints((3,), 12), "mat": _ints((3, 4), 13, True), "vec": _ints((4,), 14),
                           "beta": 2, "alpha": 0.5},
                  lambda self, mat, vec, beta, alpha: beta * self + alpha * (mat @ vec)),
        "mv": (lambda: {"self": _ints((3, 4), 15), "vec": _ints((4,), 16)}, lambda self, vec: self @ vec),
        "dot": (lambda: {"self": _ints((5,), 17), "tensor": _ints((5,), 18)},
                lambda self, tensor: np.dot(self, tensor)),
        "vdot": (lambda: {"self": _ints((5,), 19), "other": _ints((5,), 20)},
                 lambda self, other: np.vdot(self, other)),
        "outer": (lambda: {"self": _ints((3,), 21), "vec2": _ints((4,), 22)},
                  lambda self, vec2: np.outer(self, vec2)),
        "ger": (lambda: {"self": _ints((2,), 23), "vec2": _ints((3,), 24)}, lambda self, vec2: np.outer(self, vec2)),
        "matmul": (lambda: {"self": _ints((2, 1, 3, 4), 25), "other": _ints((3, 4, 2), 26, True)}, _matmul_ref),
        "tril": (lambda: {"self": _ints((2, 3, 4), 27, True), "diagonal": -1},
                 lambda self, diagonal: np.tril(self, diagonal)),
        "triu": (lambda: {"self": _ints((4, 3), 28), "diagonal": 1}, lambda self, diagonal: np.triu(self, diagonal)),
        "diag_embed": (lambda: {"self": _ints((2, 3), 29), "offset": -1, "dim1": 0, "dim2": 2}, _diag_embed_ref),
        "diag": (lambda: {"self": _ints((3,), 30), "diagonal": 2}, lambda self, diagonal: np.diag(self, diagonal)),
        "trace": (lambda: {"self": _ints((3, 4), 31, True)}, lambda self: np.trace(self)),
        "kron": (lambda: {"self": _ints((2, 3), 32, True), "other": _ints((3, 1, 2), 33, dtype=np.int32)},
                 lambda self, other: np.kron(self, other)),
        "tensordot": (lambda: {"self": _ints((2, 3, 4), 34), "other": _ints((4, 5, 3), 35, True),
                               "dims_self": (1, -1), "dims_other": (2, 0)},
                      lambda self, other, dims_self, dims_other: np.tensordot(self, other, (dims_self, dims_other))),
        "einsum": (lambda: {"equation": "bij,jk,bkk->bik",
                            "tensors": (_ints((2, 3, 4), 36), _ints((4, 5), 37, True), _ints((2, 5, 5), 38))},
                   lambda equation, tensors: np.einsum(equation, *tensors)),
    }


# ------------------------------------------------------------------ torch.linalg (issue 18)
def _randn(shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _mat(shape, seed, dtype=np.float32, shift=0.0):
    """A random (batch of) matrix, shift * I added to keep it well conditioned."""
    x = _randn(shape, seed, dtype)
    if shift:
        x = x + shift * np.eye(shape[-1], dtype=dtype)
    return tl.tensor(x)


def _spd(shape, seed, dtype=np.float32):
    """A symmetric positive-definite (batch of) matrix: M M^T + n I."""
    m = _randn(shape, seed, np.float64)
    return tl.tensor((m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype))


def _sym(shape, seed, dtype=np.float32):
    m = _randn(shape, seed, np.float64)
    return tl.tensor(((m + np.swapaxes(m, -1, -2)) / 2).astype(dtype))


def _np_lu(a):
    """LAPACK getrf's result for one matrix: partial pivoting on the largest |value| (the first on ties), as
    (packed LU, 1-based pivots)."""
    a = np.array(a, dtype=np.float64)
    m, n = a.shape
    piv = []
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        piv.append(p + 1)
        a[[j, p]] = a[[p, j]]
        if a[j, j] != 0:
            a[j + 1:, j] /= a[j, j]
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, np.array(piv, dtype=np.float64)


def _batched(f, *arrays):
    """f over the leading dims of the arrays (same batch shape), each result stacked back."""
    batch = arrays[0].shape[:-2]
    outs = [f(*(x[idx] for x in arrays)) for idx in np.ndindex(*batch)] if batch else [f(*arrays)]
    outs = [o if isinstance(o, tuple) else (o,) for o in outs]
    res = tuple(np.stack([o[k] for o in outs]).reshape(batch + np.shape(outs[0][k])) for k in range(len(outs[0])))
    return res if len(res) > 1 else res[0]


def _np_unpack(LU, piv):
    m, n = LU.shape
    k = min(m, n)
    L = np.tril(LU[:, :k], -1) + np.eye(m, k)
    U = np.triu(LU[:k, :])
    perm = list(range(m))
    for i, p in enumerate(piv.astype(int) - 1):
        perm[i], perm[p] = perm[p], perm[i]
    P = np.zeros((m, m))
    P[perm, np.arange(m)] = 1
    return P, L, U


def _lu_ref(A):
    LU, piv = _batched(_np_lu, A)
    return LU, piv


def _lu_sample(shape, seed):
    """(LU, pivots) of a well-conditioned matrix, from the NumPy LU (float32 LU, int32 pivots)."""
    A = _randn(shape, seed, np.float64) + 3 * np.eye(shape[-1])
    LU, piv = _lu_ref(A)
    return tl.tensor(LU.astype(np.float32)), tl.tensor(piv.astype(np.int32))


def _lu_system(LU, piv):
    """A = P L U from a packed LU."""
    return _batched(lambda lu, p: (lambda P, L, U: P @ L @ U)(*_np_unpack(lu, p)), LU, piv)


def _reflectors_ref(A, tau, size):
    """The size x size product H_0 ... H_(k-1) of the Householder reflectors I - tau_i v_i v_i^H stored in A."""
    q = np.eye(size, dtype=np.result_type(A, tau, np.float64))
    for i in range(len(tau)):
        v = np.concatenate([np.zeros(i), [1.0], A[i + 1:, i]])
        q = q @ (np.eye(size) - tau[i] * np.outer(v, np.conj(v)))
    return q


def _householder_ref(A, tau):
    return _reflectors_ref(A, tau, A.shape[0])[:, :A.shape[1]]


def _geqrf_ref(self):
    """NumPy's mode='raw' QR: the same LAPACK geqrf, its result in Fortran order."""
    raw = [np.linalg.qr(a, mode="raw") for a in self]
    return np.stack([h.T for h, _ in raw]), np.stack([t for _, t in raw])


def _expm_sym(A):
    """exp of a symmetric matrix through its eigendecomposition."""
    w, V = np.linalg.eigh(A)
    return (V * np.exp(w)[..., None, :]) @ np.swapaxes(V, -1, -2)


def _lstsq_ref(A, B, driver):
    x, res, rank, sv = np.linalg.lstsq(A, B, rcond=None)
    return x, res, np.array(rank), sv


def _linalg_cases():
    f32 = np.float32
    inv = np.linalg.inv
    T = lambda x: np.swapaxes(x, -1, -2)  # noqa: E731
    return {
        "linalg_lu_factor_ex": (lambda: {"A": _mat((2, 3, 3), 101), "pivot": True, "check_errors": False},
                                lambda A, pivot, check_errors: (*_lu_ref(A), np.zeros(A.shape[:-2]))),
        "linalg_lu_factor": (lambda: {"A": _mat((3, 3), 102), "pivot": True}, lambda A, pivot: _lu_ref(A)),
        "lu_unpack": (lambda: dict(zip(("LU_data", "LU_pivots"), _lu_sample((2, 3, 3), 103)), unpack_data=True,
                                   unpack_pivots=True),
                      lambda LU_data, LU_pivots, unpack_data, unpack_pivots: tuple(
                          np.stack(x) for x in zip(*[_np_unpack(lu, p) for lu, p in zip(LU_data, LU_pivots)]))),
        "linalg_lu": (lambda: {"A": _mat((4, 4), 104), "pivot": True},
                      lambda A, pivot: _np_unpack(*_np_lu(A))),
        "linalg_lu_solve": (lambda: dict(zip(("LU", "pivots"), _lu_sample((2, 3, 3), 105)), B=_mat((2, 3, 2), 106),
                                         left=True, adjoint=False),
                            lambda LU, pivots, B, left, adjoint: np.stack([np.linalg.solve(_lu_system(lu, p), b)
                                                                           for lu, p, b in zip(LU, pivots, B)])),
        "lu_solve": (lambda: dict(zip(("LU_data", "LU_pivots"), _lu_sample((3, 3), 107)), self=_mat((3, 2), 108)),
                     lambda self, LU_data, LU_pivots: np.linalg.solve(_lu_system(LU_data, LU_pivots), self)),
        "linalg_solve_ex": (lambda: {"A": _mat((2, 3, 3), 109, shift=3), "B": _mat((2, 3), 110)[0], "left": True,
                                     "check_errors": False},
                            lambda A, B, left, check_errors: (np.linalg.solve(A, B[..., None])[..., 0],
                                                              np.zeros(A.shape[:-2]))),
        "linalg_solve": (lambda: {"A": _mat((2, 3, 3), 111, shift=3), "B": _mat((2, 2, 3), 112), "left": False},
                         lambda A, B, left: T(np.linalg.solve(T(A), T(B)))),
        "linalg_inv_ex": (lambda: {"A": _mat((2, 3, 3), 113, shift=3), "check_errors": False},
                          lambda A, check_errors: (inv(A), np.zeros(A.shape[:-2]))),
        "linalg_inv": (lambda: {"A": _mat((4, 4), 114, shift=3)}, lambda A: inv(A)),
        "inverse": (lambda: {"self": _mat((2, 3, 3), 115, shift=3)}, lambda self: inv(self)),
        "linalg_det": (lambda: {"A": _mat((2, 3, 3), 116)}, lambda A: np.linalg.det(A)),
        "det": (lambda: {"self": _mat((4, 4), 117)}, lambda self: np.linalg.det(self)),
        "linalg_slogdet": (lambda: {"A": _mat((2, 3, 3), 118)}, lambda A: tuple(np.linalg.slogdet(A))),
        "slogdet": (lambda: {"self": _mat((3, 3), 119)}, lambda self: tuple(np.linalg.slogdet(self))),
        "logdet": (lambda: {"self": _spd((2, 3, 3), 120)}, lambda self: np.log(np.linalg.det(self))),
        "linalg_cholesky_ex": (lambda: {"A": _spd((2, 3, 3), 121), "upper": True, "check_errors": False},
                               lambda A, upper, check_errors: (T(np.linalg.cholesky(A)), np.zeros(A.shape[:-2]))),
        "linalg_cholesky": (lambda: {"A": _spd((3, 3), 122), "upper": False}, lambda A, upper: np.linalg.cholesky(A)),
        "cholesky": (lambda: {"self": _spd((2, 3, 3), 123), "upper": False},
                     lambda self, upper: np.linalg.cholesky(self)),
        "cholesky_solve": (lambda: {"self": _mat((2, 3, 2), 124), "input2": tl.linalg.cholesky(_spd((2, 3, 3), 125)),
                                    "upper": False},
                           lambda self, input2, upper: np.linalg.solve(input2 @ T(input2), self)),
        "cholesky_inverse": (lambda: {"self": tl.linalg.cholesky(_spd((3, 3), 126)).mT.contiguous(), "upper": True},
                             lambda self, upper: inv(T(self) @ self)),
        "linalg_qr": (lambda: {"A": _mat((2, 4, 3), 127), "mode": "reduced"},
                      lambda A, mode: tuple(np.linalg.qr(A, mode=mode))),
        "qr": (lambda: {"self": _mat((3, 4), 128), "some": True}, lambda self, some: tuple(np.linalg.qr(self))),
        "_linalg_eigh": (lambda: {"A": _sym((2, 3, 3), 129), "UPLO": "L", "compute_v": True},
                         lambda A, UPLO, compute_v: tuple(np.linalg.eigh(A, UPLO=UPLO))),
        "linalg_eigh": (lambda: {"A": _sym((4, 4), 130), "UPLO": "U"},
                        lambda A, UPLO: tuple(np.linalg.eigh(A, UPLO=UPLO))),
        # geev as NumPy calls it: the same order and normalization (NumPy's result is real when every eigenvalue is).
        # Triangular matrices: each eigenvector's sign is fixed (its own component positive), where a general
        # matrix's may come out either way in float32 and float64.
        "linalg_eig": (lambda: {"A": tl.tensor(np.triu(_randn((2, 3, 3), 151, np.float32)))},
                       lambda A: tuple(np.linalg.eig(A))),
        "linalg_eigvals": (lambda: {"A": _mat((4, 4), 152)}, lambda A: np.linalg.eigvals(A)),
        "linalg_eigvalsh": (lambda: {"A": _sym((2, 3, 3), 131), "UPLO": "L"},
                            lambda A, UPLO: np.linalg.eigvalsh(A, UPLO=UPLO)),
        "_linalg_svd": (lambda: {"A": _mat((2, 4, 3), 132), "full_matrices": False, "compute_uv": True},
                        lambda A, full_matrices, compute_uv: tuple(np.linalg.svd(A, full_matrices=False))),
        "linalg_svd": (lambda: {"A": _mat((3, 3), 133), "full_matrices": True},
                       lambda A, full_matrices: tuple(np.linalg.svd(A, full_matrices=True))),
        "linalg_svdvals": (lambda: {"A": _mat((2, 3, 5), 134)}, lambda A: np.linalg.svd(A, compute_uv=False)),
        "svd": (lambda: {"self": _mat((4, 3), 135), "some": True, "compute_uv": True},
                lambda self, some, compute_uv: (lambda u, s, vh: (u, s, T(vh)))(*np.linalg.svd(self, False))),
        "linalg_solve_triangular": (lambda: {"A": _mat((2, 3, 3), 136, shift=3), "B": _mat((2, 3, 2), 137),
                                             "upper": True, "left": True, "unitriangular": False},
                                    lambda A, B, upper, left, unitriangular: np.linalg.solve(np.triu(A), B)),
        "triangular_solve": (lambda: {"self": _mat((3, 2), 138), "A": _mat((3, 3), 139, shift=3), "upper": False,
                                      "transpose": True, "unitriangular": False},
                             lambda self, A, upper, transpose, unitriangular: (np.linalg.solve(T(np.tril(A)), self),
                                                                               A)),
        "linalg_lstsq": (lambda: {"A": _mat((5, 3), 140), "B": _mat((5, 2), 141), "driver": "gelsd"},
                         _lstsq_ref),
        "linalg_householder_product": (lambda: {"A": _mat((4, 3), 142), "tau": tl.tensor(np.array([1.2, 0.5, 1.5],
                                                                                                   dtype=f32))},
                                       _householder_ref),
        "geqrf": (lambda: {"self": _mat((2, 5, 3), 173)}, _geqrf_ref),
        "orgqr": (lambda: {"self": _mat((4, 3), 174), "input2": tl.tensor(np.array([1.1, 0.4, 1.7], dtype=f32))},
                  lambda self, input2: _householder_ref(self, input2)),
        "ormqr": (lambda: {"self": _mat((2, 4, 3), 175), "input2": _mat((2, 3), 176), "input3": _mat((2, 2, 4), 177),
                           "left": False, "transpose": True},
                  lambda self, input2, input3, left, transpose: np.stack([
                      c @ _reflectors_ref(a, t, 4).conj().T for a, t, c in zip(self, input2, input3)])),
        "linalg_matrix_power": (lambda: {"A": _mat((2, 3, 3), 143, shift=3), "n": -2},
                                lambda A, n: np.linalg.matrix_power(A, n)),
        "matrix_power": (lambda: {"self": _mat((3, 3), 144), "n": 5}, lambda self, n: np.linalg.matrix_power(self, n)),
        "linalg_matrix_exp": (lambda: {"A": _sym((2, 3, 3), 145)}, lambda A: _expm_sym(A)),
        "matrix_exp": (lambda: {"self": _sym((4, 4), 146)}, lambda self: _expm_sym(self)),
        "linalg_vector_norm": (lambda: {"x": _mat((3, 4), 147), "ord": 3, "dim": [1], "keepdim": True},
                               lambda x, ord, dim, keepdim: np.linalg.norm(x, ord, axis=dim[0], keepdims=True)),
        "linalg_matrix_norm": (lambda: {"A": _mat((2, 3, 4), 148), "ord": float("inf")},
                               lambda A, ord: np.linalg.norm(A, ord, axis=(-2, -1))),
        "linalg_matrix_norm.str_ord": (lambda: {"A": _mat((2, 3, 4), 149), "ord": "nuc", "dim": [0, 2]},
                                       lambda A, ord, dim: np.linalg.norm(A, ord, axis=tuple(dim))),
        "linalg_norm": (lambda: {"A": _mat((3, 4), 150), "ord": -2},
                        lambda A, ord: np.linalg.norm(A, ord)),
        "linalg_norm.ord_str": (lambda: {"A": _mat((3, 4), 151), "ord": "fro"}, lambda A, ord: np.linalg.norm(A, ord)),
        "linalg_cond": (lambda: {"A": _mat((2, 3, 3), 152, shift=2), "p": 1}, lambda A, p: np.linalg.cond(A, p)),
        "linalg_cond.p_str": (lambda: {"A": _mat((3, 3), 153, shift=2), "p": "nuc"},
                              lambda A, p: np.linalg.cond(A, p)),
        "linalg_pinv.atol_rtol_float": (lambda: {"A": _mat((2, 4, 3), 154)}, lambda A: np.linalg.pinv(A)),
        "linalg_pinv.atol_rtol_tensor": (
            lambda: {"A": _mat((2, 4, 3), 162), "rtol": tl.tensor(np.array([1e-6, 1e-5], dtype=f32))},
            lambda A, rtol: np.linalg.pinv(A, rtol)),
        "linalg_pinv": (lambda: {"A": _sym((3, 3), 155), "rcond": 1e-5, "hermitian": True},
                        lambda A, rcond, hermitian: np.linalg.pinv(A, rcond, hermitian=True)),
        "pinverse": (lambda: {"self": _mat((3, 5), 156)}, lambda self: np.linalg.pinv(self)),
        "linalg_matrix_rank.atol_rtol_float": (
            lambda: {"A": tl.tensor(np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1.0]], dtype=f32))},
            lambda A: np.array(np.linalg.matrix_rank(A))),
        "linalg_matrix_rank.atol_rtol_tensor": (
            lambda: {"A": tl.tensor(np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1.0]], dtype=f32)),
                     "atol": tl.tensor(0.5, dtype=tl.float32)},
            lambda A, atol: np.array(np.linalg.matrix_rank(A, 0.5))),
        "linalg_matrix_rank": (lambda: {"A": _mat((2, 3, 3), 157), "tol": 0.5, "hermitian": False},
                               lambda A, tol, hermitian: np.linalg.matrix_rank(A, tol)),
        "linalg_cross": (lambda: {"self": _mat((2, 3), 158), "other": _mat((1, 3), 159)},
                         lambda self, other: np.cross(self, other)),
        "cross": (lambda: {"self": _mat((3, 2), 160), "other": _mat((3, 2), 161), "dim": 0},
                  lambda self, other, dim: np.cross(self, other, axis=0)),
        "linalg_multi_dot": (lambda: {"tensors": [_mat((3,), 162), _mat((3, 4), 163), _mat((4, 2), 164),
                                                  _mat((2, 5), 165)]},
                             lambda tensors: np.linalg.multi_dot(tensors)),
        "linalg_tensorinv": (lambda: {"A": tl.tensor((_randn((2, 3, 6), 166, np.float64)
                                                     + np.eye(6).reshape(2, 3, 6) * 3).astype(f32)), "ind": 2},
                             lambda A, ind: np.linalg.tensorinv(A, ind)),
        "linalg_tensorsolve": (lambda: {"A": tl.tensor((_randn((6, 2, 3), 167, np.float64)
                                                       + 3 * np.eye(6).reshape(6, 2, 3)).astype(f32)),
                                        "B": _mat((6,), 168)},
                               lambda A, B: np.linalg.tensorsolve(A, B)),
        "linalg_vander": (lambda: {"x": _mat((2, 3), 169), "N": 4},
                          lambda x, N: np.stack([np.vander(r, N, increasing=True) for r in x])),
        "linalg_vecdot": (lambda: {"x": _mat((2, 3), 170), "y": _mat((3,), 171), "dim": -1},
                          lambda x, y, dim: (x * y).sum(-1)),
        "linalg_diagonal": (lambda: {"A": _mat((2, 3, 4), 172), "offset": 1},
                            lambda A, offset: np.diagonal(A, offset, -2, -1)),
    }


def _eye(x):
    return tl.eye(x.shape[-1], dtype=x.dtype, device=x.device)


def _spd_map(x):
    return x @ x.mH + x.shape[-1] * _eye(x)


# Gradient checks draw fresh random inputs; these map them into each op's domain (a positive-definite A for
# Cholesky, a symmetric (Hermitian) one for eigh, a well-conditioned triangle...), as PyTorch's gradcheck wrappers do.
DERIVED_ARGS = {
    **{n: (lambda a, k=k: {k: _spd_map(a[k])}) for n, k in [("linalg_cholesky_ex", "A"), ("linalg_cholesky", "A"),
                                                           ("cholesky", "self"), ("logdet", "self")]},
    **{n: (lambda a, k=k: {k: a[k] + a[k].mH}) for n, k in [("_linalg_eigh", "A"), ("linalg_eigh", "A"),
                                                           ("linalg_eigvalsh", "A"), ("linalg_pinv", "A")]},
    **{n: (lambda a, k=k: {k: a[k] + 4 * _eye(a[k])}) for n, k in [
        ("linalg_solve_triangular", "A"), ("triangular_solve", "A"), ("linalg_lu_solve", "LU"), ("lu_solve", "LU_data"),
        ("cholesky_solve", "input2"), ("cholesky_inverse", "self"), ("linalg_inv_ex", "A"), ("linalg_inv", "A"),
        ("inverse", "self"), ("linalg_solve_ex", "A"), ("linalg_solve", "A"), ("linalg_matrix_power", "A"),
        ("linalg_cond", "A"), ("linalg_cond.p_str", "A"), ("linalg_lu_factor_ex", "A"), ("linalg_lu_factor", "A"),
        ("linalg_tensorinv", "A"), ("linalg_tensorsolve", "A")]},
    "cholesky_solve": lambda a: {"input2": a["input2"].tril() + 4 * _eye(a["input2"])},
    "cholesky_inverse": lambda a: {"self": a["self"].triu() + 4 * _eye(a["self"])},
    "linalg_tensorinv": lambda a: {"A": a["A"] + 4 * _eye(a["A"].reshape(6, 6)).reshape(2, 3, 6)},
    "linalg_tensorsolve": lambda a: {"A": a["A"] + 4 * _eye(a["A"].reshape(6, 6)).reshape(6, 2, 3)},
}

# Each eigenvector of linalg.eig, and of eigh and each pair of singular vectors of complex matrices, is defined up
# to a phase: the gradient checks differentiate their moduli.
def _moduli_of_complex(*vectors):
    def f(out):
        if not out[vectors[0]].is_complex():
            return out
        return tuple(o.abs() if i in vectors else o for i, o in enumerate(out))
    return f


GRADCHECK_OUTPUTS = {"linalg_eig": lambda out: (out[0], out[1].abs()),
                     **{n: _moduli_of_complex(1) for n in ("_linalg_eigh", "linalg_eigh")},
                     **{n: _moduli_of_complex(0, 2) for n in ("_linalg_svd", "linalg_svd", "svd")}}

NONDIFF_OUTPUTS = {"lu_unpack": ("P",), "linalg_lu": ("P",)}

_LINALG_TOL = {"float32": (2e-4, 2e-4), "float64": (1e-10, 1e-10), "complex64": (2e-4, 2e-4),
               "complex128": (1e-10, 1e-10)}
TOLERANCES = {name: _LINALG_TOL for name in _linalg_cases()}


# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]), b = tensor([True, False]).
ERRORS = [
    ("tl.nn.functional.linear(a, tl.ones(4, 2))", "RuntimeError",
     ["linear", "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)"]),
    ("tl.mm(a, tl.ones(4, 5))", "RuntimeError", ["mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"]),
    ("tl.matmul(tl.tensor(1.0), i)", "RuntimeError",
     ["both arguments to matmul need to be at least 1D, but they are 0D and 1D"]),
    ("tl.matmul(tl.ones(3), tl.ones(4))", "RuntimeError",
     ["inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and "
      "4 elements respectively"]),
    ("tl.matmul(a, tl.ones(4))", "RuntimeError", ["size mismatch, got input (2), mat (2x3), vec (4)"]),
    ("tl.matmul(tl.ones(3), tl.ones(4, 2))", "RuntimeError", ["mat1 and mat2 shapes cannot be multiplied (1x3 and 4x2)"]),
    ("tl.matmul(tl.ones(3, 2, 3), tl.ones(2, 3, 2))", "RuntimeError",
     ["The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"]),
    ("tl.matmul(tl.ones(4), tl.ones(2, 3, 2))", "RuntimeError",
     ["Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."]),
    ("tl.matmul(tl.ones(2, 2, 3), tl.ones(4))", "RuntimeError", ["size mismatch, got input (4), mat (4x3), vec (4)"]),
    ("tl.matmul(a, a.double().t())", "RuntimeError", ["expected m1 and m2 to have the same dtype, but got: float != double"]),
    ("tl.matmul(tl.ones(3), tl.ones(3, dtype=tl.float64))", "RuntimeError",
     ["dot : expected both vectors to have same dtype, but found Float and Double"]),
    ("tl.matmul(b, b)", "NotImplementedError", ["dot", "'Bool'"]),
    ("a @ 2", "TypeError", ["unsupported operand type(s) for @"]),
    ("2 @ a", "TypeError", ["unsupported operand type(s) for @"]),
    ("tl.bmm(a, a)", "RuntimeError", ["batch1 must be a 3D tensor"]),
    ("tl.bmm(tl.ones(2, 2, 3), tl.ones(3, 3, 2))", "RuntimeError",
     ["Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3]."]),
    ("tl.bmm(tl.ones(2, 2, 3), tl.ones(2, 3, 2, dtype=tl.int32))", "RuntimeError",
     ["expected scalar type Float but found Int"]),
    ("tl.bmm(tl.ones(1, 2, 2, dtype=tl.bool), tl.ones(1, 2, 2, dtype=tl.bool))", "NotImplementedError",
     ["bmm", "'Bool'"]),
    ("tl.addmm(tl.ones(3, 3), a, tl.ones(3, 2))", "RuntimeError",
     ["The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1"]),
    ("tl.addmm(tl.ones(2, 2), a, tl.ones(3, 2, dtype=tl.float64))", "RuntimeError",
     ["self and mat2 must have the same dtype, but got Float and Double"]),
    ("tl.addmm(tl.ones(2, 2), tl.ones(2, 3, dtype=tl.float64), tl.ones(3, 2))", "RuntimeError",
     ["mat1 and mat2 must have the same dtype, but got Double and Float"]),
    ("tl.addmm(tl.ones(2, 2), tl.ones(3), tl.ones(3, 2))", "RuntimeError", ["mat1 must be a matrix, got 1-D tensor"]),
    ("tl.addmv(tl.ones(3), a, i.float())", "RuntimeError", ["size mismatch, got input (3), mat (2x3), vec (3)"]),
    ("tl.addmv(tl.ones(2, 2), a, i.float())", "RuntimeError", ["vector + matrix @ vector expected, got 2, 2, 1"]),
    ("tl.addmv(tl.ones(2), a, tl.ones(3, dtype=tl.float64))", "RuntimeError",
     ["addmv input tensors must have the same dtype, but got Float, Float, and Double"]),
    ("tl.addbmm(tl.ones(2, 2), tl.ones(2, 2, 3), tl.ones(3, 3, 2))", "RuntimeError",
     ["batch1 and batch2 must have same number of batches, got 2 and 3"]),
    ("tl.addbmm(tl.ones(2, 2), tl.ones(2, 2, 3), tl.ones(2, 4, 2))", "RuntimeError",
     ["Incompatible matrix sizes for bmm (2x3 and 4x2)"]),
    ("tl.addbmm(tl.ones(2, 2), a, tl.ones(3, 2))", "IndexError", ["Dimension out of range"]),
    ("tl.baddbmm(tl.ones(2, 2, 2, dtype=tl.float64), tl.ones(2, 2, 3), tl.ones(2, 3, 2))", "RuntimeError",
     ["Input dtypes must be the same, got: input double, batch1: float, batch2: float"]),
    ("tl.baddbmm(tl.ones(2, 2, 3), tl.ones(2, 2, 3), tl.ones(2, 3, 2))", "RuntimeError",
     ["The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 2"]),
    ("tl.dot(a, i)", "RuntimeError", ["1D tensors expected, but got 2D and 1D tensors"]),
    ("tl.dot(i, i.float())", "RuntimeError", ["dot : expected both vectors to have same dtype, but found Long and Float"]),
    ("tl.vdot(tl.ones(3), tl.ones(4))", "RuntimeError", ["inconsistent tensor size, expected tensor [3] and src [4]"]),
    ("tl.dot(b, b)", "NotImplementedError", ["dot", "'Bool'"]),
    ("tl.mv(a, tl.ones(4))", "RuntimeError", ["size mismatch, got input (2), mat (2x3), vec (4)"]),
    ("tl.mv(a, tl.ones(3, 1))", "RuntimeError", ["vector + matrix @ vector expected, got 1, 2, 2"]),
    ("tl.mv(a, tl.ones(3, dtype=tl.float64))", "RuntimeError",
     ["addmv input tensors must have the same dtype, but got Double, Float, and Double"]),
    ("tl.outer(a, i)", "RuntimeError", ["outer: Expected 1-D argument self, but got 2-D"]),
    ("tl.ger(i, tl.tensor(1.0))", "RuntimeError", ["outer: Expected 1-D argument vec2, but got 0-D"]),
    ("tl.tril(i)", "RuntimeError", ["tril: input tensor must have at least 2 dimensions"]),
    ("tl.tensor(1.0).triu_()", "RuntimeError", ["triu: input tensor must have at least 2 dimensions"]),
    ("tl.diag(tl.ones(2, 2, 2))", "RuntimeError", ["diag(): Supports 1D or 2D tensors. Got 3D"]),
    ("tl.diag(tl.tensor(1.0))", "RuntimeError", ["diag(): Supports 1D or 2D tensors. Got 0D"]),
    ("tl.diag_embed(i, 0, 0, 0)", "RuntimeError", ["diagonal dimensions cannot be identical 0, 0"]),
    ("tl.diag_embed(i, 0, -2, 0)", "RuntimeError", ["diagonal dimensions cannot be identical -2, 0"]),
    ("tl.diag_embed(i, 0, 0, 3)", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], but got 3)"]),
    ("tl.diag_embed(tl.tensor(1.0))", "IndexError",
     ["Dimension out of range (expected to be in range of [-1, 0], but got -2)"]),
    ("tl.einsum('i', a)", "RuntimeError", ["einsum(): the number of subscripts in the equation (1) does not match the "
                                            "number of dimensions (2) for operand 0 and no ellipsis was given"]),
    ("tl.einsum('i,j', a)", "RuntimeError", ["einsum(): fewer operands were provided than specified in the equation"]),
    ("tl.einsum('ij', a, a)", "RuntimeError", ["einsum(): more operands were provided than specified in the equation"]),
    ("tl.einsum('i1', a)", "RuntimeError", ["einsum(): invalid subscript given at index 1 in the equation string, "
                                            "subscripts must be in [a-zA-Z]"]),
    ("tl.einsum('i..->', a)", "RuntimeError", ["einsum(): found '.' for operand 0 that is not part of any ellipsis"]),
    ("tl.einsum('i->ii', i)", "RuntimeError", ["einsum(): output subscript i appears more than once in the output"]),
    ("tl.einsum('i->j', i)", "RuntimeError",
     ["einsum(): output subscript j does not appear in the equation for any input operand"]),
    ("tl.einsum('ii', a)", "RuntimeError",
     ["einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"]),
    ("tl.einsum('ij,ij->ij', a, a.t())", "RuntimeError",
     ["einsum(): subscript i has size 3 for operand 1 which does not broadcast with previously seen size 2"]),
    ("tl.einsum('i,i', i.float(), i.double())", "RuntimeError", ["expected scalar type Float but found Double"]),
    ("tl.einsum('i,i->', b, b)", "NotImplementedError", ["bmm", "'Bool'"]),
    ("tl.einsum('ij')", "ValueError", ["einsum(): must specify the equation string and at least one operand"]),
    ("tl.tensordot(a, tl.ones(4, 2), 1)", "RuntimeError", ["contracted dimensions need to match, but first has size 3 "
                                                            "in dim -1 and second has size 4 in dim 0"]),
    ("tl.tensordot(a, a, -1)", "RuntimeError", ["tensordot expects dims >= 0, but got dims=-1"]),
    ("tl.tensordot(a, a, 3)", "RuntimeError", ["tensordot expects dims < ndim_a or ndim_b, but got dims=3"]),
    ("tl.tensordot(a, a, ([1], [0, 1]))", "RuntimeError", ["both dimension lists should have same length"]),
    ("tl.tensordot(a, a, ([1], [5]))", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], "
                                                      "but got 5)"]),
    ("tl.tensordot(a, a.double(), ([1], [1]))", "RuntimeError", ["both inputs should have same dtype"]),
    ("tl.tensordot(a, a, 1.5)", "RuntimeError", ["tensordot expects dims to be int or tuple[list[int], list[int]]"]),
    ("tl.trace(i)", "RuntimeError", ["trace: expected a matrix, but got tensor with dim 1"]),
    ("tl.trace(tl.ones(2, 2, dtype=tl.bool))", "NotImplementedError", ["trace", "'Bool'"]),
]

# ord and p also take the strings 'fro' and 'nuc' (their str overloads): another string is PyTorch's RuntimeError.
STRING_ARGS = {"linalg_matrix_norm": {"ord": "not supported"}, "linalg_norm": {"ord": "not supported"},
               "linalg_cond": {"p": "invalid norm type"}}
