"""torch.linalg on complex matrices (issue 18) through LAPACK's c/z routines: the LU family (lu_factor, lu_solve,
solve, inv, det, slogdet and the compositions on them), Cholesky, QR, eigh, SVD, triangular solves, least squares
and what is built on them (pinv, matrix_rank, the norms, cond, householder_product, matrix_exp), and
linalg.eig/eigvals (geev) for real and complex matrices; their derivatives in PyTorch's convention, with its
check that a loss must not depend on the phases of eigenvectors and singular vectors. References are NumPy's;
PyTorch's own values where it is installed."""
import itertools
import re

import numpy as np
import pytest

import torchlite as tl

LA = tl.linalg


def crandn(shape, seed=0, dtype=np.complex128):
    g = np.random.default_rng(seed)
    return (g.standard_normal(shape) + 1j * g.standard_normal(shape)).astype(dtype)


def rrandn(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


TOL = {np.complex64: 2e-4, np.complex128: 1e-10}


def assert_same_values(got, want, tol):
    """The same multiset of complex numbers, each batch row matched greedily (sorting is fragile: a
    conjugate pair's real parts may differ by rounding)."""
    got, want = np.atleast_2d(got), np.atleast_2d(want)
    for g, w in zip(got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1])):
        left = list(g)
        for x in w:
            j = int(np.argmin([abs(x - y) for y in left]))
            assert abs(x - left[j]) <= tol * max(1.0, abs(x)), (x, left)
            left.pop(j)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_solve_inv_det_on_complex_matrices(dtype):
    a = crandn((3, 4, 4), 1, dtype) + 3 * np.eye(4, dtype=dtype)
    b = crandn((3, 4, 2), 2, dtype)
    A, B = tl.tensor(a), tl.tensor(b)
    tol = TOL[dtype]
    x = LA.solve(A, B)
    assert x.dtype is A.dtype
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=tol, atol=tol)
    np.testing.assert_allclose(LA.solve(A, B[..., 0]).numpy(), np.linalg.solve(a, b[..., :1])[..., 0], rtol=tol,
                               atol=tol)
    bt = np.swapaxes(b, -1, -2)  # X A = B
    np.testing.assert_allclose(LA.solve(A, tl.tensor(bt), left=False).numpy(), bt @ np.linalg.inv(a), rtol=tol,
                               atol=tol)
    np.testing.assert_allclose(LA.inv(A).numpy(), np.linalg.inv(a), rtol=tol, atol=tol)
    np.testing.assert_allclose(LA.det(A).numpy(), np.linalg.det(a), rtol=tol, atol=tol)
    sign, logabs = LA.slogdet(A)
    ref_sign, ref_log = np.linalg.slogdet(a)
    assert sign.dtype is A.dtype and logabs.dtype is A.real.dtype
    np.testing.assert_allclose(sign.numpy(), ref_sign, rtol=tol, atol=tol)
    np.testing.assert_allclose(logabs.numpy(), ref_log, rtol=tol, atol=tol)
    assert tl.det(A[0]).item() == pytest.approx(complex(np.linalg.det(a[0])), rel=tol)
    np.testing.assert_allclose(tl.inverse(A).numpy(), np.linalg.inv(a), rtol=tol, atol=tol)


def test_lu_factor_and_solve_on_complex_matrices():
    a = crandn((2, 5, 5), 3) + 2 * np.eye(5)
    b = crandn((2, 5, 3), 4)
    A, B = tl.tensor(a), tl.tensor(b)
    LU, piv = LA.lu_factor(A)
    assert LU.dtype is tl.complex128
    for left in (True, False):
        for adjoint in (False, True):
            rhs = b if left else np.swapaxes(b, -1, -2)
            m = np.conj(np.swapaxes(a, -1, -2)) if adjoint else a
            want = np.linalg.solve(m, rhs) if left else rhs @ np.linalg.inv(m)
            got = LA.lu_solve(LU, piv, tl.tensor(rhs), left=left, adjoint=adjoint)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10, err_msg=f"{left} {adjoint}")
    P, L, U = LA.lu(A)
    np.testing.assert_allclose((P @ L @ U).numpy(), a, rtol=1e-12, atol=1e-12)
    singular = tl.tensor(np.zeros((2, 2), dtype=np.complex64))
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.inv(singular)
    assert LA.det(singular).item() == 0


