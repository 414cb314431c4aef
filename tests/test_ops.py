"""Operator tests driven by the op database (torchlite.testing.op_db), one entry per schema op.

Every pointwise entry is checked against its float64 NumPy reference for every dtype (its result dtype by
PyTorch's promotion rules, dtype coverage pinned to the entry's `dtypes`), on broadcast, non-contiguous,
0-dim, empty and Python-number samples. Every entry is checked for variant consistency (function =
method = in-place = out=). Bad inputs run in a subprocess, so a crash fails a test instead of pytest.
Adding an op to the schema adds its tests; an op without a sample or NumPy reference fails until one is
added to torchlite/testing/_samples/.
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import torchlite as tl
from torchlite.testing._helpers import (DTYPES, INTEGRAL, NP_DTYPES, TOLERANCES, TORCH_TYPE_NAMES,
                                        assert_matches_reference, clone, dtype_name, make, result_type, rng_for,
                                        to_f64)
from torchlite.testing._opinfo import error_cases, op_by_name, op_db, string_args

OPS = op_db
BY_NAME = op_by_name
POINTWISE = [op for op in OPS if op.kind == "pointwise"]
SAMPLED = [op for op in OPS if op.kind != "pointwise" and op.reference is not None]


def ids(ops):
    return [op.full_name for op in ops]


def same_result(a, b, values=True):
    if not isinstance(a, (tuple, tl.Tensor)):  # a Python value (allclose, equal)
        assert type(a) is type(b) and a == b, (a, b)
        return
    if isinstance(a, tuple):
        assert type(a) is type(b), (type(a), type(b))  # the same named tuple type
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            same_result(x, y, values)
        return
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape), (a.dtype, b.dtype, a.shape, b.shape)
    if values:
        np.testing.assert_array_equal(to_f64(a), to_f64(b))


# ------------------------------------------------------------------------------------------ pointwise
def test_schema_has_pointwise_ops():
    assert {"add.Tensor", "mul.Tensor", "exp"} <= set(BY_NAME) and len(POINTWISE) >= 5


@pytest.mark.parametrize("op", POINTWISE, ids=ids(POINTWISE))
def test_pointwise_has_numpy_reference(op):
    assert op.reference is not None, f"add a NumPy reference for {op.full_name} to torchlite/testing/_samples/"


@pytest.mark.parametrize("op", OPS, ids=ids(OPS))
def test_every_op_has_a_sample(op):
    assert op.has_sample, f"add a sample for {op.full_name} to a module of torchlite/testing/_samples/"


POINTWISE_CASES = [pytest.param(op, dtype, layout, id=f"{op.full_name}-{dtype}-{layout}")
                   for op in POINTWISE for dtype in DTYPES for layout in op.layouts]


@pytest.mark.parametrize("op,dtype,layout", POINTWISE_CASES)
def test_pointwise_matches_numpy(op, dtype, layout):
    args, result = op.pointwise_args(dtype, layout, rng_for(op.full_name, dtype, layout))
    if result not in op.dtypes:
        # Dtype coverage is pinned to the schema: outside it, a clear RuntimeError naming the dtype.
        # (or a `checks:` message of the op, which names it: sub refuses bool operands first).
        with pytest.raises(RuntimeError, match=f"'{TORCH_TYPE_NAMES[result]}'|^{op.name}: "):
            op.run_primary(args)
        return
    if op.refused(args):
        with pytest.raises(RuntimeError, match=f"^{op.name}: "):
            op.run_primary(args)
        return
    expected = op.reference_result(args, result)
    before = {k: to_f64(v) for k, v in args.items() if isinstance(v, tl.Tensor)}
    actual = op.run_primary(args)
    assert_matches_reference(actual, expected, result, f"{op.full_name} {dtype} {layout}", op.tolerances)
    if op.primary_kind != "inplace":
        for k, v in before.items():
            np.testing.assert_array_equal(to_f64(args[k]), v, err_msg=f"{op.name} modified its input '{k}'")


# Python-number operands and mixed dtypes, with PyTorch's result dtypes written out.
PROMOTION_CASES = [
    ("a + 2.5", {"a": "int32"}, "float32"),
    ("a + 1", {"a": "int32"}, "int32"),
    ("a + True", {"a": "int64"}, "int64"),
    ("a + b", {"a": "bool", "b": "bool"}, "bool"),
    ("a * b", {"a": "bool", "b": "bool"}, "bool"),
    ("a + 1", {"a": "bool"}, "int64"),
    ("a + 1.5", {"a": "bool"}, "float32"),
    ("a + 2.5", {"a": "float16"}, "float16"),
    ("a * 2", {"a": "bfloat16"}, "bfloat16"),
    ("a + 2.5", {"a": "float64"}, "float64"),
    ("a * 2", {"a": "uint8"}, "uint8"),
    ("2 * a", {"a": "int8"}, "int8"),
    ("2.0 + a", {"a": "int16"}, "float32"),
    ("2.0 * a", {"a": "float64"}, "float64"),
    ("a + b", {"a": "int32", "b": ("float64", ())}, "float64"),
    ("a + b", {"a": "float32", "b": ("float64", ())}, "float32"),
    ("a + b", {"a": "int32", "b": ("int64", ())}, "int32"),
    ("a + b", {"a": ("int64", ()), "b": ("float16", ())}, "float16"),
    ("a + b", {"a": "uint8", "b": "int8"}, "int16"),
    ("a + b", {"a": "float16", "b": "bfloat16"}, "float32"),
    ("a + b", {"a": "bool", "b": "int8"}, "int8"),
    ("a + b", {"a": "int8", "b": ("bool", ())}, "int8"),
    ("a * b", {"a": "int64", "b": "float16"}, "float16"),
    ("tl.add(a, b, alpha=2)", {"a": "int32", "b": "int64"}, "int64"),
    ("tl.pow(a, 2)", {"a": "int32"}, "int32"),
    ("tl.pow(a, 2.5)", {"a": "int32"}, "float32"),
    ("tl.pow(a, 2)", {"a": "float16"}, "float16"),
    ("tl.pow(a, 2)", {"a": "bool"}, "int64"),
    ("tl.exp(a)", {"a": "int32"}, "float32"),
    ("tl.exp(a)", {"a": "bool"}, "float32"),
    ("tl.sigmoid(a)", {"a": "int64"}, "float32"),
    ("tl.exp(a)", {"a": "float64"}, "float64"),
    ("tl.neg(a)", {"a": "uint8"}, "uint8"),
    ("-a", {"a": "int32"}, "int32"),
    ("tl.abs(a)", {"a": "int16"}, "int16"),
    ("tl.fill(a, 2.5)", {"a": "int32"}, "int32"),
]


@pytest.mark.parametrize("expr,inputs,dtype", PROMOTION_CASES, ids=[f"{c[0]}-{c[1]}" for c in PROMOTION_CASES])
def test_promotion_table(expr, inputs, dtype):
    rng = rng_for(expr, inputs)
    env = {"tl": tl, "np": np}
    for k, spec in inputs.items():
        d, shape = spec if isinstance(spec, tuple) else (spec, (2, 3))
        env[k] = make(shape, d, rng)
    actual = eval(expr, env)
    f64 = {k: (to_f64(v) if isinstance(v, tl.Tensor) else v) for k, v in env.items()}
    f64["tl"] = type("npns", (), {"add": staticmethod(lambda a, b, alpha=1: a + alpha * b),
                                  "pow": staticmethod(np.power), "exp": staticmethod(np.exp),
                                  "sigmoid": staticmethod(lambda a: 1 / (1 + np.exp(-a))),
                                  "neg": staticmethod(np.negative), "abs": staticmethod(np.abs),
                                  "fill": staticmethod(lambda a, v: np.full_like(a, v))})
    with np.errstate(all="ignore"):
        expected = eval(expr, f64)
    if dtype in INTEGRAL and "fill" in expr:
        expected = np.trunc(expected)
    assert_matches_reference(actual, expected, dtype, expr)
    # The schema-driven result_type agrees with the table (it drives test_pointwise_matches_numpy).
    if expr.startswith(("a + b", "a * b")):
        assert result_type([env["a"], env["b"]]) == dtype


# ------------------------------------------------------------------------------------------ other ops
@pytest.mark.parametrize("op", SAMPLED, ids=ids(SAMPLED))
def test_sampled_op_matches_numpy(op):
    """Ops with a sample and a NumPy reference (shape, view, join, reduction, linear-algebra, indexing ops):
    exact values on the sample (small integers or float32 values a float64 reference reproduces), or within
    the tolerances the op's family gives (softmax's exp and division round)."""
    args = op.sample()
    expected = op.reference_result(args)
    actual = op.call(op.primary_kind, args)
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), (actual, len(expected))
        pairs = list(zip(actual, expected))
    else:
        pairs = [(actual, expected)]
    for a, e in pairs:
        assert tuple(a.shape) == np.shape(e), f"{op.full_name}: shape {tuple(a.shape)}, expected {np.shape(e)}"
        tol = op.sample_tolerance(dtype_name(a.dtype))
        if tol is None:
            np.testing.assert_array_equal(to_f64(a), e, err_msg=op.full_name)
        else:
            np.testing.assert_allclose(to_f64(a), e, rtol=tol[0], atol=tol[1], err_msg=op.full_name)
    if op.is_view:
        assert actual._base is not None, f"{op.full_name} returns a view"


# ------------------------------------------------------------------------------------------ variants

@pytest.mark.parametrize("op", OPS, ids=ids(OPS))
def test_variant_consistency(op):
    args = op.sample()
    values = op.name != "empty"
    results = {}
    for kind in ("function", "method"):
        if kind in op.variants:
            op.reseed()
            results[kind] = op.call(kind, args)
    if "inplace" in op.variants:
        c = clone(args["self"])
        v0 = c._version
        op.reseed()
        r = op.call("inplace", dict(args, self=c))
        assert r is c, f"{op.name}_ returns self"
        if op.promotion is not None and op.promotion.kind == "always_bool":  # a.eq_(b) keeps a's dtype: compare as bool
            assert r.dtype == args["self"].dtype
            r = r.ne(0)
        if op.is_view:
            assert c._version == v0  # metadata change only
        else:
            assert c._version > v0, f"{op.name}_ bumps _version"
        results["inplace"] = r
    if not results:
        pytest.fail(f"{op.full_name} has no callable variant")
    first_kind, first = next(iter(results.items()))
    for kind, r in results.items():
        same_result(r, first, values)
    if "out" in op.variants:
        # Ops with several returns take a tuple of targets (out=(values, indices)) and return them.
        firsts = first if isinstance(first, tuple) else (first,)
        for wrong in (False, True):
            outs = tuple(tl.empty((7,) if wrong else tuple(f.shape), dtype=f.dtype) for f in firsts)
            v0 = [o._version for o in outs]
            op.reseed()
            r = op.call("function", args, out=outs if isinstance(first, tuple) else outs[0])
            rs = tuple(r) if isinstance(first, tuple) else (r,)
            assert all(a is b for a, b in zip(rs, outs)), f"{op.name}(out=) returns out"
            assert all(o._version > v for o, v in zip(outs, v0)), f"{op.name}(out=) bumps out._version"
            for o, f in zip(outs, firsts):
                same_result(o, f, values)  # resized when wrongly shaped


# In-place methods written in Python over a schema op (torchlite/_tensor.py): float_power_ requires self to
# have exactly the result's dtype (PyTorch's "the base given to float_power_ has dtype Float..."), which a
# generated in-place variant (any dtype the result casts to) would not.
PYTHON_INPLACE = {"float_power_"}


@pytest.mark.parametrize("op", [op for op in OPS if "method" in op.variants or "inplace" in op.variants],
                         ids=ids([op for op in OPS if "method" in op.variants or "inplace" in op.variants]))
def test_variants_are_bound(op):
    for kind, name in (("method", op.name), ("inplace", op.name + "_")):
        # Another overload of the name may bind it (normal_ comes from normal.functional, not normal.Tensor_Tensor).
        bound_by_overload = any(kind in o.variants for o in OPS if o.name == op.name) or name in PYTHON_INPLACE
        assert bound_by_overload == hasattr(tl.Tensor, name), f"Tensor.{name} vs variants {op.variants}"
    assert any("function" in o.variants for o in OPS if o.name == op.name) == hasattr(op.namespace, op.name)


# ------------------------------------------------------------------------------------------ sum
def _arange(shape, dtype):
    n = int(np.prod(shape))
    data = (np.arange(n) % 7 - 3).reshape(shape)
    if dtype == "bfloat16":
        t = tl.tensor(data.astype(np.float64).tolist(), dtype=tl.bfloat16)
    else:
        t = tl.tensor(data.astype(NP_DTYPES[dtype]))
    return t, to_f64(t)  # uint8 wraps the negatives


SUM_CASES = [
    ("whole", {}, "float32", "float32"),
    ("dim_int", {"dim": 1}, "float32", "float32"),
    ("dim_tuple", {"dim": (0, 2)}, "float64", "float64"),
    ("keepdim", {"dim": (1,), "keepdim": True}, "float32", "float32"),
    ("negative_dim", {"dim": -1}, "float32", "float32"),
    ("negative_tuple_keepdim", {"dim": (-1, 0), "keepdim": True}, "float32", "float32"),
    ("dtype", {"dtype": tl.float64}, "float32", "float64"),
    ("dim_dtype", {"dim": 0, "dtype": tl.float64}, "int32", "float64"),
    ("int32_to_int64", {}, "int32", "int64"),
    ("uint8_dim_to_int64", {"dim": 1}, "uint8", "int64"),
    ("bool_to_int64", {"dim": 0}, "bool", "int64"),
    ("int_dtype_kept", {"dtype": tl.int32}, "int64", "int32"),
    ("float16", {"dim": 2}, "float16", "float16"),
    ("bfloat16", {}, "bfloat16", "bfloat16"),
]


@pytest.mark.parametrize("name,kw,dtype,result", SUM_CASES, ids=[c[0] for c in SUM_CASES])
def test_sum(name, kw, dtype, result):
    if dtype == "bool":
        x = tl.tensor(np.arange(24).reshape(2, 3, 4) % 3 == 0)
        ref = (np.arange(24).reshape(2, 3, 4) % 3 == 0).astype(np.float64)
    else:
        x, ref = _arange((2, 3, 4), dtype)
    np_kw = {}
    if "dim" in kw:
        np_kw["axis"] = kw["dim"]
    if kw.get("keepdim"):
        np_kw["keepdims"] = True
    expected = np.sum(ref, **np_kw)
    assert_matches_reference(tl.sum(x, **kw), expected, result, name)
    assert_matches_reference(x.sum(**kw), expected, result, name + " method")


def test_sum_out_resizes():
    x, ref = _arange((2, 3), "float32")
    out = tl.empty((5, 5))
    r = tl.sum(x, 1, out=out)
    assert r is out and tuple(out.shape) == (2,)
    np.testing.assert_array_equal(out.numpy(), ref.sum(1))


def test_sum_out_dtype_mismatch_raises():
    x, _ = _arange((2, 3), "float32")
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
        tl.sum(x, 0, dtype=tl.float64, out=tl.empty(0))


def test_sum_empty_and_zero_dim():
    assert tl.sum(tl.empty((0, 3))).item() == 0
    assert tl.sum(tl.empty((0, 3)), 0).tolist() == [0.0, 0.0, 0.0]
    assert tl.sum(tl.tensor(2.5)).item() == 2.5
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.sum(tl.ones(2, 3), 2)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        tl.sum(tl.ones(2, 3), (0, -2))


# ------------------------------------------------------------------------------------------ mm
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16", "bfloat16"])
@pytest.mark.parametrize("noncontig", [False, True], ids=["contiguous", "transposed"])
def test_mm(dtype, noncontig):
    rng = rng_for("mm", dtype, noncontig)
    a = make((5, 7), dtype, rng, noncontiguous=noncontig)
    b = make((7, 3), dtype, rng, noncontiguous=noncontig)
    assert a.is_contiguous() != noncontig
    expected = to_f64(a) @ to_f64(b)
    r = tl.mm(a, b)
    if dtype in ("float16", "bfloat16"):
        rtol, _ = TOLERANCES[dtype]
        assert_close_loose = functools.partial(np.testing.assert_allclose, rtol=rtol, atol=7 * 4 * rtol)
        assert dtype_name(r.dtype) == dtype
        assert_close_loose(to_f64(r), expected)
    else:
        assert_matches_reference(r, expected, dtype, "mm")
    same_result(a.mm(b), r)


def test_mm_shape_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        tl.mm(tl.ones(2, 3), tl.ones(4, 5))
    with pytest.raises(RuntimeError, match="must be a matrix"):
        tl.mm(tl.ones(2, 3), tl.ones(3))
    with pytest.raises(RuntimeError, match="Bool"):
        tl.mm(tl.ones(2, 2, dtype=tl.bool), tl.ones(2, 2, dtype=tl.bool))
    assert tuple(tl.mm(tl.ones(2, 0), tl.ones(0, 3)).shape) == (2, 3)
    assert tl.mm(tl.ones(2, 0), tl.ones(0, 3)).tolist() == [[0.0] * 3] * 2


# ------------------------------------------------------------------------------------------ views
def test_view():
    x, ref = _arange((2, 3, 4), "float32")
    v = x.view(-1)
    assert tuple(v.shape) == (24,) and v._base is x
    np.testing.assert_array_equal(v.numpy(), ref.reshape(-1))
    assert tuple(x.view(4, -1, 2).shape) == (4, 3, 2)
    assert tuple(x.view((6, 4)).shape) == (6, 4)
    v.fill_(5.0)
    assert x.tolist()[1][2][3] == 5.0  # shares storage
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.transpose(0, 2).view(-1)
    with pytest.raises(RuntimeError, match=r"shape '\[5\]' is invalid for input of size 24"):
        x.view(5)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.view(-1, -1)


@pytest.mark.parametrize("d0,d1,shape", [(0, 1, (3, 2, 4)), (-1, 0, (4, 3, 2)), (-2, -1, (2, 4, 3)),
                                          (1, 1, (2, 3, 4))])
def test_transpose(d0, d1, shape):
    x, ref = _arange((2, 3, 4), "float32")
    t = tl.transpose(x, d0, d1)
    assert tuple(t.shape) == shape and t._base is x
    np.testing.assert_array_equal(t.numpy(), np.swapaxes(ref, d0, d1))
    same_result(x.transpose(d0, d1), t)
    t.fill_(9.0)  # writing through the view changes the base
    assert np.all(x.numpy() == 9.0)
    y, _ = _arange((2, 3, 4), "float32")
    r = y.transpose_(d0, d1)
    assert r is y and tuple(y.shape) == shape
    np.testing.assert_array_equal(y.numpy(), np.swapaxes(ref, d0, d1))


def test_transpose_errors():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        tl.transpose(tl.ones(2, 3), 0, 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.ones(2).transpose_(0, -3)


# ------------------------------------------------------------------------------------------ factories
FACTORY_CASES = [
    ("tl.zeros((2, 3))", "float32", (2, 3), 0.0),
    ("tl.ones((2,))", "float32", (2,), 1.0),
    ("tl.ones(2, 3)", "float32", (2, 3), 1.0),
    ("tl.empty((4,))", "float32", (4,), None),
    ("tl.empty(())", "float32", (), None),
    ("tl.full((2,), 3)", "int64", (2,), 3),
    ("tl.full((2,), True)", "bool", (2,), True),
    ("tl.full((2,), 2.5)", "float32", (2,), 2.5),
    ("tl.full((2, 2), 3, dtype=tl.float64)", "float64", (2, 2), 3.0),
    ("tl.zeros((2,), dtype=tl.int32)", "int32", (2,), 0),
    ("tl.ones((3,), dtype=tl.bool)", "bool", (3,), True),
    ("tl.ones((3,), dtype=tl.bfloat16)", "bfloat16", (3,), 1.0),
    ("tl.empty((2, 0), dtype=tl.int8)", "int8", (2, 0), None),
    ("tl.zeros((2, 3), out=tl.empty(5))", "float32", (2, 3), 0.0),
    ("tl.ones((2, 2), out=tl.empty(1, dtype=tl.int32))", "int32", (2, 2), 1),
    ("tl.full((3,), 7, out=tl.empty((3,), dtype=tl.float64))", "float64", (3,), 7.0),
]


@pytest.mark.parametrize("expr,dtype,shape,value", FACTORY_CASES, ids=[c[0] for c in FACTORY_CASES])
def test_factories(expr, dtype, shape, value):
    r = eval(expr, {"tl": tl})
    assert dtype_name(r.dtype) == dtype and tuple(r.shape) == shape
    if value is not None:
        assert np.all(to_f64(r) == float(value))


@pytest.mark.parametrize("expr", ["tl.empty((-1,))", "tl.zeros((2, -3))", "tl.ones((-2,))", "tl.full((-1, 2), 1.0)"])
def test_factories_negative_size(expr):
    with pytest.raises(RuntimeError, match="negative dimension -"):
        eval(expr, {"tl": tl})


TENSOR_CASES = [
    ("[1, 2.0]", "float32", (2,)),
    ("[True, 1]", "int64", (2,)),
    ("[True, False]", "bool", (2,)),
    ("[]", "float32", (0,)),
    ("[[1, 2], [3, 4]]", "int64", (2, 2)),
    ("2.5", "float32", ()),
    ("7", "int64", ()),
    ("np.array([1.0, 2.0])", "float64", (2,)),
    ("np.array([1, 2], dtype=np.int16)", "int16", (2,)),
    ("np.zeros((2, 3), dtype=np.float16)", "float16", (2, 3)),
    ("[1, 2]", "bfloat16", (2,)),
]


@pytest.mark.parametrize("data,dtype,shape", TENSOR_CASES, ids=[c[0] + ("-" + c[1]) for c in TENSOR_CASES])
def test_tensor_inference(data, dtype, shape):
    value = eval(data, {"np": np})
    t = tl.tensor(value, dtype=tl.bfloat16) if dtype == "bfloat16" else tl.tensor(value)
    assert dtype_name(t.dtype) == dtype and tuple(t.shape) == shape
    np.testing.assert_array_equal(to_f64(t), np.asarray(value, dtype=np.float64))
    if t.numel() == 1:
        assert t.item() == np.asarray(value).item()


def test_tensor_errors():
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 1 \(got 1\)"):
        tl.tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        tl.tensor(["a"])


# ------------------------------------------------------------------------------------------ errors
# Run in a subprocess: a segfault or abort fails the test instead of killing pytest. Each case:
# (code, exception type, substrings of the message).
# ------------------------------------------------------------------------------------------ errors
# Run in a subprocess: a segfault or abort fails the test instead of killing pytest. Each case:
# (code, exception type, substrings of the message), from the op database's families.
ERROR_CASES = error_cases()

_RUNNER = r"""
import json, sys
import numpy as np
import torchlite as tl
for code in sys.argv[1:]:
    a = tl.ones(2, 3)
    i = tl.tensor([1, 2, 3])
    b = tl.tensor([True, False])
    try:
        r = eval(code)
        out = {"type": None, "message": repr(r)[:200]}
    except Exception as e:
        out = {"type": type(e).__name__, "message": str(e)}
    print("RESULT" + json.dumps([code, out]), flush=True)
