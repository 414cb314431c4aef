"""torchlite.autograd.Function: custom forward/backward, with PyTorch's ctx API."""
import gc
import textwrap

import numpy as np
import pytest

import torchlite as tl
from torchlite.autograd import Function, gradcheck, gradgradcheck, once_differentiable


def _docstring_example():
    """The Exp class of torchlite.autograd.function's docstring, run as written: the tests below check the
    documented example itself."""
    doc = textwrap.dedent(tl.autograd.function.__doc__.split("\n\n", 1)[1])
    code = doc[doc.index("class Exp(Function):"):doc.index("Exp.apply(x)")]
    namespace = {"Function": Function}
    exec(code, namespace)  # noqa: S102  (our own docstring)
    return namespace["Exp"]


Exp = _docstring_example()


class ScaleBy(Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None


def x64(*shape):
    return tl.randn(*shape, dtype=tl.float64, requires_grad=True)


def test_exp_function_is_recorded_and_checks():
    x = x64(4)
    y = Exp.apply(x)
    assert y.grad_fn.name() == "ExpBackward" and y.requires_grad
    assert gradcheck(Exp.apply, (x,))
    assert gradgradcheck(Exp.apply, (x,))  # its backward is written with ops: differentiable again


def test_non_tensor_arguments_take_none_gradients():
    x = x64(3)
    assert gradcheck(lambda t: ScaleBy.apply(t, 2.5), (x,))


def test_not_recorded_without_grad():
    x = tl.randn(3)
    assert not Exp.apply(x).requires_grad
    with tl.no_grad():
        assert not Exp.apply(x64(3)).requires_grad


def test_wrong_number_of_gradients():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, c):
            return x * c

        @staticmethod
        def backward(ctx, grad):
            return grad

    y = Bad.apply(x64(2), 2.0)
    with pytest.raises(RuntimeError, match=r"returned an incorrect number of gradients \(expected 2, got 1\)"):
        y.backward(tl.ones(2, dtype=tl.float64))


def test_needs_input_grad_and_non_differentiable_outputs():
    seen = {}

    class SortWithIndices(Function):
        @staticmethod
        def forward(ctx, x, y):
            seen["needs"] = ctx.needs_input_grad
            values, indices = x.sort()
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return values + y * 0, indices

        @staticmethod
        def backward(ctx, grad_values, grad_indices):
            indices, = ctx.saved_tensors
            return tl.zeros_like(grad_values).scatter(0, indices, grad_values), None

    x = x64(5)
    values, indices = SortWithIndices.apply(x, tl.zeros(5, dtype=tl.float64))
    assert seen["needs"] == (True, False)
    assert values.requires_grad and not indices.requires_grad
    assert gradcheck(lambda t: SortWithIndices.apply(t, tl.zeros(5, dtype=tl.float64))[0], (x,))


def test_mark_dirty_in_place():
    class AddOneInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    a = x64(3)
    b = a * 2
    c = AddOneInPlace.apply(b)
    assert c is b and b.grad_fn.name() == "AddOneInPlaceBackward"
    c.backward(tl.ones(3, dtype=tl.float64))
    np.testing.assert_array_equal(np.asarray(a.grad), [2, 2, 2])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        AddOneInPlace.apply(x64(3))


def test_materialize_grads_and_once_differentiable():
    got = {}

    class TwoOutputs(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        @once_differentiable
        def backward(ctx, g1, g2):
            got["g2"] = g2
            got["recording"] = tl.is_grad_enabled()
            return g1 * 2

    x = x64(2)
    a, _ = TwoOutputs.apply(x)
    a.backward(tl.ones(2, dtype=tl.float64), create_graph=True)
    assert got["g2"] is None and got["recording"] is False
    np.testing.assert_array_equal(np.asarray(x.grad.detach()), [2, 2])


def test_saved_output_modified_in_place_is_detected():
    x = x64(3)
    y = Exp.apply(x)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward(tl.ones(3, dtype=tl.float64))


def test_function_graphs_are_freed():
    gc.collect()
    before = tl._C._autograd_live_counts()
    for _ in range(200):
        x = x64(4)
        Exp.apply(x).backward(tl.ones(4, dtype=tl.float64))
    del x
    gc.collect()
    after = tl._C._autograd_live_counts()
    assert after["nodes"] <= before["nodes"] and after["tensors"] <= before["tensors"], (before, after)


def test_legacy_instantiation_is_refused():
    with pytest.raises(RuntimeError, match="Legacy autograd function"):
        Exp()
