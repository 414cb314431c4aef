"""torch.linalg on complex matrices (issue 18): the LU family (lu_factor, lu_solve, solve, inv, det, slogdet and
the compositions on them) through LAPACK's c/z routines, and linalg.eig/eigvals (geev) for real and complex
matrices with PyTorch's derivative and its check that a loss must not depend on the eigenvectors' phases.
References are NumPy's; PyTorch's own values where it is installed."""
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
    with pytest.raises(NotImplementedError, match="complex tensors through LinalgLuFactorExBackward0"):
        LA.lu_factor(a)


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


def test_complex_matrices_refused_where_not_supported_yet():
    a = tl.tensor(crandn((3, 3), 5))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got ComplexDouble"):
        LA.cholesky(a)


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