"""


def run_isolated(code_args, script=_RUNNER, timeout=120):
    """Run `script` on `code_args` in a fresh interpreter; a crash fails the caller.

    Returns the list of [key, result] pairs the script printed."""
    # Run outside the source tree, so the installed torchlite is imported, not ./torchlite.
    p = subprocess.run([sys.executable, "-c", script, *code_args], capture_output=True, text=True,
                       cwd=tempfile.gettempdir(), timeout=timeout)
    assert p.returncode == 0, f"crashed (exit code {p.returncode}): {code_args}\n{p.stderr[-2000:]}"
    lines = [ln[len("RESULT"):] for ln in p.stdout.splitlines() if ln.startswith("RESULT")]
    assert lines, f"no result from {code_args}: {p.stdout[-1000:]} {p.stderr[-1000:]}"
    return [json.loads(ln) for ln in lines]


_BATCHES = {}


def isolated_result(key, keys, script=_RUNNER, prefix=()):
    """The result for `key`, from one subprocess that ran every key in `keys`.

    One interpreter for all cases keeps the suite fast; if it crashes, each case
    reruns in its own subprocess, so the failure names the case that crashed."""
    if script not in _BATCHES:
        try:
            _BATCHES[script] = {k: r for k, r in run_isolated([*prefix, *keys], script)}
        except AssertionError:
            _BATCHES[script] = {}
    batch = _BATCHES[script]
    if key in batch:
        return batch[key]
    ((_, res),) = run_isolated([*prefix, key], script)
    return res


@pytest.mark.parametrize("code,exc,parts", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_bad_input_raises_python_exception(code, exc, parts):
    res = isolated_result(code, [c[0] for c in ERROR_CASES])
    assert res["type"] == exc, f"{code}: got {res['type']}: {res['message']}"
    for p in parts:
        assert p.lower() in res["message"].lower(), f"{code}: {p!r} not in {res['message']!r}"


# Wrong types for every argument of every op, generated from the schema, in one subprocess.
_FUZZ_RUNNER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import test_ops
for name in sys.argv[2:]:
    print("RESULT" + json.dumps([name, test_ops.wrong_type_results(name)]), flush=True)
"""