def test_complex_gradients_of_solve_inv_det():
    """PyTorch's convention (conjugate transposes in the formulas): against finite differences in the real and
    imaginary parts, twice."""
    a = tl.tensor(crandn((3, 3), 11) + 2 * np.eye(3), requires_grad=True)
    b = tl.tensor(crandn((3, 2), 12), requires_grad=True)
    gc, ggc = tl.autograd.gradcheck, tl.autograd.gradgradcheck
    for fn, inputs in [(lambda m, r: LA.solve(m, r), (a, b)), (lambda m, r: LA.solve(m, r.mT, left=False), (a, b)),
                       (lambda m, r: LA.solve(m, r[:, 0]), (a, b)), (lambda m: LA.inv(m), (a,)),
                       (lambda m: LA.det(m), (a,)), (lambda m: tl.inverse(m) @ m[:, :2], (a,))]:
        assert gc(fn, inputs) and ggc(fn, inputs)
    # a real matrix in a complex computation gets a real gradient
    r = tl.tensor(rrandn((3, 3), 13) + 2 * np.eye(3), requires_grad=True)
    (LA.inv(r * (1 + 2j)).abs() ** 2).sum().backward()
    assert r.grad.dtype is tl.float64
    # slogdet: both outputs differentiable (a complex sign moves with the determinant's phase)
    assert gc(lambda m: LA.slogdet(m), (a,)) and ggc(lambda m: LA.slogdet(m), (a,))
    # the LU factors themselves (A = P L U, conjugate transposes in the formula), and lu_solve with adjoint=True
    assert gc(lambda m: LA.lu_factor(m).LU, (a,)) and ggc(lambda m: LA.lu(m)[1:], (a,))
    assert gc(lambda m, r: LA.lu_solve(*LA.lu_factor(m), r, adjoint=True), (a, b))
    assert gc(lambda m, r: LA.lu_solve(*LA.lu_factor(m), r.mT, left=False, adjoint=True), (a, b))


def test_slogdet_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    a = crandn((2, 3, 3), 14)
    x, t = tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    for m, v in ((tl, x), (torch, t)):
        sign, logabs = m.linalg.slogdet(v)
        (sign.real * 2 + sign.imag * 3 + logabs).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    r = tl.tensor(rrandn((3, 3), 15), requires_grad=True)
    sign, _ = LA.slogdet(r)
    assert sign.requires_grad  # as PyTorch's, with a zero gradient for a real matrix
    sign.sum().backward()
    assert r.grad.abs().sum().item() == 0


@pytest.mark.parametrize("fn", [LA.cholesky, LA.qr, LA.eigh, LA.eigvalsh, LA.svd, LA.svdvals, LA.pinv,
                                LA.matrix_exp, lambda x: LA.solve_triangular(x, x, upper=True),
                                lambda x: LA.lstsq(x, x)])
def test_integer_and_half_matrices_refused(fn):
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        fn(tl.ones(2, 2, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
        fn(tl.ones(2, 2).half())


# ------------------------------------------------------------------------------------------ eig
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_eig_of_general_matrices(dtype):
    a = (crandn((3, 5, 5), 6) if np.dtype(dtype).kind == "c" else rrandn((3, 5, 5), 6)).astype(dtype)
    A = tl.tensor(a)
    L, V = LA.eig(A)
    want_dtype = tl.complex128 if dtype in (np.float64, np.complex128) else tl.complex64
    assert L.dtype is want_dtype and V.dtype is want_dtype
    assert tuple(L.shape) == (3, 5) and tuple(V.shape) == (3, 5, 5)
    tol = 1e-4 if want_dtype is tl.complex64 else 1e-10
    l, v = L.numpy(), V.numpy()
    # A V = V diag(L), unit-norm eigenvectors, and the eigenvalues NumPy finds (as a set)
    np.testing.assert_allclose(a.astype(np.complex128) @ v, v * l[..., None, :], rtol=tol, atol=tol)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, rtol=tol)
    ref = np.linalg.eigvals(a.astype(np.complex128))
    assert_same_values(l, ref, tol)
    np.testing.assert_allclose(LA.eigvals(A).numpy(), l, rtol=tol, atol=tol)


def test_eig_of_real_matrices_with_complex_pairs():
    rot = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])  # eigenvalues i, -i, 2
    L, V = LA.eig(tl.tensor(rot))
    assert sorted(L.tolist(), key=lambda z: (z.real, z.imag)) == pytest.approx([-1j, 1j, 2])
    v = V.numpy()
    np.testing.assert_allclose(rot @ v, v * L.numpy()[None, :], atol=1e-14)
    empty = LA.eig(tl.zeros(0, 0))
    assert tuple(empty.eigenvalues.shape) == (0,) and empty.eigenvectors.dtype is tl.complex64


