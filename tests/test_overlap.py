"""Writes whose target shares memory with an input (issue 19, class 2).

For every op of the schema with an out= or in-place variant, its sample call is repeated with the written-to
tensor aliasing one of its inputs, fully (the same tensor) and partially (two views of one buffer, one
element apart). Each such call must either raise PyTorch's RuntimeError ("... refer to a single memory
location") or give the values that a fresh target gets; silently different values are the failure. An
op that refuses leaves its out= untouched. The examples of the issue are checked one by one below.
"""
from __future__ import annotations

import numpy as np
import pytest

import torchlite as tl
from torchlite.testing._helpers import clone as clone_tensor
from torchlite.testing._opinfo import op_db

OVERLAP_MESSAGE = "refer to a single memory location"


def ids(ops):
    return [op.full_name for op in ops]


def _sampled(op):
    try:
        return op.has_sample and not op.is_random and not op.is_factory
    except Exception:  # noqa: BLE001
        return False


OUT_OPS = [op for op in op_db if "out" in op.variants and "function" in op.variants and _sampled(op)]
INPLACE_OPS = [op for op in op_db if "inplace" in op.variants and _sampled(op)]


def clone(v):
    """A copy of a sample argument: tensors (also in lists and tuples) cloned, anything else as it is."""
    if isinstance(v, tl.Tensor):
        return clone_tensor(v)
    if isinstance(v, (list, tuple)):
        return type(v)(clone(x) for x in v)
    return v


def _values(t):
    return t.detach().to(tl.float64).numpy() if t.dtype != tl.bool else t.numpy()


def _same(actual, expected, what):
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, what
    np.testing.assert_allclose(_values(actual), _values(expected), rtol=1e-6, atol=1e-6, equal_nan=True,
                               err_msg=what)


def _aliased_pair(t):
    """Two views of one buffer with t's shape and dtype, one element apart: (input, target); the input
    holds t's values."""
    n = t.numel()
    buf = tl.empty(n + 1, dtype=t.dtype)
    buf[:n] = t.reshape(-1)
    buf[n] = buf[n - 1] if n else 0
    return buf[:n].view(t.shape), buf[1:].view(t.shape)


def _call_or_overlap_error(fn):
    """fn()'s result, or None when it raised the overlap error; any other exception propagates."""
    try:
        return fn()
    except RuntimeError as e:
        if OVERLAP_MESSAGE in str(e) or "written-to tensor" in str(e):
            return None
        raise


def _aliasable_inputs(args, like):
    return [name for name, v in args.items()
            if isinstance(v, tl.Tensor) and v.dtype == like.dtype and tuple(v.shape) == tuple(like.shape)
            and v.numel() > 1]


@pytest.mark.parametrize("op", OUT_OPS, ids=ids(OUT_OPS))
def test_out_aliasing_an_input_raises_or_is_right(op):
    args = op.sample()
    op.reseed()
    expected = op.call("function", {k: clone(v) for k, v in args.items()})
    if not isinstance(expected, tl.Tensor):
        pytest.skip(f"{op.full_name}: several returns (their out= tuples are covered by the examples below)")
    names = _aliasable_inputs(args, expected)
    if not names:
        pytest.skip(f"{op.full_name}: its sample has no input of the result's shape and dtype to alias")
    for name in names:
        # Full overlap: out is the input itself.
        x = clone(args[name])
        before = clone(x)
        got = _call_or_overlap_error(lambda: op.call("function", dict(args, **{name: x}), out=x))
        if got is None:
            _same(x, before, f"{op.full_name}: a refused out={name} was changed")
        else:
            _same(x, expected, f"{op.full_name}: out={name} (full overlap) gives other values")
        # Partial overlap: out starts one element after the input.
        xin, out = _aliased_pair(args[name])
        got = _call_or_overlap_error(lambda: op.call("function", dict(args, **{name: xin}), out=out))
        if got is not None:
            _same(out, expected, f"{op.full_name}: out= overlapping {name} partially gives other values")


@pytest.mark.parametrize("op", INPLACE_OPS, ids=ids(INPLACE_OPS))
def test_inplace_with_an_input_aliasing_self_raises_or_is_right(op):
    args = op.sample()
    self_ = args["self"]
    names = [n for n in _aliasable_inputs(args, self_) if n != "self"]
    if not names:
        pytest.skip(f"{op.full_name}: its sample has no other input of self's shape and dtype to alias")
    for name in names:
        # Full overlap: the input is self.
        s = clone(self_)
        op.reseed()
        expected = op.call("inplace", dict(args, self=clone(s), **{name: clone(s)}))
        op.reseed()
        got = _call_or_overlap_error(lambda: op.call("inplace", dict(args, self=s, **{name: s})))
        if got is not None:
            _same(s, expected, f"{op.full_name}_: {name}=self gives other values")
        # Partial overlap: the input starts one element before self.
        xin, s = _aliased_pair(self_)
        op.reseed()
        expected = op.call("inplace", dict(args, self=clone(s), **{name: clone(xin)}))
        op.reseed()
        got = _call_or_overlap_error(lambda: op.call("inplace", dict(args, self=s, **{name: xin})))
        if got is not None:
            _same(s, expected, f"{op.full_name}_: {name} overlapping self partially gives other values")