def wrong_type_results(full_name):
    """For each argument of each variant: call it with a str in that argument's place."""
    op = BY_NAME[full_name]
    base = op.sample()
    results = []
    for kind in [k for k in ("function", "method", "inplace") if k in op.variants]:
        for a in op.arguments:
            if kind != "function" and a.name == "self":
                continue
            if a.base == "str":
                continue
            args = dict(base)
            if kind == "inplace":
                args["self"] = clone(args["self"])
            # A device may be named by a string: give it a float instead.
            args[a.name] = 3.5 if a.base == "Device" else "not a number"
            try:
                op.call(kind, args)
                results.append({"kind": kind, "arg": a.name, "type": None, "message": ""})
            except Exception as e:  # noqa: BLE001
                results.append({"kind": kind, "arg": a.name, "type": type(e).__name__, "message": str(e)})
    return results


def _fuzzable(op):
    """Ops with an argument the fuzz replaces (a method-only op of just `self` has none)."""
    kinds = [k for k in ("function", "method", "inplace") if k in op.variants]
    return any(a.base != "str" and (k == "function" or a.name != "self")
               for k in kinds for a in op.arguments)


FUZZED = [op for op in OPS if _fuzzable(op)]
# Ops with an overload taking a Device, which may be written as a string: a stray string is parsed as a
# device and refused by the device parser (a RuntimeError, as PyTorch's x.to('abc')).
STRING_IS_DEVICE = {"to"}
# Arguments that take a string in PyTorch besides numbers (norm's p='fro'): op name -> {argument: message part
# of the RuntimeError a stray string gives}, from the op database's families.
STRING_ARGS = string_args()