def test_eig_errors():
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        LA.eig(tl.ones(2, 3))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        LA.eigvals(tl.ones(2, 2, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
        LA.eig(tl.ones(2, 2).half())


@pytest.mark.parametrize("kind", ["real", "complex"])
def test_eig_gradients(kind):
    """Losses that do not depend on the eigenvectors' phases: the eigenvalues, and |V|; twice."""
    a = rrandn((4, 4), 7) if kind == "real" else crandn((4, 4), 7)
    A = tl.tensor(a, requires_grad=True)
    assert tl.autograd.gradcheck(lambda m: LA.eigvals(m), (A,), eps=1e-6, atol=1e-6, rtol=1e-4)
    assert tl.autograd.gradgradcheck(lambda m: LA.eigvals(m), (A,), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert tl.autograd.gradcheck(lambda m: LA.eig(m).eigenvectors.abs(), (A,), eps=1e-6, atol=1e-6, rtol=1e-4)
    assert tl.autograd.gradcheck(lambda m: (LA.eig(m).eigenvalues ** 2).real.sum(), (A,), eps=1e-6, atol=1e-6,
                                 rtol=1e-4)


def test_eig_gradient_of_a_phase_dependent_loss_raises():
    # eigenvalues i, -i, 2: complex eigenvectors, whose real parts change when one is multiplied by e^(i phi)
    A = tl.tensor([[0.0, -1.0, 0.5], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]], dtype=tl.float64, requires_grad=True)
    loss = LA.eig(A).eigenvectors.real.sum()
    with pytest.raises(RuntimeError, match="specified up to multiplication by e\\^\\{i phi\\}"):
        loss.backward()


def test_eig_matches_torch():
    torch = pytest.importorskip("torch")
    a = rrandn((2, 4, 4), 9)
    L, V = LA.eig(tl.tensor(a))
    tL, tV = torch.linalg.eig(torch.tensor(a))
    # LAPACK's order and normalization, as PyTorch's CPU build (its MKL may pick the other sign of a vector)
    np.testing.assert_allclose(L.numpy(), tL.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np.abs(V.numpy()), np.abs(tV.numpy()), rtol=1e-8, atol=1e-8)
    x = tl.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    LA.eigvals(x).abs().sum().backward()
    torch.linalg.eigvals(t).abs().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)
    c = crandn((3, 3), 10)
    got = LA.solve(tl.tensor(c), tl.tensor(c[:, :1]))
    np.testing.assert_allclose(got.numpy(), torch.linalg.solve(torch.tensor(c), torch.tensor(c[:, :1])).numpy(),
                               rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------------------------------ factorizations
def hermitian_pd(shape, seed, dtype=np.complex128):
    m = crandn(shape, seed)
    return (m @ np.conj(np.swapaxes(m, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def ct(x):
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_cholesky_qr_eigh_svd_of_complex_matrices(dtype):
    tol = TOL[dtype]
    real = tl.float32 if dtype == np.complex64 else tl.float64
    h = hermitian_pd((2, 4, 4), 20, dtype)
    H = tl.tensor(h)
    L = LA.cholesky(H)
    assert L.dtype is H.dtype
    np.testing.assert_allclose(L.numpy(), np.linalg.cholesky(h), rtol=tol, atol=tol)
    np.testing.assert_allclose(LA.cholesky(H, upper=True).numpy(), ct(np.linalg.cholesky(h)), rtol=tol, atol=tol)
    assert LA.cholesky_ex(H).info.tolist() == [0, 0]
    # a matrix that is not Hermitian: L from its lower triangle, U from its upper one (as PyTorch's LAPACK calls)
    skewed = h + np.triu(crandn((4, 4), 24, dtype), 1) * 0.1
    from_upper = np.triu(skewed) + ct(np.triu(skewed, 1))
    np.testing.assert_allclose(LA.cholesky(tl.tensor(skewed)).numpy(), np.linalg.cholesky(h), rtol=tol, atol=tol)
    np.testing.assert_allclose(LA.cholesky(tl.tensor(skewed), upper=True).numpy(), ct(np.linalg.cholesky(from_upper)),
                               rtol=tol, atol=tol)
    assert LA.cholesky_ex(-H).info.tolist() == [1, 1]
    b = crandn((2, 4, 3), 21, dtype)
    np.testing.assert_allclose(tl.cholesky_solve(tl.tensor(b), L).numpy(), np.linalg.solve(h, b), rtol=tol * 10,
                               atol=tol * 10)
    np.testing.assert_allclose(tl.cholesky_inverse(L[0]).numpy(), np.linalg.inv(h[0]), rtol=tol * 10, atol=tol * 10)

    a = crandn((2, 5, 3), 22, dtype)
    A = tl.tensor(a)
    for mode in ("reduced", "complete", "r"):
        Q, R = LA.qr(A, mode=mode)
        want = np.linalg.qr(a, mode=mode)
        want_r = want if mode == "r" else want[1]
        np.testing.assert_allclose(R.numpy(), want_r, rtol=tol, atol=tol)  # the same LAPACK: the same signs
        if mode != "r":
            np.testing.assert_allclose(Q.numpy(), want[0], rtol=tol, atol=tol)
    Q, R = LA.qr(tl.tensor(np.swapaxes(a, -1, -2)))  # wide
    np.testing.assert_allclose((Q @ R).numpy(), np.swapaxes(a, -1, -2), rtol=tol, atol=tol)

    for uplo in ("L", "U"):
        w, V = LA.eigh(H, UPLO=uplo)
        assert w.dtype is real and V.dtype is H.dtype
        np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(h, UPLO=uplo), rtol=tol, atol=tol * 10)
        v = V.numpy()
        np.testing.assert_allclose(h @ v, v * w.numpy()[..., None, :], rtol=tol * 10, atol=tol * 10)
        np.testing.assert_allclose(ct(v) @ v, np.broadcast_to(np.eye(4), v.shape), atol=tol * 10)
        assert LA.eigvalsh(H, UPLO=uplo).dtype is real
    # only the named triangle is read
    lower_only = np.tril(h) + np.triu(crandn((4, 4), 23, dtype), 1)
    np.testing.assert_allclose(LA.eigvalsh(tl.tensor(lower_only)).numpy(), np.linalg.eigvalsh(h), rtol=tol,
                               atol=tol * 10)

    for full in (False, True):
        U, S, Vh = LA.svd(A, full_matrices=full)
        assert S.dtype is real and U.dtype is A.dtype and Vh.dtype is A.dtype
        np.testing.assert_allclose(S.numpy(), np.linalg.svd(a, compute_uv=False), rtol=tol, atol=tol)
        k = 3
        rebuilt = (U.numpy()[..., :k] * S.numpy()[..., None, :]) @ Vh.numpy()[..., :k, :]
        np.testing.assert_allclose(rebuilt, a, rtol=tol * 10, atol=tol * 10)
        u = U.numpy()
        np.testing.assert_allclose(ct(u) @ u, np.broadcast_to(np.eye(u.shape[-1]), (2,) + (u.shape[-1],) * 2),
                                   atol=tol * 10)
    np.testing.assert_allclose(LA.svdvals(A).numpy(), np.linalg.svd(a, compute_uv=False), rtol=tol, atol=tol)
    U, S, V = tl.svd(A)  # the old SVD: A = U diag(S) V^H
    np.testing.assert_allclose(((U * S.to(A.dtype).unsqueeze(-2)) @ V.mH).numpy(), a, rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_triangular_solves_and_least_squares_on_complex_matrices(dtype):
    tol = TOL[dtype] * 10
    t = (np.triu(crandn((2, 3, 3), 30)) + 3 * np.eye(3)).astype(dtype)
    b = crandn((2, 3, 2), 31, dtype)
    T, B = tl.tensor(t), tl.tensor(b)
    np.testing.assert_allclose(LA.solve_triangular(T, B, upper=True).numpy(), np.linalg.solve(t, b), rtol=tol,
                               atol=tol)
    lower = ct(t)
    np.testing.assert_allclose(LA.solve_triangular(tl.tensor(lower), B, upper=False).numpy(),
                               np.linalg.solve(lower, b), rtol=tol, atol=tol)
    bt = np.swapaxes(b, -1, -2)
    np.testing.assert_allclose(LA.solve_triangular(T, tl.tensor(bt), upper=True, left=False).numpy(),
                               bt @ np.linalg.inv(t), rtol=tol, atol=tol)
    unit = np.triu(t, 1) + np.eye(3)
    np.testing.assert_allclose(LA.solve_triangular(T, B, upper=True, unitriangular=True).numpy(),
                               np.linalg.solve(unit, b), rtol=tol, atol=tol)
    x, _ = tl.triangular_solve(B, T, upper=True, transpose=True)  # A^T (not A^H), as PyTorch's
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(np.swapaxes(t, -1, -2), b), rtol=tol, atol=tol)

    a = crandn((2, 6, 3), 32, dtype)
    rhs = crandn((2, 6, 2), 33, dtype)
    want = np.stack([np.linalg.lstsq(a[i], rhs[i], rcond=None)[0] for i in range(2)])
    want_res = np.stack([np.linalg.lstsq(a[i], rhs[i], rcond=None)[1] for i in range(2)])
    real = tl.float32 if dtype == np.complex64 else tl.float64
    for driver in ("gels", "gelsy", "gelsd", "gelss"):
        out = LA.lstsq(tl.tensor(a), tl.tensor(rhs), driver=driver)
        np.testing.assert_allclose(out.solution.numpy(), want, rtol=tol, atol=tol, err_msg=driver)
        assert out.residuals.dtype is real and out.singular_values.dtype is real
        if driver != "gelsy":
            np.testing.assert_allclose(out.residuals.numpy(), want_res, rtol=tol, atol=tol, err_msg=driver)
        if driver in ("gelsd", "gelss"):
            np.testing.assert_allclose(out.singular_values.numpy(), np.linalg.svd(a, compute_uv=False), rtol=tol)
            assert out.rank.tolist() == [3, 3]
    wide = np.swapaxes(a, -1, -2)  # the minimum-norm solution of an underdetermined system
    got = LA.lstsq(tl.tensor(wide), tl.tensor(rhs[:, :3]), driver="gelsd").solution.numpy()
    np.testing.assert_allclose(got, np.linalg.pinv(wide) @ rhs[:, :3], rtol=tol, atol=tol)


def test_compositions_on_complex_matrices():
    a = crandn((2, 5, 3), 40)
    h = hermitian_pd((3, 3), 41)
    A, H = tl.tensor(a), tl.tensor(h)
    np.testing.assert_allclose(LA.pinv(A).numpy(), np.linalg.pinv(a), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(LA.pinv(H, hermitian=True).numpy(), np.linalg.pinv(h, hermitian=True), rtol=1e-10,
                               atol=1e-10)
    low_rank = a[0] @ crandn((3, 2), 42) @ crandn((2, 3), 43)
    assert LA.matrix_rank(tl.tensor(low_rank)).item() == 2 == np.linalg.matrix_rank(low_rank)
    assert LA.matrix_rank(H, hermitian=True).item() == 3
    for ord_ in ("fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf")):
        got = LA.matrix_norm(A, ord_)
        assert got.dtype is tl.float64
        np.testing.assert_allclose(got.numpy(), np.linalg.norm(a, ord_, axis=(-2, -1)), rtol=1e-10, err_msg=ord_)
    for p in (None, 1, "fro", "nuc", float("inf"), -2):
        np.testing.assert_allclose(LA.cond(H, p).item(), np.linalg.cond(h, p), rtol=1e-10, err_msg=str(p))
    # householder_product: the product of I - tau_i v_i v_i^H, built here in NumPy
    tau = crandn((3,), 44)
    q = np.eye(5, dtype=np.complex128)
    for i in range(3):
        v = np.concatenate([np.zeros(i), [1.0], a[0][i + 1:, i]])
        q = q @ (np.eye(5) - tau[i] * np.outer(v, v.conj()))
    np.testing.assert_allclose(LA.householder_product(A[0], tl.tensor(tau)).numpy(), q[:, :3], rtol=1e-12,
                               atol=1e-12)
    # matrix_exp: of a Hermitian matrix through its eigendecomposition; exp(i t) of a rotation generator
    w, v = np.linalg.eigh(h / 4)
    np.testing.assert_allclose(LA.matrix_exp(H / 4).numpy(), (v * np.exp(w)) @ ct(v), rtol=1e-10)
    gen = tl.tensor([[0, -1.0], [1.0, 0]], dtype=tl.complex128) * 0.3j  # exp(0.3i J) = cosh(0.3) I + i sinh(0.3) J
    want = np.cosh(0.3) * np.eye(2) + 1j * np.sinh(0.3) * np.array([[0, -1.0], [1.0, 0]])
    np.testing.assert_allclose(LA.matrix_exp(gen).numpy(), want, rtol=1e-12, atol=1e-14)


def test_conjugate_transposes():
    z = tl.tensor(crandn((2, 3, 4), 45))
    want = np.conj(np.swapaxes(z.numpy(), -1, -2))
    np.testing.assert_array_equal(z.mH.resolve_conj().numpy(), want)  # conjugated views, as PyTorch's
    np.testing.assert_array_equal(z.adjoint().resolve_conj().numpy(), want)
    np.testing.assert_array_equal(z[0].H.resolve_conj().numpy(), want[0])
    r = tl.ones(2, 3)
    assert r.mH.data_ptr() == r.data_ptr() and tuple(r.mH.shape) == (3, 2)  # a view for real dtypes


# ------------------------------------------------------------------------------------------ their derivatives
def _herm(m):
    return m @ m.mH + 3 * tl.eye(m.shape[-1], dtype=m.dtype)


def _c(shape, seed):
    return tl.tensor(crandn(shape, seed), requires_grad=True)


def _gradient_cases():
    sq, tall, wide = _c((3, 3), 50), _c((4, 3), 51), _c((3, 4), 52)
    rhs3, rhs4 = _c((3, 2), 53), _c((4, 2), 54)
    return {
        "cholesky": (lambda m: LA.cholesky(_herm(m)), (sq,)),
        "cholesky upper": (lambda m: LA.cholesky(_herm(m), upper=True), (sq,)),
        "cholesky_solve": (lambda m, b: tl.cholesky_solve(b, LA.cholesky(_herm(m))), (sq, rhs3)),
        "qr tall": (lambda m: LA.qr(m), (tall,)),
        "qr wide": (lambda m: LA.qr(m), (wide,)),
        "eigh": (lambda m: (lambda w, v: (w, v.abs()))(*LA.eigh(m + m.mH)), (sq,)),
        "svd tall": (lambda m: (lambda u, s, vh: (s, u.abs(), u @ vh))(*LA.svd(m, full_matrices=False)), (tall,)),
        "svd wide": (lambda m: (lambda u, s, vh: (s, u @ vh))(*LA.svd(m, full_matrices=False)), (wide,)),
        "solve_triangular": (lambda m, b: LA.solve_triangular(m.triu() + 3 * tl.eye(3), b, upper=True), (sq, rhs3)),
        "solve_triangular right": (lambda m, b: LA.solve_triangular(m.tril() + 3 * tl.eye(3), b.mT, upper=False,
                                                                    left=False), (sq, rhs3)),
        "lstsq tall": (lambda m, b: LA.lstsq(m, b).solution, (tall, rhs4)),
        "lstsq wide": (lambda m, b: LA.lstsq(m, b).solution, (wide, rhs3)),
        "pinv": (lambda m: LA.pinv(m), (tall,)),
        "householder_product": (lambda m, t: LA.householder_product(m, t), (tall, _c((3,), 55))),
        "matrix_exp": (lambda m: LA.matrix_exp(m * 0.5), (sq,)),
        "nuclear norm": (lambda m: LA.matrix_norm(m, "nuc"), (tall,)),
    }


@pytest.mark.parametrize("name", list(_gradient_cases()))
def test_complex_gradients_of_factorizations(name):
    """Against finite differences in the real and imaginary parts, and the second derivatives."""
    fn, inputs = _gradient_cases()[name]
    assert tl.autograd.gradcheck(fn, inputs)
    assert tl.autograd.gradgradcheck(fn, inputs)


def _torch_losses():
    g = np.random.default_rng(60)
    weights = np.abs(g.standard_normal((5, 5)))
    return {
        "eigh": ((hermitian_pd((4, 4), 61),),
                 lambda m, x: (lambda w, v: (w ** 2).sum() + (v.abs() ** 2 * m.tensor(weights[:4, :4])).sum())(
                     *m.linalg.eigh(x))),
        "svd": ((crandn((5, 3), 62),),
                lambda m, x: (lambda u, s, vh: (s ** 3).sum() + (u.abs() ** 2 * m.tensor(weights[:, :3])).sum()
                              + (u @ vh).real.sum())(*m.linalg.svd(x, full_matrices=False))),
        "svd wide full": ((crandn((3, 5), 63),),
                          lambda m, x: (lambda u, s, vh: s.sum() + (u @ vh[:3]).imag.sum() + vh.abs().sum())(
                              *m.linalg.svd(x))),
        "qr": ((crandn((5, 3), 64),),
               lambda m, x: (lambda q, r: (q.real * 2 + q.imag).sum() + (r.abs() ** 2).sum())(*m.linalg.qr(x))),
        "qr wide": ((crandn((3, 5), 65),),
                    lambda m, x: (lambda q, r: q.real.sum() + (r.real ** 2).sum())(*m.linalg.qr(x))),
        "cholesky": ((hermitian_pd((3, 3), 66),),
                     lambda m, x: (lambda u: (u.real * m.tensor(weights[:3, :3])).sum() + (u.imag ** 3).sum())(
                         m.linalg.cholesky(x, upper=True))),
        "lstsq": ((crandn((5, 3), 67), crandn((5, 2), 68)),
                  lambda m, x, y: (m.linalg.lstsq(x, y).solution.abs() ** 2).sum()),
        "solve_triangular": ((np.tril(crandn((3, 3), 69)) + 3 * np.eye(3), crandn((3, 2), 70)),
                             lambda m, x, y: (m.linalg.solve_triangular(x, y, upper=False).abs() ** 2).sum()),
        "lu_factor": ((crandn((4, 4), 71),),
                      lambda m, x: (lambda lu, piv: (lu.real ** 2).sum() + lu.imag.sum())(*m.linalg.lu_factor(x))),
        "eigh real": ((np.random.default_rng(72).standard_normal((4, 4)),),  # a symmetric gradient, as PyTorch's
                      lambda m, x: (lambda w, v: (w ** 2).sum() + (v ** 2 * m.tensor(weights[:4, :4])).sum())(
                          *m.linalg.eigh(x + x.mT))),
    }


@pytest.mark.parametrize("name", list(_torch_losses()))
def test_factorization_gradients_match_torch(name):
    torch = pytest.importorskip("torch")
    arrays, loss = _torch_losses()[name]
    grads = []
    for m in (tl, torch):
        xs = [m.tensor(a, requires_grad=True) for a in arrays]
        loss(m, *xs).backward()
        grads.append([x.grad.numpy() for x in xs])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)


def test_phase_dependent_losses_of_eigh_and_svd_raise():
    x = _c((3, 3), 80)
    with pytest.raises(RuntimeError, match="linalg_eigh_backward: The eigenvectors in the complex case are specified "
                       "up to multiplication by e\\^\\{i phi\\}"):
        LA.eigh(x + x.mH).eigenvectors.real.sum().backward()
    with pytest.raises(RuntimeError, match="svd_backward: The singular vectors in the complex case are specified up "
                       "to multiplication by e\\^\\{i phi\\}"):
        LA.svd(x).U.real.sum().backward()
    assert x.grad is None
    LA.svd(x).S.sum().backward()  # the singular values do not depend on the phases
    np.testing.assert_allclose(x.grad.numpy(), (LA.svd(x.detach()).U @ LA.svd(x.detach()).Vh).numpy(), rtol=1e-10)


# ------------------------------------------------------------------------------------------ geqrf, orgqr, ormqr
@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.complex128])
def test_geqrf_orgqr_ormqr(dtype):
    tol = 2e-5 if dtype == np.complex64 else 1e-12
    a = (crandn((2, 5, 3), 90) if np.dtype(dtype).kind == "c" else rrandn((2, 5, 3), 90)).astype(dtype)
    h, tau = tl.geqrf(tl.tensor(a))
    assert h.dtype is tau.dtype and tuple(tau.shape) == (2, 3)
    raw = [np.linalg.qr(x, mode="raw") for x in a]  # the same LAPACK routine, in Fortran order
    np.testing.assert_allclose(h.numpy(), np.stack([r[0].T for r in raw]), rtol=tol, atol=tol)
    np.testing.assert_allclose(tau.numpy(), np.stack([r[1] for r in raw]), rtol=tol, atol=tol)
    q, r = np.linalg.qr(a.astype(np.complex128))
    np.testing.assert_allclose(tl.orgqr(h, tau).numpy(), q, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(np.triu(h.numpy()[:, :3]), r, rtol=tol * 10, atol=tol * 10)
    full_q = np.linalg.qr(a.astype(np.complex128), mode="complete")[0]
    c = crandn((2, 5, 4), 91).astype(np.result_type(dtype, np.complex64)) if np.dtype(dtype).kind == "c" \
        else rrandn((2, 5, 4), 91)
    C = tl.tensor(c.astype(dtype))
    for left, transpose, want in [(True, False, full_q @ c), (True, True, ct(full_q) @ c),
                                  (False, False, ct(c) @ full_q), (False, True, ct(c) @ ct(full_q))]:
        other = C if left else C.mH
        got = tl.ormqr(h, tau, other, left=left, transpose=transpose)
        np.testing.assert_allclose(got.numpy(), want, rtol=tol * 10, atol=tol * 10, err_msg=f"{left} {transpose}")
    assert h.geqrf()[0].shape == h.shape  # the method


def test_ormqr_gradients_and_errors():
    h, tau = tl.geqrf(tl.tensor(crandn((4, 3), 92)))
    c = tl.tensor(crandn((4, 2), 93), requires_grad=True)
    h.requires_grad_()
    tau.requires_grad_()
    for left, transpose in itertools.product((True, False), (True, False)):
        fn = (lambda x, t, y: tl.ormqr(x, t, y if left else y.mT, left=left, transpose=transpose))
        assert tl.autograd.gradcheck(fn, (h, tau, c))
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented"):
        tl.geqrf(c.real)[0].sum().backward()
    a, t, o = tl.ones(4, 3), tl.ones(3), tl.ones(4, 2)
    for call, message in [
            (lambda: tl.geqrf(tl.ones(3)), "torch.geqrf: input must have at least 2 dimensions."),
            (lambda: tl.ormqr(a, t, tl.ones(3, 2)), "torch.ormqr: other.shape[-2] must be equal to input.shape[-2]"),
            (lambda: tl.ormqr(a, tl.ones(4), o),
             "torch.ormqr: tau.shape[-1] must be equal to min(other.shape[-2], input.shape[-1])"),
            (lambda: tl.ormqr(a, t, o.double()), "torch.ormqr: Expected input and other to have the same dtype"),
            (lambda: tl.ormqr(tl.ones(2, 4, 3), tl.ones(3, 3), tl.ones(2, 4, 2)),
             "torch.ormqr: Expected batch dimensions of tau to be equal to input.shape[:-2], but got [3]")]:
        with pytest.raises(RuntimeError, match=re.escape(message)):
            call()
    with pytest.raises(NotImplementedError, match="\"geqrf_cpu\" not implemented for 'Long'"):
        tl.geqrf(tl.ones(2, 2, dtype=tl.int64))
