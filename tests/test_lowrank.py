"""torchlite.svd_lowrank, pca_lowrank (randomized SVD) and lobpcg (iterative symmetric eigensolver), issue 18:
against NumPy's dense decompositions, their derivatives by finite differences, and PyTorch's results where it is
installed."""
import numpy as np
import pytest

import torchlite as tl


def low_rank(shape, rank, seed, dtype=np.float64):
    g = np.random.default_rng(seed)
    left = g.standard_normal(shape[:-1] + (rank,))
    right = g.standard_normal(shape[:-2] + (rank, shape[-1]))
    if np.dtype(dtype).kind == "c":
        left = left + 1j * g.standard_normal(left.shape)
    return (left @ right).astype(dtype)


def spd(n, seed):
    m = np.random.default_rng(seed).standard_normal((n, n))
    return m @ m.T + np.eye(n)


# ------------------------------------------------------------------------------------------ svd_lowrank
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_svd_lowrank_recovers_a_low_rank_matrix(dtype):
    a = low_rank((2, 30, 20), 4, 1, dtype)
    tl.manual_seed(0)
    U, S, V = tl.svd_lowrank(tl.tensor(a), q=6)
    assert tuple(U.shape) == (2, 30, 6) and tuple(S.shape) == (2, 6) and tuple(V.shape) == (2, 20, 6)
    assert S.dtype is (tl.float32 if dtype == np.float32 else tl.float64)
    tol = 1e-3 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(S.numpy()[:, :4], np.linalg.svd(a, compute_uv=False)[:, :4], rtol=tol)
    assert V.is_conj() == (dtype == np.complex128)  # V = Vh.mH, a conj() view, as PyTorch's
    rebuilt = (U.numpy() * S.numpy()[:, None, :]) @ np.conj(np.swapaxes(V.resolve_conj().numpy(), -1, -2))
    np.testing.assert_allclose(rebuilt, a, atol=tol * 30)


def test_svd_lowrank_with_a_mean_and_small_q():
    a = low_rank((25, 12), 3, 2) + 5.0
    tl.manual_seed(1)
    U, S, V = tl.svd_lowrank(tl.tensor(a), q=3, niter=4, M=tl.full((12,), 5.0, dtype=tl.float64))
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(a - 5.0, compute_uv=False)[:3], rtol=1e-10)
    U, S, V = tl.svd_lowrank(tl.tensor(a[:4, :3]))  # q = 6 > min(m, n): min(m, n) components, as PyTorch
    assert tuple(U.shape) == (4, 3) and tuple(S.shape) == (3,) and tuple(V.shape) == (3, 3)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(a[:4, :3], compute_uv=False), rtol=1e-10)


def test_pca_lowrank():
    a = low_rank((40, 10), 3, 3) + np.random.default_rng(4).standard_normal(10)  # a rank-3 cloud off the origin
    tl.manual_seed(2)
    U, S, V = tl.pca_lowrank(tl.tensor(a), q=3)
    centered = a - a.mean(0)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(centered, compute_uv=False)[:3], rtol=1e-10)
    np.testing.assert_allclose(np.abs(V.numpy().T @ np.linalg.svd(centered)[2][:3].T), np.eye(3), atol=1e-10)
    _, S, _ = tl.pca_lowrank(tl.tensor(a), center=False)
    assert tuple(S.shape) == (6,)
    np.testing.assert_allclose(S.numpy()[:4], np.linalg.svd(a, compute_uv=False)[:4], rtol=1e-10)


def test_lowrank_gradient():
    a = tl.tensor(low_rank((8, 6), 2, 5), requires_grad=True)

    def singular_values(x):
        tl.manual_seed(3)  # the same random projection at every evaluation
        return tl.svd_lowrank(x, q=2, niter=2)[1]

    assert tl.autograd.gradcheck(singular_values, (a,))


def test_lowrank_errors():
    with pytest.raises(ValueError, match=r"q\(=7\) must be non-negative integer and not greater than min\(m, n\)=3"):
        tl.pca_lowrank(tl.ones(4, 3), q=7)
    with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
        tl.pca_lowrank(tl.ones(4, 3), niter=-1)
    with pytest.raises(ValueError, match="svd_lowrank: A must be a matrix"):
        tl.svd_lowrank(tl.ones(3))
    with pytest.raises(RuntimeError, match="svd_lowrank: expected a floating point or complex tensor"):
        tl.svd_lowrank(tl.ones(3, 3, dtype=tl.int64))