@pytest.mark.parametrize("op", FUZZED, ids=ids(FUZZED))
def test_wrong_argument_types(op):
    results = isolated_result(op.full_name, [n.full_name for n in FUZZED], _FUZZ_RUNNER,
                              prefix=[os.path.dirname(os.path.abspath(__file__))])
    assert results
    for r in results:
        where = f"{op.name} ({r['kind']}) with a str for '{r['arg']}'"
        if op.name in STRING_IS_DEVICE and r["type"] == "RuntimeError":
            assert "device string" in r["message"], f"{where}: {r['message']}"
            continue
        if r["arg"] in STRING_ARGS.get(op.name, {}):
            assert r["type"] == "RuntimeError" and STRING_ARGS[op.name][r["arg"]] in r["message"], \
                f"{where}: {r['type']}: {r['message']}"
            continue
        assert r["type"] == "TypeError", f"{where}: {r['type']}: {r['message']}"
        assert op.name in r["message"] and r["arg"] in r["message"], f"{where}: {r['message']}"


# ------------------------------------------------------------------------------------------ checks
def test_add_float_alpha_on_int_raises():
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        tl.add(tl.tensor([1, 2, 3]), tl.tensor([1, 2, 3]), alpha=1.5)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        tl.add(tl.ones(2), tl.ones(2), alpha=True)


def test_memory_overlap_allowed_cases():
    # A fill writes an expanded tensor; an op may write over its own input in full; a transposed tensor is
    # dense, so in-place on it is fine (all as in PyTorch).
    e = tl.ones(3).expand(2, 3)
    assert e.fill_(2).tolist() == [[2.0] * 3] * 2
    b = tl.arange(10.0)
    head = b.narrow(0, 0, 4)
    assert tl.add(head, 1, out=head).tolist() == [1.0, 2.0, 3.0, 4.0]
    x = tl.ones(2, 3).t()
    assert x.add_(1).tolist() == [[2.0, 2.0]] * 3
    assert x.mul_(x).tolist() == [[4.0, 4.0]] * 3


def test_pow_int_negative_exponent_raises():
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        tl.pow(tl.tensor([2], dtype=tl.int32), -1)
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        tl.tensor([2]) ** -2
    assert tl.pow(tl.tensor([2]), tl.tensor(-1)).tolist() == [0]  # a tensor exponent is not checked
    assert (tl.tensor([2]) ** -1.0).tolist() == [0.5]
