"""conj() as a lazy view (the conjugate bit, TensorImpl::is_conj), as PyTorch's: what is a view and what is
computed, the ops that read a conjugated tensor, writes through one, autograd across one, and the places where
its memory leaves torchlite (NumPy, DLPack, pickle, save). Expected values come from NumPy; the last tests
compare with PyTorch when it is installed."""
import copy
import io
import pickle

import numpy as np
import pytest
from test_cuda_emulated import run_emulated

import torchlite as tl


def crandn(shape, seed, dtype=np.complex128):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def values(t):
    return t.resolve_conj().numpy()


def test_conj_is_a_view_with_the_bit():
    a = crandn((2, 3), 0)
    x = tl.tensor(a)
    c = x.conj()
    assert c.is_conj() and tl.is_conj(c) and not x.is_conj()
    assert c._base is x and c.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(values(c), np.conj(a))
    cc = c.conj()  # conjugating again clears the bit, still a view of x
    assert not cc.is_conj() and cc._base is x
    np.testing.assert_array_equal(cc.numpy(), a)
    assert tl.conj(x).is_conj() and tl._conj(x).is_conj()
    r = tl.tensor([1.0, 2.0])
    assert r.conj() is r and not r.conj().is_conj()  # a real tensor is its own conjugate


def test_resolve_conj_computes_a_new_tensor():
    a = crandn((3,), 1)
    x = tl.tensor(a)
    c = x.conj()
    r = c.resolve_conj()
    assert not r.is_conj() and r._base is None and r.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(r.numpy(), np.conj(a))
    assert x.resolve_conj() is x and tl.resolve_conj(x) is x
    p = c.conj_physical()  # the conjugate of the view's values: x's
    assert not p.is_conj()
    np.testing.assert_array_equal(p.numpy(), a)


def test_views_of_a_conjugated_tensor_keep_the_bit():
    a = crandn((2, 3), 2)
    c = tl.tensor(a).conj()
    for view, want in [(c[0], np.conj(a[0])), (c[:, 1:], np.conj(a[:, 1:])), (c.t(), np.conj(a.T)),
                       (c.unsqueeze(0), np.conj(a[None])), (c.view(3, 2), np.conj(a.reshape(3, 2))),
                       (c.expand(2, 2, 3), np.broadcast_to(np.conj(a), (2, 2, 3))), (c.detach(), np.conj(a)),
                       (c.transpose(0, 1), np.conj(a.T)), (c.view(tl.complex128), np.conj(a)),
                       (c.contiguous(), np.conj(a))]:
        assert view.is_conj()
        np.testing.assert_array_equal(values(view), want)
    # computed results have no bit: clone, a cast, arithmetic
    for t in (c.clone(), c.to(tl.complex64), c + 0, -c, c.reshape(6)[::2].clone()):
        assert not t.is_conj()
    np.testing.assert_array_equal(c.clone().numpy(), np.conj(a))


@pytest.mark.parametrize("name, fn, ref", [
    ("add", lambda c, y: c + y, lambda c, y: c + y),
    ("mul", lambda c, y: c * y, lambda c, y: c * y),
    ("div", lambda c, y: y / c, lambda c, y: y / c),
    ("matmul", lambda c, y: c @ y.mT, lambda c, y: c @ y.T),
    ("sum", lambda c, y: c.sum(0), lambda c, y: c.sum(0)),
    ("abs", lambda c, y: c.abs(), lambda c, y: np.abs(c)),
    ("angle", lambda c, y: c.angle(), lambda c, y: np.angle(c)),
    ("exp", lambda c, y: c.exp(), lambda c, y: np.exp(c)),
    ("cat", lambda c, y: tl.cat([c, y]), lambda c, y: np.concatenate([c, y])),
    ("stack", lambda c, y: tl.stack([y, c]), lambda c, y: np.stack([y, c])),
    ("index_select", lambda c, y: c.index_select(1, tl.tensor([2, 0])), lambda c, y: c[:, [2, 0]]),
    ("getitem", lambda c, y: c[tl.tensor([1, 0])], lambda c, y: c[[1, 0]]),
    ("where", lambda c, y: tl.where(tl.tensor([True, False, True]), c, y),
     lambda c, y: np.where([True, False, True], c, y)),
    ("eq", lambda c, y: c == c.resolve_conj(), lambda c, y: c == c),
    ("real", lambda c, y: c.real, lambda c, y: c.real),
    ("imag", lambda c, y: c.imag, lambda c, y: c.imag),
    ("linalg.solve", lambda c, y: tl.linalg.solve(c[:, :2], y[:, :2]), lambda c, y: np.linalg.solve(c[:, :2], y[:, :2])),
    ("fft", lambda c, y: tl.fft.fft(c), lambda c, y: np.fft.fft(c)),
    ("sort by real", lambda c, y: c.real.sort(1).values, lambda c, y: np.sort(c.real, 1)),
])
def test_ops_read_the_conjugated_values(name, fn, ref):
    a, b = crandn((2, 3), 3), crandn((2, 3), 4)
    got = fn(tl.tensor(a).conj(), tl.tensor(b))
    np.testing.assert_allclose(values(got), ref(np.conj(a), b), rtol=1e-12, atol=1e-12, err_msg=name)