# ------------------------------------------------------------------------------------------ lobpcg
@pytest.mark.parametrize("method", ["ortho", "basic"])
def test_lobpcg_extreme_eigenpairs(method):
    a = spd(20, 10)
    w = np.linalg.eigvalsh(a)
    tl.manual_seed(0)
    E, X = tl.lobpcg(tl.tensor(a), k=2, method=method)
    np.testing.assert_allclose(E.numpy(), w[::-1][:2], rtol=1e-10)  # largest first
    x = X.numpy()
    np.testing.assert_allclose(a @ x, x * E.numpy(), atol=1e-5)
    np.testing.assert_allclose(x.T @ x, np.eye(2), atol=1e-12)
    E, X = tl.lobpcg(tl.tensor(a), k=3, largest=False, method=method)
    np.testing.assert_allclose(E.numpy(), w[:3], rtol=1e-9)  # smallest first


def test_lobpcg_generalized_batched_and_options():
    a, b = spd(24, 11), np.diag(np.arange(1.0, 25.0))
    L = np.linalg.cholesky(b)
    li = np.linalg.inv(L)
    want = np.linalg.eigvalsh(li @ a @ li.T)[::-1]  # A x = l B x as a standard problem
    tl.manual_seed(1)
    E, X = tl.lobpcg(tl.tensor(a), k=2, B=tl.tensor(b))
    np.testing.assert_allclose(E.numpy(), want[:2], rtol=1e-9)
    x = X.numpy()
    np.testing.assert_allclose(x.T @ b @ x, np.eye(2), atol=1e-10)  # B-orthonormal
    # batches, a start X with more columns than k, a preconditioner, a tracker, a cap on the iterations
    batch = np.stack([a, 2 * a])
    steps = []
    E, X = tl.lobpcg(tl.tensor(batch), k=2, X=tl.tensor(np.random.default_rng(2).standard_normal((2, 24, 4))),
                     iK=tl.tensor(np.diag(1 / np.diag(a))), tracker=lambda p: steps.append(p.ivars["istep"]))
    assert tuple(E.shape) == (2, 2) and tuple(X.shape) == (2, 24, 2)
    np.testing.assert_allclose(E.numpy(), np.stack([np.linalg.eigvalsh(m)[::-1][:2] for m in batch]), rtol=1e-9)
    assert steps and steps[0] == 0
    E1, _ = tl.lobpcg(tl.tensor(a), k=1, niter=1)  # not converged yet: an approximation from below
    assert E1.item() <= np.linalg.eigvalsh(a)[-1] + 1e-9


def test_lobpcg_gradients():
    a = tl.tensor(spd(9, 12), requires_grad=True)

    def eigenvalues(x):
        tl.manual_seed(4)
        return tl.lobpcg((x + x.mT) / 2, k=2, tol=1e-12)[0]

    def eigenvector_moduli(x):  # each eigenvector is defined up to its sign
        tl.manual_seed(4)
        return tl.lobpcg((x + x.mT) / 2, k=2, tol=1e-12)[1].abs()

    assert tl.autograd.gradcheck(eigenvalues, (a,))
    assert tl.autograd.gradcheck(eigenvector_moduli, (a,), atol=1e-5)
    b = tl.tensor(np.diag(np.arange(1.0, 10.0)), requires_grad=True)
    assert tl.autograd.gradcheck(lambda x, y: tl.lobpcg(x, k=1, B=(y + y.mT) / 2, tol=1e-12)[0], (a.detach(), b))
    E, X = tl.lobpcg(a.detach(), k=1, B=b)
    with pytest.raises(NotImplementedError, match="lobpcg: the derivative of the eigenvectors of a generalized"):
        X.sum().backward()


def test_lobpcg_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    a = spd(20, 13)
    w = np.random.default_rng(14).standard_normal((20, 2))
    grads = []
    for m in (tl, torch):
        x = m.tensor(a, requires_grad=True)
        m.manual_seed(0)
        E, X = m.lobpcg(x, k=2)
        X = X * m.sign(X[:1]).detach()
        ((E ** 2).sum() + (X * m.tensor(w)).sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-5)


def test_lobpcg_errors():
    a = tl.tensor(spd(5, 15))
    with pytest.raises(ValueError, match=r"LOBPCG algorithm is not applicable when the number of A rows \(=5\) is "
                       r"smaller than 3 x the number of requested eigenpairs \(=2\)"):
        tl.lobpcg(a, k=2)
    with pytest.raises(ValueError, match="lobpcg: A must be a square matrix"):
        tl.lobpcg(tl.ones(6, 7))
    with pytest.raises(ValueError, match="lobpcg: method must be 'ortho' or 'basic', got 'foo'"):
        tl.lobpcg(a, method="foo")
    with pytest.raises(ValueError, match=r"lobpcg: k \(=3\) must be a positive integer at most n \(=2\)"):
        tl.lobpcg(tl.tensor(spd(9, 16)), k=3, n=2)
    with pytest.raises(RuntimeError, match="lobpcg: expected a float32 or float64 tensor"):
        tl.lobpcg(tl.ones(6, 6, dtype=tl.int64))
