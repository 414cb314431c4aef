"""The autograd engine and its Python API, with PyTorch's behaviour and messages.

The formulas themselves are checked op by op in tests/test_autograd_ops.py; this file checks what the
engine does with them: accumulation, retain_graph, create_graph, inputs=, hooks, grad mode, the errors
PyTorch raises, and that graphs are freed."""
import gc
import threading

import numpy as np
import pytest

import torchlite as tl


def leaf(*values, dtype=tl.float64):
    return tl.tensor(list(values), dtype=dtype, requires_grad=True)


def np_(t):
    return np.asarray(t.detach())


# ------------------------------------------------------------------ basics

def test_mul_backward_accumulates_into_leaves():
    x, w = leaf(1.0, 2.0, 3.0), leaf(4.0, 5.0, 6.0)
    y = x * w
    assert y.requires_grad and not y.is_leaf and x.is_leaf
    assert y.grad_fn.name() == "MulBackward0"
    y.backward(tl.ones_like(y))
    np.testing.assert_array_equal(np_(x.grad), [4, 5, 6])
    np.testing.assert_array_equal(np_(w.grad), [1, 2, 3])
    (x * w).backward(tl.ones_like(y))  # a second graph: gradients add up
    np.testing.assert_array_equal(np_(x.grad), [8, 10, 12])
    assert x.grad is x.grad and not x.grad.requires_grad


def test_broadcast_gradients_are_summed_to_the_input_shape():
    x = tl.tensor([[1.0], [2.0]], requires_grad=True)  # (2, 1)
    w = tl.tensor([1.0, 10.0, 100.0], requires_grad=True)  # (3,)
    y = x * w  # (2, 3)
    y.backward(tl.ones_like(y))
    assert tuple(x.grad.shape) == (2, 1) and tuple(w.grad.shape) == (3,)
    np.testing.assert_array_equal(np_(x.grad), [[111], [111]])
    np.testing.assert_array_equal(np_(w.grad), [3, 3, 3])


def test_gradient_is_cast_to_the_input_dtype():
    x = leaf(1.0, 2.0, dtype=tl.float32)
    w = leaf(3.0, 4.0, dtype=tl.float64)
    y = x * w  # float64
    y.backward(tl.ones_like(y))
    assert x.grad.dtype == tl.float32 and w.grad.dtype == tl.float64
    np.testing.assert_array_equal(np_(x.grad), [3, 4])


def test_grad_fn_graph_and_saved_values():
    x, w = leaf(1.0, 2.0), leaf(3.0, 4.0)
    y = (x * w).exp()
    assert y.grad_fn.name() == "ExpBackward0"
    (mul, nr), = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and nr == 0
    acc_x, acc_w = [f for f, _ in mul.next_functions]
    assert acc_x.name() == "AccumulateGrad" and acc_x.variable is x and acc_w.variable is w
    assert mul._saved_self is x and mul._saved_other is w
    np.testing.assert_array_equal(np_(y.grad_fn._saved_result), np_(y))
    with pytest.raises(AttributeError):
        mul._saved_nothing
    assert y.grad_fn is y.grad_fn
    assert "grad_fn=<ExpBackward0>" in repr(y)


def test_only_what_a_needed_formula_reads_is_saved():
    x = leaf(1.0, 2.0)
    c = tl.tensor([3.0, 4.0])  # no grad: mul's formula for other (grad * self) never runs
    y = x * c
    assert y.grad_fn._saved_other is c
    assert y.grad_fn._saved_self is None


def test_integer_results_do_not_require_grad():
    x = leaf(1.5, -2.5)
    assert not (x > 0).requires_grad
    assert not x.floor_divide(x).long().requires_grad


def test_no_grad_enable_grad_set_grad_enabled():
    x = leaf(1.0)
    with tl.no_grad():
        assert not tl.is_grad_enabled()
        assert not (x * 2).requires_grad
        with tl.enable_grad():
            assert (x * 2).requires_grad
    assert tl.is_grad_enabled()

    @tl.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad
    tl.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        tl.set_grad_enabled(True)
    with tl.set_grad_enabled(False):
        assert not tl.is_grad_enabled()
    assert tl.is_grad_enabled()
    with tl.inference_mode():
        assert not (x * 2).requires_grad and tl.is_inference_mode_enabled()
    assert not tl.is_inference_mode_enabled()