def test_writes_through_a_conjugated_view_reach_its_base_conjugated():
    a = crandn((4,), 5)
    x = tl.tensor(a)
    c = x.conj()
    v0 = x._version
    c.add_(1j)  # an in-place kernel op: computed on the values, written back conjugated
    np.testing.assert_allclose(x.numpy(), np.conj(np.conj(a) + 1j))
    assert x._version > v0 and c.is_conj()
    c.mul_(tl.tensor([2.0, 1.0, 1.0, 1.0]))
    want = np.conj(a) + 1j
    want[0] *= 2
    np.testing.assert_allclose(values(c), want)
    np.testing.assert_allclose(x.numpy(), np.conj(want))
    c[1] = 5 + 5j  # a copy_ into a view of the view
    assert x[1].item() == 5 - 5j and c[1].item() == 5 + 5j
    c[2:].fill_(1 + 2j)
    np.testing.assert_array_equal(x[2:].numpy(), [1 - 2j, 1 - 2j])
    y = tl.tensor(crandn((4,), 6))
    c.copy_(y)  # copy_ reads the bit itself
    np.testing.assert_array_equal(x.numpy(), np.conj(y.numpy()))
    y.copy_(c)  # and from a conjugated source
    np.testing.assert_array_equal(y.numpy(), np.conj(x.numpy()))
    x.real.mul_(0)  # real parts of a conjugated view are its memory's: writes reach x
    np.testing.assert_array_equal(c.real.numpy(), np.zeros(4))
    c.real.add_(3)
    np.testing.assert_array_equal(x.real.numpy(), np.full(4, 3.0))
    c.imag = tl.tensor([1.0, 2.0, 3.0, 4.0])  # c.imag itself is computed (no negative bit), its setter writes x
    np.testing.assert_array_equal(x.imag.numpy(), [-1.0, -2.0, -3.0, -4.0])
    c.real = tl.zeros(4)
    np.testing.assert_array_equal(values(c), [1j, 2j, 3j, 4j])


def test_a_conjugated_out_target_receives_the_values():
    a, b = crandn((3,), 7), crandn((3,), 8)
    x = tl.zeros(3, dtype=tl.complex128)
    c = x.conj()
    out = tl.add(tl.tensor(a), tl.tensor(b), out=c)
    assert out is c and c.is_conj()
    np.testing.assert_allclose(values(c), a + b)
    np.testing.assert_allclose(x.numpy(), np.conj(a + b))
    m = tl.zeros(2, 2, dtype=tl.complex128).conj()
    tl.matmul(tl.tensor(a[:2, None]), tl.tensor(b[None, :2]), out=m)
    np.testing.assert_allclose(values(m), np.outer(a[:2], b[:2]))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):  # checks as for any target
        tl.neg(tl.tensor(a), out=tl.zeros(3, dtype=tl.complex64).conj())


def test_where_the_memory_leaves_torchlite():
    a = crandn((2, 2), 9)
    c = tl.tensor(a).conj()
    with pytest.raises(RuntimeError, match="conjugate bit set. Use tensor.resolve_conj"):
        c.numpy()
    with pytest.raises(RuntimeError, match="conjugate bit set"):
        np.asarray(c)
    np.testing.assert_array_equal(c.numpy(force=True), np.conj(a))
    assert c.tolist() == np.conj(a).tolist() and c[0, 1].item() == np.conj(a[0, 1])
    assert complex(c[1, 0]) == np.conj(a[1, 0])
    assert repr(c) == repr(c.resolve_conj())
    with pytest.raises(RuntimeError, match="view_as_real doesn't work on unresolved conjugated tensors"):
        tl.view_as_real(c)
    with pytest.raises(RuntimeError, match="not supported for conjugate view tensors"):
        c.view(tl.float64)
    with pytest.raises(BufferError, match="conjugate bit"):
        c.__dlpack__()
    np.testing.assert_array_equal(np.from_dlpack(tl.tensor(a).resolve_conj()), a)
    assert tl.utils.dlpack.from_dlpack(tl.utils.dlpack.to_dlpack(c)).tolist() == np.conj(a).tolist()


