"""torchlite.autograd.functional against closed forms (and PyTorch when installed)."""
import numpy as np
import pytest

import torchlite as tl
from torchlite.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp


def f(x, y):
    return (x * y).sin(), x.exp().sum()


def a(*values):
    return tl.tensor(list(values), dtype=tl.float64)


def test_jacobian_of_two_inputs_two_outputs():
    x, y = a(0.1, 0.2, 0.3), a(1.0, -2.0, 0.5)
    (jxx, jxy), (jsx, jsy) = jacobian(f, (x, y))
    xv, yv = np.asarray(x), np.asarray(y)
    np.testing.assert_allclose(np.asarray(jxx), np.diag(yv * np.cos(xv * yv)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jxy), np.diag(xv * np.cos(xv * yv)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jsx), np.exp(xv), rtol=1e-12)
    assert tuple(jsy.shape) == (3,) and not jsy.any()
    assert not jxx.requires_grad
    single = jacobian(lambda t: t * t, x)
    assert isinstance(single, tl.Tensor) and tuple(single.shape) == (3, 3)


def test_jacobian_forward_mode_matches_reverse_mode():
    x, y = a(0.1, 0.2, 0.3), a(1.0, -2.0, 0.5)
    fwd = jacobian(f, (x, y), strategy="forward-mode", vectorize=True)
    rev = jacobian(f, (x, y))
    for fo, ro in zip(fwd, rev):
        for fj, rj in zip(fo, ro):
            assert tuple(fj.shape) == tuple(rj.shape)
            np.testing.assert_allclose(np.asarray(fj), np.asarray(rj), rtol=1e-12)
    m = a(1.0, 2.0, 3.0, 4.0, 5.0, 6.0).reshape(2, 3)
    single = jacobian(lambda t: t @ t.T, m, strategy="forward-mode", vectorize=True)
    np.testing.assert_allclose(np.asarray(single), np.asarray(jacobian(lambda t: t @ t.T, m)), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        jacobian(f, (x, y), strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and `strategy=\"forward-mode\"`"):
        jacobian(f, (x, y), strategy="forward-mode", vectorize=True, create_graph=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `strategy=\"forward-mode\"`"):
        jacobian(f, (x, y), strategy="forward-mode", vectorize=True, strict=True)
    with pytest.raises(ValueError, match='Expected strategy to be either "forward-mode" or "reverse-mode"'):
        jacobian(f, (x, y), strategy="sideways")


def test_hessian_of_a_cubic():
    x = a(0.5, -1.0)
    h = hessian(lambda t: (t * t * t).sum(), x)
    np.testing.assert_allclose(np.asarray(h), np.diag(6 * np.asarray(x)), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="forward-over-reverse"):
        hessian(lambda t: (t * t * t).sum(), x, outer_jacobian_strategy="forward-mode")


def test_vjp_jvp_vhp_hvp():
    x = a(0.5, -1.0, 2.0)
    v = a(1.0, 2.0, 3.0)
    out, g = vjp(lambda t: t.exp(), x, v)
    np.testing.assert_allclose(np.asarray(g), np.asarray(v) * np.exp(np.asarray(x)), rtol=1e-12)
    out, jv = jvp(lambda t: t * t, x, v)
    np.testing.assert_allclose(np.asarray(jv), 2 * np.asarray(x) * np.asarray(v), rtol=1e-12)
    out, r = vhp(lambda t: (t * t * t).sum(), x, v)
    np.testing.assert_allclose(np.asarray(r), 6 * np.asarray(x) * np.asarray(v), rtol=1e-12)
    out, r = hvp(lambda t: (t * t * t).sum(), x, v)
    np.testing.assert_allclose(np.asarray(r), 6 * np.asarray(x) * np.asarray(v), rtol=1e-12)


def test_errors():
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        jacobian(lambda t: t, [1.0])
    with pytest.raises(RuntimeError, match="can only be None if the user-provided function returns a single"):
        vjp(lambda t: t * 2, a(1.0, 2.0))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        jacobian(lambda t, u: t * 2, (a(1.0), a(2.0)), strict=True)


def test_matches_torch_when_installed():
    torch = pytest.importorskip("torch", reason="PyTorch is optional: the closed forms above check the same")
    xv, yv = np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 0.5])
    ours = jacobian(f, (a(*xv), a(*yv)))
    theirs = torch.autograd.functional.jacobian(lambda x, y: ((x * y).sin(), x.exp().sum()),
                                                (torch.tensor(xv), torch.tensor(yv)))
    for o, t in zip(ours, theirs):
        for oo, tt in zip(o, t):
            np.testing.assert_allclose(np.asarray(oo), tt.numpy(), rtol=1e-12)