def test_inference_tensors():
    """Tensors made in inference mode are inference tensors (views and detach() of them too); outside it
    they may be read, but not written in place, saved for backward or made to require grad. A normal
    tensor written inside inference mode still moves its version on, so a graph that saved it notices."""
    with tl.inference_mode():
        x = tl.ones(3)
        view = x[1:]
        x.add_(1)  # inside: allowed
    assert x.is_inference() and view.is_inference() and x.detach().is_inference() and tl.is_inference(x)
    assert not tl.ones(2).is_inference() and not (x * 2).is_inference()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        leaf(1.0, 2.0, 3.0).float() * x
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside InferenceMode"):
        x.requires_grad_()
    w, v = leaf(1.0, 2.0, 3.0), leaf(4.0, 5.0, 6.0)
    z = (w * v).sum()
    with tl.inference_mode():
        v.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_data_is_untracked():
    """.data shares memory but not the version counter: a write through it is not an in-place error later,
    where one through detach() is (PyTorch's semantics)."""
    x = leaf(1.0, 2.0)
    y = (x * x).sum()
    d = x.data
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None and d.shape == x.shape
    d[0] = 3.0
    assert x._version == 0 and d._version == 1 and x.tolist() == [3.0, 2.0]
    y.backward()
    assert x.grad.tolist() == [6.0, 4.0]  # the saved x is read as it is now
    z = (x * x).sum()
    x.detach()[1] = 5.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_detach_and_requires_grad():
    x = leaf(1.0, 2.0)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert d._version == y._version
    y2 = x * 3
    y2.detach_()
    assert y2.grad_fn is None and not y2.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        tl.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    z = tl.tensor([1.0])
    z.requires_grad = True
    assert z.requires_grad
    assert tl.ones(2, requires_grad=True).requires_grad


# ------------------------------------------------------------------ errors PyTorch raises