def _raises_overlap(fn, message=OVERLAP_MESSAGE):
    with pytest.raises(RuntimeError, match=message):
        fn()


def perm():
    return tl.tensor([1, 2, 0])


@pytest.mark.parametrize("case", [
    "setitem", "index_add_", "scatter_", "index_copy_", "index_put_", "index_select", "gather", "take", "cat",
    "masked_select", "scatter_add_partial", "index_add_partial"])
def test_issue_examples_refused(case):
    x = tl.tensor([1.0, 2.0, 3.0])
    calls = {
        "setitem": lambda: x.__setitem__(perm(), x),
        "index_add_": lambda: x.index_add_(0, perm(), x),
        "scatter_": lambda: x.scatter_(0, perm(), x),
        "index_copy_": lambda: x.index_copy_(0, perm(), x),
        "index_put_": lambda: x.index_put_((perm(),), x),
        "index_select": lambda: tl.index_select(x, 0, perm(), out=x),
        "gather": lambda: tl.gather(x, 0, perm(), out=x),
        "take": lambda: tl.take(x, perm(), out=x),
        "cat": lambda: tl.cat([x[2:], x[:2]], out=x),
        "masked_select": lambda: tl.masked_select(x, x > 1, out=x),
        "scatter_add_partial": lambda: (lambda y: y.scatter_add_(0, tl.tensor([0, 1]), y[2:]))(tl.arange(4.0)),
        "index_add_partial": lambda: (lambda y: y.index_add_(0, tl.tensor([0, 1]), y[1:3]))(tl.arange(4.0)),
    }
    before = x.clone()
    _raises_overlap(calls[case])
    assert tl.equal(x, before), f"{case}: the refused call changed its target"


def test_refused_cat_leaves_out_unchanged():
    a = tl.arange(3.0)
    _raises_overlap(lambda: tl.cat([a, a], out=a))
    assert a.shape == (3,) and a.tolist() == [0.0, 1.0, 2.0]


def test_written_to_tensor_with_shared_elements_is_refused():
    x = tl.arange(3.0)
    _raises_overlap(lambda: x.expand(3, 3).add_(1), "more than one element of the written-to tensor")
    _raises_overlap(lambda: tl.mul(x, 2, out=x.expand(3, 3)), "more than one element of the written-to tensor")
    _raises_overlap(lambda: x.unsqueeze(0).expand(2, 3).index_add_(0, tl.tensor([0]), tl.ones(1, 3)),
                    "more than one element of the written-to tensor")
    # As in PyTorch, filling an expanded tensor is allowed (every element gets the one value).
    x.unsqueeze(0).expand(2, 3).fill_(5)
    x.unsqueeze(0).expand(2, 3).masked_fill_(tl.ones(2, 3, dtype=tl.bool), 7)
    assert x.tolist() == [7.0, 7.0, 7.0]


def test_allowed_overlaps_give_right_values():
    # Full overlap where the kernel reads each element before writing it: PyTorch allows these.
    x = tl.arange(4.0)
    tl.cumsum(x, 0, out=x)
    assert x.tolist() == [0.0, 1.0, 3.0, 6.0]
    y = tl.tensor([3.0, 1.0, 2.0, 0.0])
    tl.sort(y, out=(y, tl.empty(4, dtype=tl.int64)))
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0]
    z = tl.arange(4.0)
    z.add_(z.flip(0))
    assert z.tolist() == [3.0, 3.0, 3.0, 3.0]
    # The matrix products compute into a temporary when their target is an input (PyTorch's CPU gives
    # zeros for mm(x, x, out=x)).
    m = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
    tl.mm(m, m, out=m)
    assert m.tolist() == [[7.0, 10.0], [15.0, 22.0]]
    m.addmm_(m, tl.eye(2))
    assert m.tolist() == [[14.0, 20.0], [30.0, 44.0]]
    # A partial overlap is refused by elementwise ops, scans and matrix products alike.
    _raises_overlap(lambda: tl.mm(m.view(4)[:2].view(1, 2), m, out=m.view(4)[1:3].view(1, 2)))
    w = tl.arange(4.0)
    _raises_overlap(lambda: w[1:].add_(w[:-1]))
    _raises_overlap(lambda: tl.cumsum(w[:3], 0, out=w[1:]))
    _raises_overlap(lambda: tl.max(w.view(2, 2), 1, out=(w[:2], tl.empty(2, dtype=tl.int64))))