def test_pickle_save_and_copies_keep_the_values():
    a = crandn((3,), 10)
    x = tl.tensor(a)
    c = x.conj()
    x2, c2 = pickle.loads(pickle.dumps((x, c)))  # the view stays a conj() view of the same memory
    assert c2.is_conj() and c2.data_ptr() == x2.data_ptr()
    np.testing.assert_array_equal(values(c2), np.conj(a))
    x2.mul_(2)
    np.testing.assert_array_equal(values(c2), np.conj(2 * a))
    buf = io.BytesIO()
    tl.save({"x": x, "c": c}, buf)
    buf.seek(0)
    d = tl.load(buf)
    np.testing.assert_array_equal(d["x"].numpy(), a)
    np.testing.assert_array_equal(values(d["c"]), np.conj(a))
    np.testing.assert_array_equal(values(copy.deepcopy(c)), np.conj(a))


def test_autograd_through_a_conj_view_equals_through_conj_physical():
    a, k = crandn((3,), 11), crandn((3,), 12)
    grads = []
    for conj in (lambda z: z.conj(), lambda z: z.conj_physical()):
        z = tl.tensor(a, requires_grad=True)
        w = conj(z)
        loss = (w * tl.tensor(k)).real.sum() + (w.abs() ** 2).sum() + w.imag.sum()
        loss.backward()
        grads.append(z.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-14)
    z = tl.tensor(a, requires_grad=True)
    assert z.conj().grad_fn is not None and z.conj().is_conj()
    assert tl.autograd.gradcheck(lambda z: (z.conj() * tl.tensor(k)).sum(), (z,))
    assert tl.autograd.gradcheck(lambda z: z.conj().resolve_conj() @ z.view(1, 3).mH, (z,))
    assert tl.autograd.gradgradcheck(lambda z: (z.conj() * z).real, (z,))


def test_autograd_of_an_inplace_write_through_a_conj_view():
    a, k = crandn((3,), 13), crandn((3,), 14)

    def through_view(z):
        base = z.clone()
        base.conj().mul_(tl.tensor(k))  # base <- conj(conj(base) * k)
        return base

    def by_formula(z):
        return (z.conj() * tl.tensor(k)).conj_physical()

    z = tl.tensor(a, requires_grad=True)
    np.testing.assert_allclose(through_view(z).detach().numpy(), by_formula(z).detach().numpy())
    g = []
    for f in (through_view, by_formula):
        z = tl.tensor(a, requires_grad=True)
        (f(z) * tl.tensor(k)).real.sum().backward()
        g.append(z.grad.numpy())
    np.testing.assert_allclose(g[0], g[1], rtol=1e-14)
    assert tl.autograd.gradcheck(through_view, (tl.tensor(a, requires_grad=True),))
    # the view's history follows its base's writes: reading c after an in-place write to base
    z = tl.tensor(a, requires_grad=True)
    base = z.clone()
    c = base.conj()
    base.mul_(2)
    c.real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), np.full(3, 2.0))
    leaf = tl.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.conj().mul_(2)


def test_adjoint_and_mh_are_conjugated_views():
    x = tl.tensor(crandn((2, 3), 15))
    for t in (x.mH, x.adjoint(), x.H, tl.adjoint(x)):
        assert t.is_conj() and t._base is x
        np.testing.assert_array_equal(values(t), np.conj(x.numpy()).T)
    assert not tl.ones(2, 2).mH.is_conj()


def test_pytorch_agrees():
    torch = pytest.importorskip("torch")
    a, b = crandn((3, 3), 16), crandn((3, 3), 17)
    x, tx = tl.tensor(a), torch.tensor(a)
    c, tc = x.conj(), tx.conj()
    cases = [lambda c, y: c @ y, lambda c, y: c.exp() + y, lambda c, y: (c * y).sum(1), lambda c, y: c.real,
             lambda c, y: c.imag, lambda c, y: c.t().clone(), lambda c, y: c[1:].contiguous()]
    for f in cases:
        got, want = f(c, tl.tensor(b)), f(tc, torch.tensor(b))
        assert got.is_conj() == want.is_conj()
        np.testing.assert_allclose(values(got), want.resolve_conj().resolve_neg().numpy(), rtol=1e-12)
    for t, tt in [(c.detach(), tc.detach()), (c.clone(), tc.clone()), (c.mT, tc.mT), (x.mH, tx.mH),
                  (c.conj(), tc.conj()), (c + 1, tc + 1), (c.to(tl.complex64), tc.to(torch.complex64))]:
        assert t.is_conj() == tt.is_conj()
    # in place through the view, as PyTorch
    tc.add_(2j)
    c.add_(2j)
    np.testing.assert_allclose(x.numpy(), tx.numpy())