def test_backward_twice_without_retain_graph():
    x = leaf(1.0, 2.0)
    y = x.exp()
    y.backward(tl.ones_like(y), retain_graph=True)
    y.backward(tl.ones_like(y))
    np.testing.assert_allclose(np_(x.grad), 2 * np.exp([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward(tl.ones_like(y))


def test_non_scalar_backward_needs_a_gradient():
    y = leaf(1.0, 2.0) * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of"):
        y.backward(tl.ones(3, dtype=tl.float64))


def test_backward_of_a_tensor_without_grad():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        tl.tensor([1.0]).backward(tl.tensor([1.0]))


def test_inplace_on_a_leaf_that_requires_grad():
    x = leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.mul_(2)
    with tl.no_grad():
        x.mul_(2)  # allowed without grad mode
    np.testing.assert_array_equal(np_(x), [2, 4])


def test_modified_saved_tensor_is_detected():
    x = leaf(1.0, 2.0)
    y = x * 1
    z = y.exp()
    y.add_(1)  # z saved its output, not y; y's own use below is saved by mul
    w = y * y
    z.backward(tl.ones_like(z))  # fine: exp saved its result
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.backward(tl.ones_like(w))
    e = x.exp()
    e.add_(1)
    with pytest.raises(RuntimeError, match=r"which is output 0 of ExpBackward0, is at version 1; expected version 0"):
        e.backward(tl.ones_like(e))


def test_inplace_on_a_non_leaf_records():
    x = leaf(1.0, 2.0)
    y = x * 1
    y.mul_(x)  # y = x * x
    assert y.grad_fn.name() == "MulBackward0"
    y.backward(tl.ones_like(y))
    np.testing.assert_array_equal(np_(x.grad), [2, 4])
    z = x * 1
    z.exp_()
    z.backward(tl.ones_like(z))
    np.testing.assert_allclose(np_(x.grad), [2, 4] + np.exp([1.0, 2.0]))


def test_out_refuses_inputs_that_require_grad():
    x = leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match=r"mul\(\): functions with out=\.\.\. arguments don't support automatic"):
        tl.mul(x, x, out=tl.empty(2, dtype=tl.float64))
    with tl.no_grad():
        tl.mul(x, x, out=tl.empty(2, dtype=tl.float64))


def test_grad_assignment_checks():
    x = leaf(1.0, 2.0)
    x.grad = tl.ones(2, dtype=tl.float64)
    np.testing.assert_array_equal(np_(x.grad), [1, 1])
    with pytest.raises(RuntimeError, match="assigned grad has data of a different size"):
        x.grad = tl.ones(3, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="assigned grad has data of a different type"):
        x.grad = tl.ones(2, dtype=tl.float32)
    x.grad = None
    assert x.grad is None


# ------------------------------------------------------------------ autograd.grad, inputs=, create_graph

def test_autograd_grad_returns_without_accumulating():
    x, w = leaf(1.0, 2.0), leaf(3.0, 4.0)
    y = x * w
    gx, = tl.autograd.grad(y, x, tl.ones_like(y))
    np.testing.assert_array_equal(np_(gx), [3, 4])
    assert x.grad is None and w.grad is None
    u = leaf(5.0)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        tl.autograd.grad(x * w, (x, u), tl.ones(2, dtype=tl.float64))
    gx, gu = tl.autograd.grad(x * w, (x, u), tl.ones(2, dtype=tl.float64), allow_unused=True)
    assert gu is None
    gx, gu = tl.autograd.grad(x * w, (x, u), tl.ones(2, dtype=tl.float64), materialize_grads=True)
    np.testing.assert_array_equal(np_(gu), [0])


def test_grad_of_a_non_leaf_input():
    x = leaf(1.0, 2.0)
    h = x * 3
    y = h * h
    gh, = tl.autograd.grad(y, h, tl.ones_like(y))
    np.testing.assert_array_equal(np_(gh), [6, 12])


def test_backward_inputs_accumulates_only_there():
    x, w = leaf(1.0, 2.0), leaf(3.0, 4.0)
    y = x * w
    y.backward(tl.ones_like(y), inputs=[w])
    assert x.grad is None
    np.testing.assert_array_equal(np_(w.grad), [1, 2])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * w).backward(tl.ones_like(y), inputs=[])


def test_create_graph_gives_second_derivatives():
    x = leaf(0.5, 1.5)
    y = x * x * x
    g, = tl.autograd.grad(y, x, tl.ones_like(y), create_graph=True)  # 3x^2
    assert g.requires_grad
    np.testing.assert_allclose(np_(g), 3 * np.array([0.5, 1.5]) ** 2)
    g2, = tl.autograd.grad(g, x, tl.ones_like(g))  # 6x
    np.testing.assert_allclose(np_(g2), 6 * np.array([0.5, 1.5]))
    z = x.sin()
    z.backward(tl.ones_like(z), create_graph=True)
    assert x.grad.requires_grad  # .grad keeps its history


# ------------------------------------------------------------------ hooks

def test_tensor_hooks_and_retain_grad():
    x = leaf(1.0, 2.0)
    h = x * 2
    seen = []
    handle = h.register_hook(lambda g: seen.append(np_(g).copy()))
    h.register_hook(lambda g: g * 10)  # replaces the gradient flowing on
    h.retain_grad()
    y = h * 3
    y.backward(tl.ones_like(y))
    np.testing.assert_array_equal(seen[0], [3, 3])
    np.testing.assert_array_equal(np_(h.grad), [30, 30])  # retain_grad sees the hooked gradient
    np.testing.assert_array_equal(np_(x.grad), [60, 60])
    handle.remove()
    h2 = x * 2
    h2.register_hook(lambda g: seen.append("again"))
    (h2 * 1).backward(tl.ones(2, dtype=tl.float64))
    assert seen[-1] == "again" and len(seen) == 2
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        tl.ones(2).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        tl.ones(2).retain_grad()


def test_leaf_hooks_run_before_accumulation():
    x = leaf(1.0, 2.0)
    x.register_hook(lambda g: g * 2)
    calls = []
    x.register_post_accumulate_grad_hook(lambda t: calls.append(np_(t.grad).copy()))
    (x * 1).backward(tl.ones(2, dtype=tl.float64))
    np.testing.assert_array_equal(np_(x.grad), [2, 2])
    np.testing.assert_array_equal(calls[0], [2, 2])
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf"):
        (x * 1).register_post_accumulate_grad_hook(lambda t: None)


def test_node_hooks():
    x = leaf(1.0, 2.0)
    y = x * 2
    got = {}

    def post(grad_inputs, grad_outputs):
        got["in"], got["out"] = grad_inputs, grad_outputs

    y.grad_fn.register_hook(post)
    y.grad_fn.register_prehook(lambda gouts: (gouts[0] * 5,))
    y.backward(tl.ones_like(y))
    np.testing.assert_array_equal(np_(got["out"][0]), [5, 5])
    np.testing.assert_array_equal(np_(x.grad), [10, 10])


# ------------------------------------------------------------------ memory and threads

def test_graph_and_saved_tensors_are_freed():
    def counts():
        gc.collect()
        return tl._C._autograd_live_counts()

    w = leaf(*([0.5] * 16))
    before = counts()
    for _ in range(200):
        y = (w * w).exp() * w
        y.backward(tl.ones_like(y))
    del y
    after = counts()
    assert after["nodes"] <= before["nodes"] + 1, (before, after)  # w's AccumulateGrad may stay alive
    assert after["tensors"] <= before["tensors"] + 2, (before, after)  # w.grad


def test_saved_tensors_are_released_after_backward():
    x = leaf(1.0, 2.0)
    y = x.exp()
    n_before = tl._C._autograd_live_counts()["tensors"]
    y.backward(tl.ones_like(y))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn._saved_result
    assert tl._C._autograd_live_counts()["tensors"] <= n_before + 1  # x.grad is the only new tensor


def test_backward_from_several_threads():
    errors = []

    def work(seed):
        try:
            rng = np.random.default_rng(seed)
            for _ in range(50):
                a = rng.uniform(-1, 1, size=(8, 8))
                x = tl.tensor(a, requires_grad=True)
                y = (x * x).sin()
                y.backward(tl.ones_like(y))
                np.testing.assert_allclose(np_(x.grad), 2 * a * np.cos(a * a), rtol=1e-12)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_mlp_training_keeps_live_counts_flat():
    """10,000 forward/backward iterations of a small MLP: live TensorImpl, Node and AutogradMeta counts stay
    flat (the caching allocator would hide a leak from RSS)."""
    rng = np.random.default_rng(0)
    w1 = tl.tensor(rng.normal(0, 0.3, size=(8, 16)), requires_grad=True)
    w2 = tl.tensor(rng.normal(0, 0.3, size=(16, 4)), requires_grad=True)
    x = tl.tensor(rng.normal(size=(4, 8)))
    target = tl.tensor(rng.normal(size=(4, 4)))
    counts = {}
    losses = []
    for it in range(10_000):
        h = (x @ w1).relu()
        loss = ((h @ w2 - target) ** 2).mean()
        loss.backward()
        with tl.no_grad():
            w1 -= 0.01 * w1.grad
            w2 -= 0.01 * w2.grad
        w1.grad = None
        w2.grad = None
        if it in (100, 9_999):
            losses.append(loss.item())
            del h, loss
            gc.collect()
            counts[it] = tl._C._autograd_live_counts()
    assert counts[100] == counts[9_999], counts
    assert losses[1] < losses[0]


def test_hook_closure_referencing_its_tensor_is_collected():
    before = tl._C._autograd_live_counts()
    for _ in range(100):
        x = leaf(1.0, 2.0)
        y = x * 2
        y.register_hook(lambda g, y=y: g * 1)  # the closure holds y: a cycle through C++
        del x, y
    gc.collect()
    after = tl._C._autograd_live_counts()
    assert after["tensors"] <= before["tensors"] + 2, (before, after)


# ------------------------------------------------------------------ forward mode

def test_forward_ad_dual_tensors():
    import torchlite.autograd.forward_ad as fwAD

    x = tl.tensor([0.5, 1.0, 2.0], dtype=tl.float64)
    v = tl.tensor([1.0, 0.0, 2.0], dtype=tl.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        y = (d * d).sin() + d.exp()
        primal, tangent = fwAD.unpack_dual(y)
        assert fwAD.unpack_dual(x).tangent is None
        xv, vv = np.asarray(x), np.asarray(v)
        np.testing.assert_allclose(np.asarray(primal), np.sin(xv * xv) + np.exp(xv), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(tangent), np.cos(xv * xv) * 2 * xv * vv + np.exp(xv) * vv, rtol=1e-12)
        z = d.t() if d.dim() == 2 else d.unsqueeze(0).sum(0)  # linear ops carry the tangent through
        np.testing.assert_array_equal(np.asarray(fwAD.unpack_dual(z).tangent), vv)
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(x, tl.ones(2, dtype=tl.float64))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
    assert fwAD.unpack_dual(y).tangent is None  # tangents end with their level
    with pytest.raises(RuntimeError, match="dual level"):
        fwAD.make_dual(x, v)


def test_forward_ad_through_a_function_without_jvp_raises():
    """Every op in the schema has a jvp: (a user's new op without one raises, naming it: the user-story test
    checks that with softsign_bar); a custom Function needs a jvp staticmethod, as in PyTorch."""
    import torchlite.autograd.forward_ad as fwAD

    class NoJvp(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with fwAD.dual_level():
        d = fwAD.make_dual(tl.ones(2, 2, dtype=tl.float64), tl.ones(2, 2, dtype=tl.float64))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            NoJvp.apply(d)
        assert fwAD.unpack_dual(NoJvp.apply(tl.ones(2))).tangent is None  # no tangent in: no jvp needed
        # matmul is a composite over mm, whose jvp is a formula: forward mode flows through it
        t = tl.autograd.forward_ad.unpack_dual(d @ d).tangent
        np.testing.assert_array_equal(np.asarray(t), 2 * np.asarray(tl.ones(2, 2) @ tl.ones(2, 2)))


def test_function_jvp():
    """Function.jvp(ctx, *tangents) gives the outputs' tangents; forward runs without tangents; what forward
    saved (save_for_backward, save_for_forward) is in ctx.saved_tensors."""
    import torchlite.autograd.forward_ad as fwAD

    class MulExp(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            assert fwAD.unpack_dual(x).tangent is None  # forward sees no tangents
            out = x.exp() * y
            ctx.save_for_backward(x, y)
            ctx.save_for_forward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * x.exp() * y, g * x.exp()

        @staticmethod
        def jvp(ctx, tx, ty):
            x, y, out = ctx.saved_tensors
            return tx * out + ty * x.exp()

    x = tl.tensor([0.5, -1.0], dtype=tl.float64, requires_grad=True)
    y = tl.tensor([2.0, 3.0], dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(MulExp.apply, (x, y), check_forward_ad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x.detach(), tl.tensor([1.0, 0.0], dtype=tl.float64))
        out = MulExp.apply(d, y.detach())  # y has no tangent: jvp gets zeros for it
        np.testing.assert_allclose(np.asarray(fwAD.unpack_dual(out).tangent), [np.exp(0.5) * 2, 0.0], rtol=1e-12)


def test_gradcheck_forward_mode_can_fail():
    """A wrong tangent is caught: this Function's jvp forgets the factor 2 x, so the forward-mode Jacobian
    disagrees with finite differences."""
    class Square(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def jvp(ctx, t):
            return t

    x = tl.randn(3, dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: t * t, (x,), check_forward_ad=True)
    assert not tl.autograd.gradcheck(Square.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                     raise_exception=False)


def test_deep_graphs_do_not_recurse():
    """A chain of 100,000 ops: autograd.grad, backward and freeing the graph walk it without recursing once per
    node (which overflowed the C++ stack)."""
    gc.collect()
    before = tl._C._autograd_live_counts()["nodes"]
    x = leaf(1.0)
    for make in (lambda t: t * 1.0, lambda t: t.sin()):
        y = x
        for _ in range(100_000):
            y = make(y)
        g, = tl.autograd.grad(y, x, retain_graph=True)
        assert np.isfinite(g.item())
        y.backward()
        del y
    gc.collect()
    assert tl._C._autograd_live_counts()["nodes"] <= before + 1  # x's AccumulateGrad at most


def test_forward_ad_inplace_ops():
    """In-place variants compute tangents too: from self's value before the op, into self (and, for a view, into
    its base's tangent)."""
    import torchlite.autograd.forward_ad as fwAD

    x, v = np.array([0.5, 1.0, 2.0]), np.array([1.0, -1.0, 0.5])
    w, wv = np.array([2.0, 3.0, 4.0]), np.array([0.1, 0.2, 0.3])
    f64 = lambda a: tl.tensor(a, dtype=tl.float64)  # noqa: E731
    tangent = lambda t: np.asarray(fwAD.unpack_dual(t).tangent)  # noqa: E731
    with fwAD.dual_level():
        b = fwAD.make_dual(f64(w), f64(wv))
        a = fwAD.make_dual(f64(x), f64(v))
        assert a.mul_(b) is a
        a.exp_()  # its formula reads the result
        np.testing.assert_allclose(tangent(a), np.exp(x * w) * (v * w + x * wv), rtol=1e-12)
        c = f64(x)
        c.add_(b, alpha=2)  # self had no tangent: it gets other's
        np.testing.assert_allclose(tangent(c), 2 * wv)
        e = fwAD.make_dual(f64([0.0, 0.0, 0.0]), f64(v))
        e.index_add_(0, tl.tensor([0, 0, 2]), b)  # jvp: linear
        np.testing.assert_allclose(tangent(e), v + [wv[0] + wv[1], 0, wv[2]])
        base = fwAD.make_dual(f64(x), f64(v))
        base[1:].mul_(b[1:])  # through a view: the base's tangent follows
        np.testing.assert_allclose(tangent(base), [v[0], *(v[1:] * w[1:] + x[1:] * wv[1:])], rtol=1e-12)
        plain = f64(x)
        with pytest.raises(NotImplementedError, match="view without a tangent"):
            plain[1:].mul_(b[1:])
        with pytest.raises(RuntimeError, match="don't support forward-mode automatic differentiation"):
            tl.add(b, b, out=tl.empty(3, dtype=tl.float64))


def test_views_follow_inplace_changes_of_their_base():
    """A view whose base is written in place afterwards (by an op on the base or on another view) regenerates
    its history from the base's new one, as in PyTorch."""
    x = leaf(1.0, 2.0, 3.0)
    b = x * 1
    v = b[:2]
    b.mul_(2)
    assert v.grad_fn.name() == "AsStridedBackward0"
    v.sum().backward()
    np.testing.assert_array_equal(np_(x.grad), [2, 2, 0])  # not [1, 1, 0]: v's values are 2x

    x.grad = None
    c = tl.zeros(3, dtype=tl.float64)
    u = c[1:]
    assert not u.requires_grad
    c.add_(x)  # c gets history; its old view follows it
    assert u.requires_grad
    (u * u).sum().backward()
    np.testing.assert_array_equal(np_(x.grad), [0, 4, 6])

    x.grad = None
    d = x * 1
    v1, v2 = d[:2], d[1:]
    v1.mul_(3)  # a sibling view's write reaches v2 through the base
    v2.sum().backward()
    np.testing.assert_array_equal(np_(x.grad), [0, 3, 1])

    with tl.no_grad():
        n = b[:1]  # made under no_grad: not a differentiable view, it does not follow
    b.mul_(2)
    assert not n.requires_grad


def test_grad_fn_types_are_named_after_their_nodes():
    from torchlite.autograd.graph import Node

    x = leaf(1.0, 2.0)
    y = x * 2
    assert type(y.grad_fn).__name__ == "MulBackward0" and isinstance(y.grad_fn, Node)
    assert type(y.sum().grad_fn).__name__ == "SumBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    assert type(y.grad_fn) is type((x * 3).grad_fn)  # one type per name
    assert y.grad_fn.name() == "MulBackward0"


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_save_if_saves_what_the_reduction_reads(reduce):
    """scatter_reduce saves self, src and its result only for the reductions whose formula reads them
    (save_if:), and its gradients check out in every mode, whichever inputs require grad."""
    from torchlite.autograd import gradcheck

    rng = np.random.default_rng(5)
    index = tl.tensor([[0, 1, 0], [2, 2, 1]])
    self_ = tl.tensor(rng.uniform(0.5, 2, (3, 3)), dtype=tl.float64)
    src = tl.tensor(rng.uniform(0.5, 2, (2, 4)), dtype=tl.float64)
    for include_self in (True, False):
        for needs in ((True, True), (True, False), (False, True)):
            a = self_.clone().requires_grad_(needs[0])
            b = src.clone().requires_grad_(needs[1])
            y = tl.scatter_reduce(a, 0, index, b, reduce, include_self=include_self)
            kept = reduce in ("prod", "amax", "amin")
            assert (y.grad_fn._saved_self is not None) == kept
            assert (y.grad_fn._saved_src is not None) == kept
            assert (y.grad_fn._saved_result is not None) == kept
            inputs = tuple(t for t in (a, b) if t.requires_grad)

            def fn(*xs, needs=needs, include_self=include_self):
                it = iter(xs)
                x = next(it) if needs[0] else self_
                s = next(it) if needs[1] else src
                return tl.scatter_reduce(x, 0, index, s, reduce, include_self=include_self)

            assert gradcheck(fn, inputs)


def test_multi_output_ops_with_one_output_used():
    """aminmax, var_mean and std_mean opt out of zero-filling (zero_fill: false): their helpers skip the
    gradient of an output nobody used, and the result is the same as the single-output op's."""
    x = tl.tensor([[1.0, 4.0, 2.0], [3.0, 0.5, 5.0]], dtype=tl.float64, requires_grad=True)
    assert tl.aminmax(x, dim=1).max.grad_fn.name() == "AminmaxBackward0"
    for pick, single in [(lambda: tl.aminmax(x, dim=1).max, lambda: tl.amax(x, dim=1)),
                         (lambda: tl.aminmax(x, dim=1).min, lambda: tl.amin(x, dim=1)),
                         (lambda: tl.var_mean(x, dim=1)[0], lambda: tl.var(x, dim=1)),
                         (lambda: tl.var_mean(x, dim=1)[1], lambda: tl.mean(x, dim=1)),
                         (lambda: tl.std_mean(x, dim=1)[0], lambda: tl.std(x, dim=1)),
                         (lambda: tl.std_mean(x, dim=1)[1], lambda: tl.mean(x, dim=1))]:
        (g,) = tl.autograd.grad(pick().sum(), x)
        (want,) = tl.autograd.grad(single().sum(), x)
        np.testing.assert_allclose(np_(g), np_(want), rtol=1e-12)


def test_tensor_hook_may_not_change_shape_dtype():
    # As PyTorch: a hook returns a new gradient value, never one of another size or type.
    def check(hook, match, on_leaf):
        x = tl.ones(3, requires_grad=True)
        y = x if on_leaf else x * 2
        y.register_hook(hook)
        with pytest.raises(RuntimeError, match=match):
            y.sum().backward()

    def total(g):
        return g.sum()

    for on_leaf in (True, False):
        check(total, r"hook 'total' has changed the size of value", on_leaf)
        check(lambda g: g[None], "has changed the size of value", on_leaf)
        check(lambda g: g.double(), r"has changed the type of value \(was float32 on cpu got float64 on cpu\)",
              on_leaf)
    x = tl.ones(3, requires_grad=True)
    x.register_hook(lambda g: g * 3)
    x.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