def test_on_the_emulated_cuda_device():
    """copy_ between conjugated and plain tensors, and an op reading a conjugated CUDA tensor."""
    script = (
        "import torchlite as tl\n"
        "x = tl.tensor([1 + 2j, 3 - 1j], dtype=tl.complex128).cuda()\n"
        "c = x.conj()\n"
        "assert c.is_conj() and c.device.type == 'cuda' and (c * 1).cpu().tolist() == [1 - 2j, 3 + 1j]\n"
        "assert c.cpu().tolist() == [1 - 2j, 3 + 1j] and c.tolist() == [1 - 2j, 3 + 1j]\n"
        "c.copy_(tl.tensor([5j, 1 + 1j]))\n"
        "assert x.cpu().tolist() == [-5j, 1 - 1j]\n"
        "h = tl.zeros(2, dtype=tl.complex128).conj()\n"
        "h.copy_(x)\n"
        "assert h.conj().tolist() == [5j, 1 + 1j]\n"
        "print('ok')\n")
    r = run_emulated(["-c", script], timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


# ------------------------------------------------------------------------------------------ every op
from torchlite.testing._opinfo import op_db  # noqa: E402

SAMPLED_OPS = [op for op in op_db if op.has_sample]


def _with_complex(v, conj_view):
    """A sample argument with its float tensors made complex (times 1 + 0.5j); with conj_view, each complex
    tensor as a conj() view of its conjugate (the same values, the conjugate bit set)."""
    if isinstance(v, (list, tuple)):
        return type(v)(_with_complex(x, conj_view) for x in v)
    if not isinstance(v, tl.Tensor):
        return v
    if v.dtype in (tl.float32, tl.float64):
        v = v * complex(1, 0.5)
    if conj_view and v.dtype.is_complex:
        v = v.conj_physical().conj()
        assert v.is_conj()
    return v


def _flat(out):
    """An op's result as a flat list (tuples and lists of tensors opened, nested ones too)."""
    return [x for o in out for x in _flat(o)] if isinstance(out, (tuple, list)) else [out]


def test_every_op_reads_conjugated_inputs_as_their_values():
    """Each sampled op of the op database on complex arguments, once plain and once as conj() views of the same
    values: the results are equal. An op whose kernel read the memory, not the values, would differ."""
    checked, differ, refused = 0, [], []
    for op in SAMPLED_OPS:
        if "empty" in op.name:  # uninitialized memory
            continue
        try:
            op.reseed()
            want = _flat(op.run_primary({k: _with_complex(v, False) for k, v in op.sample().items()}))
        except Exception:  # noqa: BLE001 - the op takes no complex arguments
            continue
        op.reseed()
        try:
            got = _flat(op.run_primary({k: _with_complex(v, True) for k, v in op.sample().items()}))
        except RuntimeError as e:
            refused.append(op.full_name)
            assert "conjugate" in str(e), (op.full_name, e)
            continue
        checked += 1
        for g, w in zip(got, want):
            if isinstance(w, tl.Tensor):
                if w.is_sparse:  # _embedding_sparse_backward: by the dense values
                    g, w = g.to_dense(), w.to_dense()
                g, w = g.detach().resolve_conj(), w.detach().resolve_conj()
                same = g.dtype == w.dtype and g.shape == w.shape and np.array_equal(
                    g.numpy(force=True), w.numpy(force=True), equal_nan=True)
            else:
                same = g == w
            if not same:
                differ.append(op.full_name)
                break
    assert checked > 250, checked
    assert not differ, differ
    assert sorted(refused) == ["view.dtype", "view_as_real"], refused  # PyTorch's refusals of conj() views


def test_every_inplace_op_writes_a_conjugated_self_as_its_values():
    """Each sampled op's in-place variant on a complex self that is a conj() view: afterwards the view holds the
    result of the op on its old values and its base their conjugates (an in-place view op changes only the
    view's geometry)."""
    checked, differ = 0, []
    for op in SAMPLED_OPS:
        if "inplace" not in op.variants:
            continue
        args = {k: _with_complex(v, False) for k, v in op.sample().items()}
        if not (isinstance(args.get("self"), tl.Tensor) and args["self"].dtype.is_complex):
            continue
        try:
            op.reseed()
            want = op.call("inplace", dict(args, self=args["self"].clone()))
        except Exception:  # noqa: BLE001 - no complex in-place form (or not for this dtype)
            continue
        base = args["self"].conj_physical()
        view = base.conj()
        op.reseed()
        op.call("inplace", dict(args, self=view))
        checked += 1
        base_ok = op.is_view or np.array_equal(base.numpy(), np.conj(values(want)), equal_nan=True)  # a view op
        if not (view.is_conj() and np.array_equal(values(view), values(want), equal_nan=True) and base_ok):
            differ.append(op.full_name)
    assert checked > 40, checked
    assert not differ, differ
