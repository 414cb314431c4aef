"""Operator tests generated from native_functions.yaml.

Every pointwise entry is checked against a float64 NumPy reference for every dtype (its result dtype by
PyTorch's promotion rules, dtype coverage pinned to the entry's `dtypes`), on broadcast, non-contiguous,
0-dim, empty and Python-number samples. Every entry is checked for variant consistency (function =
method = in-place = out=). Bad inputs run in a subprocess, so a crash fails a test instead of pytest.
Adding an op to the schema adds its tests; an op without a NumPy reference or sample fails until one is
added to the tables below.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import json
import math
import os
import subprocess
import tempfile
import sys
import zlib

import numpy as np
import pytest

import torchlite as tl  # the installed package: imported before the repository root joins sys.path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from codegen.load import DTYPES, FLOATING, INTEGRAL, dtype_category, load  # noqa: E402
from codegen.python_sig import PyParam, allows_number  # noqa: E402

FUNCTIONS = load(os.path.join(ROOT, "native_functions.yaml"))
BY_NAME = {nf.schema.full_name: nf for nf in FUNCTIONS}
POINTWISE = [nf for nf in FUNCTIONS if nf.kind == "pointwise"]

NP_DTYPES = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
             "int64": np.int64, "float16": np.float16, "bfloat16": None, "float32": np.float32,
             "float64": np.float64}
# PyTorch's names in "not implemented for 'Bool'" and cast messages.
TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                    "float64": "Double"}
# (rtol, atol) at the result dtype. float16/bfloat16 are loosened: the kernels round operands and
# intermediates of magnitude <= 8 to 11 / 8 significant bits.
TOLERANCES = {"float16": (1e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2), "float32": (1.3e-6, 1e-5),
              "float64": (1e-7, 1e-7)}

# ------------------------------------------------------------------------------------------ references
# op (full name) -> NumPy function of the op's arguments (float64 arrays and Python numbers), by name.
def _pow_ref(self, exponent, result_dtype):
    if result_dtype in FLOATING:
        return np.power(self, exponent)
    # Integer powers: a negative exponent gives 0 except for bases 1 and -1 (PyTorch's integer pow).
    neg = exponent < 0
    safe = np.power(self, np.where(neg, 0, exponent))
    odd = np.mod(exponent, 2) != 0
    return np.where(neg, np.where(self == 1, 1, np.where(self == -1, np.where(odd, -1, 1), 0)), safe)


def _shift_left(self, other, result_dtype):
    bits = 8 * np.dtype(NP_DTYPES[result_dtype]).itemsize
    a, b = np.asarray(self).astype(np.int64), np.asarray(other).astype(np.int64)
    return np.where((b < 0) | (b >= bits), 0, np.left_shift(a, np.clip(b, 0, 63)))


def _shift_right(self, other, result_dtype):
    bits = 8 * np.dtype(NP_DTYPES[result_dtype]).itemsize
    a, b = np.asarray(self).astype(np.int64), np.asarray(other).astype(np.int64)
    return np.where((b < 0) | (b >= bits), np.where(a < 0, -1, 0), np.right_shift(a, np.clip(b, 0, 63)))


def _i64(x):
    return np.asarray(x).astype(np.int64)


def _erfinv(self):
    """Newton's method on math.erf, from x = 0: an independent float64 reference."""
    erf = np.vectorize(math.erf, otypes=[float])
    y = np.asarray(self, dtype=np.float64)
    x = np.zeros_like(y)
    for _ in range(100):
        x = x - (erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return np.where(np.abs(y) == 1, np.sign(y) * np.inf, np.where(np.abs(y) > 1, np.nan, x))


def _lgamma(x):
    try:
        return math.lgamma(x)
    except ValueError:  # poles at 0, -1, -2, ...
        return math.inf


def _digamma(self):
    """Central difference of math.lgamma (error ~1e-9 on the test domain)."""
    lgamma, h = np.vectorize(_lgamma, otypes=[float]), 1e-5
    x = np.asarray(self, dtype=np.float64)
    pole = (x <= 0) & (x == np.trunc(x))
    return np.where(pole, np.where(x == 0, -np.inf, np.nan), (lgamma(x + h) - lgamma(x - h)) / (2 * h))


def _polygamma(n, self):
    """scipy.special.polygamma, an independent float64 reference (scipy is optional)."""
    special = pytest.importorskip("scipy.special", reason="scipy is not installed: it is polygamma's reference")
    return special.polygamma(n, self)


def _logit(self, eps):
    z = self if eps is None else np.clip(self, eps, 1 - eps)
    return np.log(z / (1 - z))


def _clamp(self, min=None, max=None):
    out = self if min is None else np.maximum(self, min)
    return out if max is None else np.minimum(out, max)


def _lerp(self, end, weight):
    return self + weight * (end - self)


# op (full name) -> NumPy function of the op's arguments (float64 arrays and Python numbers), by name. A
# reference with a `result_dtype` parameter also gets the result dtype's name.
NUMPY_REFS = {
    "add.Tensor": lambda self, other, alpha: self + alpha * other,
    "sub.Tensor": lambda self, other, alpha: self - alpha * other,
    "rsub.Tensor": lambda self, other, alpha: other - alpha * self,
    "mul.Tensor": lambda self, other: self * other,
    "div.Tensor": lambda self, other: self / other,
    "true_divide.Tensor": lambda self, other: self / other,
    "floor_divide": lambda self, other: np.floor_divide(self, other),
    "_div_trunc": lambda self, other: np.trunc(self / other),
    "remainder.Tensor": lambda self, other: np.mod(self, other),
    "fmod.Tensor": lambda self, other: np.fmod(self, other),
    "neg": lambda self: -self,
    "abs": lambda self: np.abs(self),
    "pow.Tensor_Scalar": _pow_ref,
    "pow.Tensor_Tensor": _pow_ref,
    "pow.Scalar": _pow_ref,
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda self: 1 / np.sqrt(self), "reciprocal": lambda self: 1 / self,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "sigmoid": lambda self: 1.0 / (1.0 + np.exp(-self)),
    "expit": lambda self: 1.0 / (1.0 + np.exp(-self)),
    "logit": _logit,
    "relu": lambda self: np.maximum(self, 0),
    "erf": np.vectorize(math.erf, otypes=[float]), "erfc": np.vectorize(math.erfc, otypes=[float]),
    "erfinv": _erfinv,
    "lgamma": np.vectorize(lambda x: _lgamma(x), otypes=[float]), "digamma": _digamma, "polygamma": _polygamma,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": lambda self: np.round(self),
    "round.decimals": lambda self, decimals: np.round(self, decimals),
    "frac": lambda self: self - np.trunc(self),
    "sign": np.sign, "sgn": np.sign, "signbit": np.signbit,
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "isposinf": lambda self: np.isposinf(self),
    "isneginf": lambda self: np.isneginf(self),
    "_nan_to_num": lambda self, nan, posinf, neginf: np.nan_to_num(self, nan=nan, posinf=posinf, neginf=neginf),
    "atan2": np.arctan2, "hypot": np.hypot, "copysign.Tensor": np.copysign,
    "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin,
    "clamp": _clamp, "clamp_min": lambda self, min: np.maximum(self, min),
    "clamp_max": lambda self, max: np.minimum(self, max),
    "where.self": lambda condition, self, other: np.where(condition != 0, self, other),
    "lerp.Scalar": _lerp, "lerp.Tensor": _lerp,
    "addcmul": lambda self, tensor1, tensor2, value: self + value * tensor1 * tensor2,
    "addcdiv": lambda self, tensor1, tensor2, value: self + value * tensor1 / tensor2,
    "eq.Tensor": np.equal, "ne.Tensor": np.not_equal, "lt.Tensor": np.less, "le.Tensor": np.less_equal,
    "gt.Tensor": np.greater, "ge.Tensor": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
    "logical_not": np.logical_not,
    "bitwise_and.Tensor": lambda self, other: np.bitwise_and(_i64(self), _i64(other)),
    "bitwise_or.Tensor": lambda self, other: np.bitwise_or(_i64(self), _i64(other)),
    "bitwise_xor.Tensor": lambda self, other: np.bitwise_xor(_i64(self), _i64(other)),
    "bitwise_not": lambda self, result_dtype: (np.logical_not(self) if result_dtype == "bool"
                                               else np.invert(_i64(self))),
    "bitwise_left_shift.Tensor": _shift_left,
    "bitwise_right_shift.Tensor": _shift_right,
    "clone": lambda self: np.array(self),
    "fill.Scalar": lambda self, value: np.full_like(self, value),
    "copy": lambda self, src, non_blocking: np.broadcast_to(src, self.shape).copy(),
}

# Non-Tensor argument -> sample value by dtype category. Arguments that take part in type promotion
# (pow's exponent, clamp's bounds) follow the input's category, others (add's alpha) the result's, as
# PyTorch refuses a float alpha for integer results and a non-bool alpha for non-bool results.
SCALAR_SAMPLES = {
    "alpha": {"bool": True, "integral": 2, "floating": -1.5},
    "exponent": {"bool": 2, "integral": 3, "floating": 3.0},
    "self": {"bool": True, "integral": 2, "floating": 1.5},  # pow.Scalar's number base
    "value": {"bool": True, "integral": 3, "floating": -2.5},
    "min": {"bool": False, "integral": 1, "floating": -0.5},
    "max": {"bool": True, "integral": 3, "floating": 0.75},
    "weight": {"bool": True, "integral": 1, "floating": 0.3},
    "eps": {"bool": 0.1, "integral": 0.1, "floating": 0.1},
    "decimals": {"bool": 1, "integral": 1, "floating": 1},
    "n": {"bool": 2, "integral": 2, "floating": 2},  # polygamma's order (3 would overflow float16 near 0.1)
    "non_blocking": {"bool": False, "integral": False, "floating": False},
    "nan": {"bool": 0.5, "integral": 0.5, "floating": 0.5},
    "posinf": {"bool": 100.0, "integral": 100.0, "floating": 100.0},
    "neginf": {"bool": -100.0, "integral": -100.0, "floating": -100.0},
}
# Samples PyTorch refuses although the result dtype is supported: op -> predicate over the args. The op
# must raise a RuntimeError from its `checks:` (the message starts with the op's name).
def _has_bool(*names):
    return lambda args: any(isinstance(args[n], bool) or (isinstance(args[n], tl.Tensor) and args[n].dtype == tl.bool)
                            for n in names)


def _integral(*names):
    def integral(x):
        return (isinstance(x, int) or (isinstance(x, tl.Tensor) and not x.dtype.is_floating_point))
    return lambda args: all(integral(args[n]) for n in names)


REFUSED_SAMPLES = {"sub.Tensor": _has_bool("self", "other"), "rsub.Tensor": _has_bool("self", "other"),
                   "addcdiv": _integral("tensor1", "tensor2")}
# Tensor arguments that are always bool (where's condition).
BOOL_TENSOR_ARGS = {"condition"}
# Ops that divide integers: their divisors get no zeros in integer samples (zero divisors raise, tested apart).
INTEGER_DIVISION = {"floor_divide", "_div_trunc", "remainder.Tensor", "fmod.Tensor"}
# Python numbers standing in for non-self Tensor arguments.
NUMBER_SAMPLES = {"number_int": 3, "number_float": -1.5, "number_bool": True}

# Layouts: shapes of (self, other tensor args). "noncontiguous" builds (3, 2) and transposes.
LAYOUTS = {
    "contiguous": ((2, 3), (2, 3)),
    "noncontiguous": ((2, 3), (2, 3)),
    "broadcast_other": ((2, 3), (3,)),
    "broadcast_both": ((2, 1), (1, 3)),
    "zero_dim": ((), ()),
    "zero_dim_other": ((2, 3), ()),
    "empty": ((0, 3), (3,)),
    "number_int": ((2, 3), None),
    "number_float": ((2, 3), None),
    "number_bool": ((2, 3), None),
}
UNARY_LAYOUTS = ("contiguous", "noncontiguous", "zero_dim", "empty")


def tensor_args(nf):
    return [a for a in nf.schema.arguments if a.type.is_tensor]


def layouts_for(nf):
    if len(tensor_args(nf)) == 1:
        return UNARY_LAYOUTS
    numbers_ok = all(allows_number(nf, PyParam(a.name, a.type, a.default, a.kwonly)) for a in tensor_args(nf)[1:])
    out = []
    for name in LAYOUTS:
        if name == "broadcast_both" and nf.meta == "same_as_self":
            continue  # self is the output: it must have the broadcast shape
        if name in NUMBER_SAMPLES and not numbers_ok:
            continue
        out.append(name)
    return tuple(out)


# ------------------------------------------------------------------------------------------ promotion
def promote_types(a, b):
    if a is None or a == b:
        return b
    if b is None:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    fa, fb = a in FLOATING, b in FLOATING
    if fa and fb:
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return max(a, b, key=DTYPES.index)
    if fa or fb:
        return a if fa else b
    if "uint8" in (a, b):
        other = b if a == "uint8" else a
        return "int16" if other == "int8" else other
    return max(a, b, key=DTYPES.index)


def result_type(operands):
    """PyTorch's result_type: dim>0 tensors, then 0-dim tensors, then Python numbers (wrapped)."""
    dim_r = zero_r = wrapped_r = None
    for x in operands:
        if isinstance(x, tl.Tensor):
            d = dtype_name(x.dtype)
            if x.dim() > 0:
                dim_r = promote_types(dim_r, d)
            else:
                zero_r = promote_types(zero_r, d)
        else:
            d = "bool" if isinstance(x, bool) else "int64" if isinstance(x, int) else "float32"
            wrapped_r = promote_types(wrapped_r, d)

    def combine(higher, lower):
        if higher is None:
            return lower
        if higher in FLOATING:
            return higher
        if higher == "bool" or (lower in FLOATING):
            return promote_types(higher, lower)
        return higher

    return combine(dim_r, combine(zero_r, wrapped_r))


def expected_dtype(nf, args):
    kind = nf.promotion.kind
    if kind == "self_dtype":
        return dtype_name(args["self"].dtype)
    common = result_type([args[n] for n in nf.promotion.args])
    if kind == "default":
        return common
    if kind == "int_to_float":
        return common if common in FLOATING else "float32"
    if kind == "int_to_long":
        return common if common in FLOATING else "int64"
    if kind == "always_bool":
        return "bool"
    raise AssertionError(f"test_ops.py: teach expected_dtype promotion '{kind}' ({nf.schema.full_name})")


# ------------------------------------------------------------------------------------------ helpers
def dtype_name(dt):
    return repr(dt).split(".")[-1]


def tl_dtype(name):
    return getattr(tl, name)


def make(shape, dtype, rng, noncontiguous=False, domain=None, nonzero=False):
    """A tensor of `shape` and dtype (a name) with small random values, in `domain` (low, high) when given,
    with no zeros when `nonzero` (integer divisors); transposed when noncontiguous."""
    if noncontiguous:
        assert len(shape) == 2
        return make((shape[1], shape[0]), dtype, rng, domain=domain, nonzero=nonzero).transpose(0, 1)
    lo, hi = domain if domain else (-2, 2)
    if dtype == "bool":
        data = rng.integers(0, 2, size=shape).astype(np.bool_)
    elif dtype == "uint8":
        ulo, uhi = (max(0, math.ceil(lo)), math.floor(hi)) if domain else (0, 8)
        data = rng.integers(ulo, max(ulo, uhi) + 1, size=shape).astype(np.uint8)
    elif dtype in INTEGRAL:
        ilo, ihi = (math.ceil(lo), math.floor(hi)) if domain else (-4, 4)
        data = rng.integers(ilo, max(ilo, ihi) + 1, size=shape).astype(NP_DTYPES[dtype])
    else:
        data = rng.uniform(lo, hi, size=shape)
    if nonzero and dtype != "bool":
        data[data == 0] = 1
    if dtype in ("float16", "bfloat16"):
        t = tl.tensor(data.tolist(), dtype=tl_dtype(dtype)) if data.ndim else tl.tensor(float(data),
                                                                                        dtype=tl_dtype(dtype))
        return t if data.size else tl.empty(shape, dtype=tl_dtype(dtype))
    t = tl.tensor(np.asarray(data, dtype=NP_DTYPES[dtype]))
    assert dtype_name(t.dtype) == dtype
    return t


def to_f64(x):
    if isinstance(x, tl.Tensor):
        return np.array(x.tolist(), dtype=np.float64).reshape(tuple(x.shape))
    return x


def clone(t):
    c = tl.empty(tuple(t.shape), dtype=t.dtype)
    c.copy_(t)
    return c


def rng_for(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def function_of(nf):
    mod = tl
    if nf.python_module:
        mod = functools.reduce(getattr, nf.python_module.split("."), tl)
    return getattr(mod, nf.name)


def split_args(nf, kind, args):
    """args by name as (positional, keyword) in the schema's order: after a missing argument, or from the
    keyword-only ones on, by keyword; a method's self is the object."""
    pos, kw, by_keyword = [], {}, False
    for a in nf.schema.arguments:
        if kind in ("method", "inplace") and a.name == "self":
            continue
        if a.name not in args:
            by_keyword = True
            continue
        if a.kwonly or by_keyword:
            kw[a.name] = args[a.name]
        else:
            pos.append(args[a.name])
    return pos, kw


def call(nf, kind, args, out=None):
    """Calls a variant (function | method | inplace) with args by name, as the schema orders them."""
    pos, kw = split_args(nf, kind, args)
    if out is not None:
        kw["out"] = out
    if kind == "function":
        fn = function_of(nf)
    elif kind == "method":
        fn = getattr(args["self"], nf.name)
    else:
        fn = getattr(args["self"], nf.name + "_")
    return fn(*pos, **kw)


def assert_close(actual, expected_f64, dtype, what=""):
    """Compares a torchlite result with a float64 reference at the result dtype."""
    assert dtype_name(actual.dtype) == dtype, f"{what}: dtype {dtype_name(actual.dtype)}, expected {dtype}"
    assert tuple(actual.shape) == tuple(np.shape(expected_f64)), \
        f"{what}: shape {tuple(actual.shape)}, expected {np.shape(expected_f64)}"
    ref = np.asarray(expected_f64, dtype=np.float64)
    if dtype == "bool":
        np.testing.assert_array_equal(actual.numpy(), ref != 0, err_msg=what)
    elif dtype in INTEGRAL:
        expected = ref.astype(np.int64).astype(NP_DTYPES[dtype])  # wraps like C++
        np.testing.assert_array_equal(actual.numpy(), expected, err_msg=what)
    else:
        rtol, atol = TOLERANCES[dtype]
        np.testing.assert_allclose(to_f64(actual), ref, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def pointwise_args(nf, dtype, layout, rng):
    """Arguments (by name) for one pointwise sample; Scalars are filled in after the result dtype."""
    shapes = LAYOUTS[layout]
    domain = nf.test.domain
    args = {}
    for i, a in enumerate(tensor_args(nf)):
        if i > 0 and layout in NUMBER_SAMPLES:
            args[a.name] = NUMBER_SAMPLES[layout]
            continue
        shape = shapes[0] if i == 0 else shapes[1]
        d = "bool" if a.name in BOOL_TENSOR_ARGS else dtype
        nonzero = i > 0 and nf.schema.full_name in INTEGER_DIVISION
        args[a.name] = make(shape, d, rng, noncontiguous=layout == "noncontiguous", domain=domain, nonzero=nonzero)
    for a in nf.schema.arguments:
        if a.type.is_tensor:
            continue
        if a.name not in SCALAR_SAMPLES:
            if a.default is None:
                pytest.fail(f"add a sample value for argument '{a.name}' of {nf.schema.full_name} to SCALAR_SAMPLES")
            continue
        if a.name in nf.promotion.args:
            args[a.name] = SCALAR_SAMPLES[a.name][dtype_category(dtype)]
    result = expected_dtype(nf, args)
    for a in nf.schema.arguments:
        if not a.type.is_tensor and a.name in SCALAR_SAMPLES and a.name not in args:
            args[a.name] = SCALAR_SAMPLES[a.name][dtype_category(result)]
    return args, result


def reference(nf, args, result_dtype):
    ref = NUMPY_REFS.get(nf.schema.full_name)
    if ref is None:
        pytest.fail(f"add a NumPy reference for {nf.schema.full_name} to NUMPY_REFS in tests/test_ops.py")
    # Arguments in schema order; ufuncs and vectorized functions take them positionally, lambdas by name.
    kwargs = {a.name: to_f64(args[a.name]) for a in nf.schema.arguments if a.name in args}
    with np.errstate(all="ignore"):
        if isinstance(ref, (np.ufunc, np.vectorize)):
            return np.asarray(ref(*kwargs.values()), dtype=np.float64)
        if "result_dtype" in inspect.signature(ref).parameters:
            kwargs["result_dtype"] = result_dtype
        return np.asarray(ref(**kwargs), dtype=np.float64)


def primary_kind(nf):
    for kind in ("function", "method", "inplace"):
        if kind in nf.variants:
            return kind
    raise AssertionError(nf.schema.full_name)


def run_primary(nf, args):
    kind = primary_kind(nf)
    if kind == "inplace":
        args = dict(args, self=clone(args["self"]))
    return call(nf, kind, args)


def ids(fs):
    return [nf.schema.full_name for nf in fs]


# ------------------------------------------------------------------------------------------ pointwise
def test_schema_has_pointwise_ops():
    assert {"add.Tensor", "mul.Tensor", "exp"} <= set(BY_NAME) and len(POINTWISE) >= 5


@pytest.mark.parametrize("nf", POINTWISE, ids=ids(POINTWISE))
def test_pointwise_has_numpy_reference(nf):
    assert nf.schema.full_name in NUMPY_REFS, f"add a NumPy reference for {nf.schema.full_name}"


POINTWISE_CASES = [pytest.param(nf, dtype, layout, id=f"{nf.schema.full_name}-{dtype}-{layout}")
                   for nf in POINTWISE for dtype in DTYPES for layout in layouts_for(nf)]


@pytest.mark.parametrize("nf,dtype,layout", POINTWISE_CASES)
def test_pointwise_matches_numpy(nf, dtype, layout):
    args, result = pointwise_args(nf, dtype, layout, rng_for(nf.schema.full_name, dtype, layout))
    if result not in nf.dtype_list:
        # Dtype coverage is pinned to the schema: outside it, a clear RuntimeError naming the dtype.
        # (or a `checks:` message of the op, which names it: sub refuses bool operands first).
        with pytest.raises(RuntimeError, match=f"'{TORCH_TYPE_NAMES[result]}'|^{nf.name}: "):
            run_primary(nf, args)
        return
    refused = REFUSED_SAMPLES.get(nf.schema.full_name)
    if refused is not None and refused(args):
        with pytest.raises(RuntimeError, match=f"^{nf.name}: "):
            run_primary(nf, args)
        return
    expected = reference(nf, args, result)
    before = {k: to_f64(v) for k, v in args.items() if isinstance(v, tl.Tensor)}
    actual = run_primary(nf, args)
    assert_close(actual, expected, result, f"{nf.schema.full_name} {dtype} {layout}")
    if primary_kind(nf) != "inplace":
        for k, v in before.items():
            np.testing.assert_array_equal(to_f64(args[k]), v, err_msg=f"{nf.name} modified its input '{k}'")


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
    assert_close(actual, expected, dtype, expr)
    # The schema-driven result_type agrees with the table (it drives test_pointwise_matches_numpy).
    if expr.startswith(("a + b", "a * b")):
        assert result_type([env["a"], env["b"]]) == dtype


# ------------------------------------------------------------------------------------------ variants
# Samples for ops without a pointwise expression: full name -> args by name (built on demand).
def _f32(shape, noncontig=False):
    return make(shape, "float32", rng_for(shape, noncontig), noncontiguous=noncontig)


OTHER_SAMPLES = {
    "empty": lambda: {"size": (2, 3)},
    "full": lambda: {"size": (2, 3), "fill_value": 1.5},
    "zeros": lambda: {"size": (2, 3)},
    "ones": lambda: {"size": (2, 3), "dtype": tl.int32},
    "sum": lambda: {"self": _f32((2, 3))},
    "copy": lambda: {"self": make((2, 3), "float64", rng_for("copy")), "src": _f32((2, 3), True)},
    "sum.dim_IntList": lambda: {"self": _f32((2, 3, 4)), "dim": (0, 2), "keepdim": True},
    "mm": lambda: {"self": _f32((2, 3)), "mat2": _f32((3, 4), True)},
    "view": lambda: {"self": _f32((2, 3)), "size": (3, -1)},
    "transpose.int": lambda: {"self": _f32((2, 3, 4)), "dim0": -1, "dim1": 0},
    "div.Tensor_mode": lambda: {"self": _f32((2, 3)), "other": _f32((3,), False) + 3, "rounding_mode": "floor"},
    "square": lambda: {"self": _f32((2, 3))},
    "clamp.Tensor": lambda: {"self": _f32((2, 3)), "min": _f32((3,)), "max": _f32((2, 1)) + 1},
    "clip": lambda: {"self": _f32((2, 3)), "min": -0.5, "max": 0.5},
    # random (tags: [random]): compared after re-seeding the default generator before each call
    "uniform": lambda: {"self": _f32((2, 3)), "from": -2.0, "to": 3.0},
    "normal.functional": lambda: {"self": _f32((2, 3), True), "mean": 1.0, "std": 2.0},
    "random.from": lambda: {"self": _f32((2, 3)), "from": -5, "to": 7},
    "random.to": lambda: {"self": make((2, 3), "int32", rng_for("random.to")), "to": 100},
    "random": lambda: {"self": make((2, 3), "int16", rng_for("random"))},
    "exponential": lambda: {"self": _f32((2, 3)), "lambd": 2.0},
    "bernoulli": lambda: {"self": tl.full((2, 3), 0.25)},
    "bernoulli.p": lambda: {"self": _f32((2, 3)), "p": 0.3},
    "bernoulli.Tensor": lambda: {"self": make((2, 3), "int64", rng_for("bernoulli")), "p": tl.full((3,), 0.6)},
    "normal.Tensor_Tensor": lambda: {"mean": _f32((2, 1)), "std": _f32((3,)).abs()},
    "normal.Tensor_float": lambda: {"mean": _f32((2, 3)), "std": 0.5},
    "normal.float_Tensor": lambda: {"mean": -1.0, "std": _f32((2, 3)).abs()},
    "normal.float_float": lambda: {"mean": 2.0, "std": 3.0, "size": (2, 3)},
    "rand": lambda: {"size": (2, 3)},
    "randn": lambda: {"size": (2, 3), "dtype": tl.float64},
    "randint": lambda: {"high": 10, "size": (2, 3)},
    "randint.low": lambda: {"low": -3, "high": 3, "size": (2, 3), "dtype": tl.int8},
    "randperm": lambda: {"n": 6},
    "rand_like": lambda: {"self": _f32((2, 3))},
    "randn_like": lambda: {"self": _f32((2, 3)), "dtype": tl.float64},
    "randint_like": lambda: {"self": _f32((2, 3)), "high": 5},
    "randint_like.low_dtype": lambda: {"self": _f32((2, 3)), "low": 2, "high": 9, "dtype": tl.int32},
}

# Each op family added since keeps its samples and error cases in its own module, tests/cases_<family>.py:
# `samples(h)` returns {full name: lambda -> args by name} (h is this module, for make/_f32/rng_for) and
# `numpy_cases(h)` returns {full name: (sample, NumPy reference)} like SHAPE_CASES below (the sample serves
# as the op's sample too), and `ERRORS` lists (code, exception type, message parts) like ERROR_CASES.
FAMILIES = [importlib.import_module(f"cases_{f}") for f in ("creation", "reductions", "linalg", "indexing")]
for _family in FAMILIES:
    NUMPY_REFS.update(getattr(_family, "POINTWISE_REFS", {}))  # references of a family's pointwise ops
    _dup = set(_family.samples(sys.modules[__name__])) & set(OTHER_SAMPLES)
    assert not _dup, f"{_family.__name__}: samples given twice: {_dup}"
    OTHER_SAMPLES.update(_family.samples(sys.modules[__name__]))

# Shape, view and join ops: (sample args, NumPy reference of the same args as float64 arrays). The sample
# also serves the variant and wrong-type tests.
_X = lambda: _f32((2, 3, 4))  # noqa: E731
_XT = lambda: _f32((4, 3), True)  # noqa: E731  (non-contiguous)
SHAPE_CASES = {
    "view_as": (lambda: {"self": _X(), "other": _f32((6, 4))}, lambda self, other: self.reshape(other.shape)),
    "reshape": (lambda: {"self": _XT(), "shape": (2, -1)}, lambda self, shape: self.reshape(shape)),
    "reshape_as": (lambda: {"self": _X(), "other": _f32((4, 6))}, lambda self, other: self.reshape(other.shape)),
    "permute": (lambda: {"self": _X(), "dims": (2, 0, -2)}, lambda self, dims: np.transpose(self, dims)),
    "swapaxes": (lambda: {"self": _X(), "axis0": 0, "axis1": -1}, lambda self, axis0, axis1: np.swapaxes(self, axis0, axis1)),
    "swapdims": (lambda: {"self": _X(), "dim0": 1, "dim1": 2}, lambda self, dim0, dim1: np.swapaxes(self, dim0, dim1)),
    "movedim.intlist": (lambda: {"self": _X(), "source": (0, 1), "destination": (2, 0)},
                        lambda self, source, destination: np.moveaxis(self, source, destination)),
    "movedim.int": (lambda: {"self": _X(), "source": 0, "destination": -1},
                    lambda self, source, destination: np.moveaxis(self, source, destination)),
    "moveaxis.int": (lambda: {"self": _X(), "source": 2, "destination": 0},
                     lambda self, source, destination: np.moveaxis(self, source, destination)),
    "t": (lambda: {"self": _f32((2, 3))}, lambda self: self.T),
    "expand": (lambda: {"self": _f32((3, 1)), "size": (2, -1, 4)}, lambda self, size: np.broadcast_to(self, (2, 3, 4))),
    "expand_as": (lambda: {"self": _f32((3, 1)), "other": _X()}, lambda self, other: np.broadcast_to(self, other.shape)),
    "broadcast_to": (lambda: {"self": _f32((4,)), "size": (2, 3, 4)}, lambda self, size: np.broadcast_to(self, size)),
    "broadcast_tensors": (lambda: {"tensors": (_f32((3, 1)), _f32((4,)))},
                          lambda tensors: tuple(np.broadcast_arrays(*tensors))),
    "squeeze": (lambda: {"self": _f32((2, 1, 3, 1))}, lambda self: np.squeeze(self)),
    "squeeze.dim": (lambda: {"self": _f32((2, 1, 3)), "dim": -2}, lambda self, dim: np.squeeze(self, dim)),
    "squeeze.dims": (lambda: {"self": _f32((1, 2, 1, 3)), "dim": (0, -2, 1)}, lambda self, dim: self.reshape(2, 3)),
    "unsqueeze": (lambda: {"self": _X(), "dim": -1}, lambda self, dim: np.expand_dims(self, dim)),
    "flatten.using_ints": (lambda: {"self": _X(), "start_dim": 1}, lambda self, start_dim: self.reshape(2, 12)),
    "unflatten.int": (lambda: {"self": _X(), "dim": -1, "sizes": (2, -1)}, lambda self, dim, sizes: self.reshape(2, 3, 2, 2)),
    "select.int": (lambda: {"self": _X(), "dim": 1, "index": -1}, lambda self, dim, index: self[:, -1]),
    "narrow": (lambda: {"self": _X(), "dim": 2, "start": 1, "length": 2}, lambda self, dim, start, length: self[:, :, 1:3]),
    "_slice": (lambda: {"self": _X(), "dim": 2, "start": -3, "end": 100, "step": 2},
               lambda self, dim, start, end, step: self[:, :, -3:100:2]),
    "split.Tensor": (lambda: {"self": _X(), "split_size": 3, "dim": -1},
                     lambda self, split_size, dim: (self[..., :3], self[..., 3:])),
    "split_with_sizes": (lambda: {"self": _X(), "split_sizes": (1, 0, 2), "dim": 1},
                         lambda self, split_sizes, dim: (self[:, :1], self[:, 1:1], self[:, 1:])),
    "chunk": (lambda: {"self": _f32((5, 2)), "chunks": 3}, lambda self, chunks: (self[:2], self[2:4], self[4:])),
    "tensor_split.sections": (lambda: {"self": _f32((7,)), "sections": 3},
                              lambda self, sections: tuple(np.array_split(self, 3))),
    "tensor_split.indices": (lambda: {"self": _f32((7,)), "indices": (2, 9, 1)},
                             lambda self, indices: (self[:2], self[2:9], self[9:1], self[1:])),
    "unbind.int": (lambda: {"self": _f32((2, 3)), "dim": 1}, lambda self, dim: tuple(self[:, i] for i in range(3))),
    "as_strided": (lambda: {"self": _f32((6,)), "size": (2, 2), "stride": (1, 2), "storage_offset": 1},
                   lambda self, size, stride, storage_offset: np.array([[self[1], self[3]], [self[2], self[4]]])),
    "unfold": (lambda: {"self": _f32((5, 2)), "dimension": 0, "size": 2, "step": 2},
               lambda self, dimension, size, step: np.stack([self[0:2].T, self[2:4].T])),
    "diagonal": (lambda: {"self": _X(), "offset": 1, "dim1": 2, "dim2": 1},
                 lambda self, offset, dim1, dim2: np.diagonal(self, offset, 2, 1)),
    "contiguous": (lambda: {"self": _XT()}, lambda self: self),
    "_to_copy": (lambda: {"self": _X(), "dtype": tl.float64}, lambda self, dtype: self),
    "to.dtype": (lambda: {"self": _X(), "dtype": tl.float64}, lambda self, dtype: self),
    "to.device": (lambda: {"self": _X(), "device": "cpu", "dtype": tl.int32}, lambda self, device, dtype: np.trunc(self)),
    "to.other": (lambda: {"self": _X(), "other": tl.ones(1, dtype=tl.float16)},
                 lambda self, other: self.astype(np.float16).astype(np.float64)),
    "type_as": (lambda: {"self": _X(), "other": tl.ones(1, dtype=tl.int64)}, lambda self, other: np.trunc(self)),
    "cat": (lambda: {"tensors": (_f32((2, 3)), _f32((2, 1), False), _f32((0,))), "dim": 1},
            lambda tensors, dim: np.concatenate(tensors[:2], 1)),
    "concat": (lambda: {"tensors": (_f32((2, 3)), _f32((1, 3))), "dim": 0}, lambda tensors, dim: np.concatenate(tensors)),
    "stack": (lambda: {"tensors": (_f32((2, 3)), _f32((2, 3), True)), "dim": -1}, lambda tensors, dim: np.stack(tensors, -1)),
    "hstack": (lambda: {"tensors": (_f32((2, 3)), _f32((2, 1)))}, lambda tensors: np.hstack(tensors)),
    "vstack": (lambda: {"tensors": (_f32((3,)), _f32((2, 3)))}, lambda tensors: np.vstack(tensors)),
    "dstack": (lambda: {"tensors": (_f32((3,)), _f32((1, 3)))}, lambda tensors: np.dstack(tensors)),
    "repeat": (lambda: {"self": _f32((2, 3)), "repeats": (2, 1, 3)}, lambda self, repeats: np.tile(self, repeats)),
    "tile": (lambda: {"self": _X(), "dims": (2, 1)}, lambda self, dims: np.tile(self, dims)),
    "flip": (lambda: {"self": _XT(), "dims": (0, -1)}, lambda self, dims: np.flip(self, dims)),
    "fliplr": (lambda: {"self": _X()}, lambda self: np.fliplr(self)),
    "flipud": (lambda: {"self": _X()}, lambda self: np.flipud(self)),
    "roll": (lambda: {"self": _X(), "shifts": (1, -5), "dims": (0, 2)},
             lambda self, shifts, dims: np.roll(self, shifts, dims)),
    "rot90": (lambda: {"self": _X(), "k": -1, "dims": (1, 2)}, lambda self, k, dims: np.rot90(self, k, dims)),
    "repeat_interleave.Tensor": (lambda: {"repeats": tl.tensor([2, 0, 1, 3])},
                                 lambda repeats: np.repeat(np.arange(len(repeats)), repeats.astype(np.int64))),
    "repeat_interleave.self_Tensor": (lambda: {"self": _X(), "repeats": tl.tensor([1, 0, 2]), "dim": -2},
                                      lambda self, repeats, dim: np.repeat(self, repeats.astype(np.int64), dim)),
    "repeat_interleave.self_int": (lambda: {"self": _XT(), "repeats": 2},
                                   lambda self, repeats: np.repeat(self, repeats)),
}
for _family in FAMILIES:
    _cases = _family.numpy_cases(sys.modules[__name__])
    assert not set(_cases) & set(SHAPE_CASES), f"{_family.__name__}: cases given twice"
    SHAPE_CASES.update(_cases)
for _name, (_sample, _ref) in SHAPE_CASES.items():
    OTHER_SAMPLES[_name] = _sample


def _f64_arg(v):
    if isinstance(v, tl.Tensor):
        return to_f64(v)
    if isinstance(v, (list, tuple)) and v and isinstance(v[0], tl.Tensor):
        return tuple(to_f64(t) for t in v)
    return v


SHAPE_OPS = [nf for nf in FUNCTIONS if nf.schema.full_name in SHAPE_CASES]


def test_shape_cases_cover_the_schema():
    covered = {nf.schema.full_name for nf in SHAPE_OPS}
    assert len(covered) == len(SHAPE_CASES), set(SHAPE_CASES) - covered


@pytest.mark.parametrize("nf", SHAPE_OPS, ids=ids(SHAPE_OPS))
def test_shape_op_matches_numpy(nf):
    sample, ref = SHAPE_CASES[nf.schema.full_name]
    args = sample()
    expected = ref(**{k: _f64_arg(v) for k, v in args.items()})
    actual = call(nf, primary_kind(nf), args)
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), (actual, len(expected))
        pairs = list(zip(actual, expected))
    else:
        pairs = [(actual, expected)]
    for a, e in pairs:
        assert tuple(a.shape) == np.shape(e), f"{nf.schema.full_name}: shape {tuple(a.shape)}, expected {np.shape(e)}"
        np.testing.assert_array_equal(to_f64(a), e, err_msg=nf.schema.full_name)
    if nf.schema.is_view:
        assert actual._base is not None, f"{nf.schema.full_name} returns a view"


def variant_sample(nf):
    if nf.kind == "pointwise":
        dtype = "float32" if "float32" in nf.dtype_list else nf.dtype_list[0]
        args, _ = pointwise_args(nf, dtype, "broadcast_other", rng_for("variants", nf.schema.full_name))
        return args
    if nf.schema.full_name not in OTHER_SAMPLES:
        pytest.fail(f"add a sample for {nf.schema.full_name} to OTHER_SAMPLES in tests/test_ops.py")
    return OTHER_SAMPLES[nf.schema.full_name]()


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


def reseed(nf):
    """Random ops (tags: [random]) draw from the default generator: re-seed it before each variant so that
    they draw the same numbers."""
    if "random" in nf.tags:
        tl.manual_seed(1234)


@pytest.mark.parametrize("nf", FUNCTIONS, ids=ids(FUNCTIONS))
def test_variant_consistency(nf):
    args = variant_sample(nf)
    values = nf.name != "empty"
    results = {}
    for kind in ("function", "method"):
        if kind in nf.variants:
            reseed(nf)
            results[kind] = call(nf, kind, args)
    if "inplace" in nf.variants:
        c = clone(args["self"])
        v0 = c._version
        reseed(nf)
        r = call(nf, "inplace", dict(args, self=c))
        assert r is c, f"{nf.name}_ returns self"
        if nf.promotion is not None and nf.promotion.kind == "always_bool":  # a.eq_(b) keeps a's dtype: compare as bool
            assert r.dtype == args["self"].dtype
            r = r.ne(0)
        if nf.schema.is_view:
            assert c._version == v0  # metadata change only
        else:
            assert c._version > v0, f"{nf.name}_ bumps _version"
        results["inplace"] = r
    if not results:
        pytest.fail(f"{nf.schema.full_name} has no callable variant")
    first_kind, first = next(iter(results.items()))
    for kind, r in results.items():
        same_result(r, first, values)
    if "out" in nf.variants:
        # Ops with several returns take a tuple of targets (out=(values, indices)) and return them.
        firsts = first if isinstance(first, tuple) else (first,)
        for wrong in (False, True):
            outs = tuple(tl.empty((7,) if wrong else tuple(f.shape), dtype=f.dtype) for f in firsts)
            v0 = [o._version for o in outs]
            reseed(nf)
            r = call(nf, "function", args, out=outs if isinstance(first, tuple) else outs[0])
            rs = tuple(r) if isinstance(first, tuple) else (r,)
            assert all(a is b for a, b in zip(rs, outs)), f"{nf.name}(out=) returns out"
            assert all(o._version > v for o, v in zip(outs, v0)), f"{nf.name}(out=) bumps out._version"
            for o, f in zip(outs, firsts):
                same_result(o, f, values)  # resized when wrongly shaped


@pytest.mark.parametrize("nf", [nf for nf in FUNCTIONS if "method" in nf.variants or "inplace" in nf.variants],
                         ids=ids([nf for nf in FUNCTIONS if "method" in nf.variants or "inplace" in nf.variants]))
def test_variants_are_bound(nf):
    for kind, name in (("method", nf.name), ("inplace", nf.name + "_")):
        # Another overload of the name may bind it (normal_ comes from normal.functional, not normal.Tensor_Tensor).
        bound_by_overload = any(kind in o.variants for o in FUNCTIONS if o.name == nf.name)
        assert bound_by_overload == hasattr(tl.Tensor, name), f"Tensor.{name} vs variants {nf.variants}"
    assert any("function" in o.variants for o in FUNCTIONS if o.name == nf.name) == hasattr(tl, nf.name)


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
    assert_close(tl.sum(x, **kw), expected, result, name)
    assert_close(x.sum(**kw), expected, result, name + " method")


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
        assert_close(r, expected, dtype, "mm")
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
ERROR_CASES = [
    ("tl.add(a, 'x')", "TypeError", ["add()", "other", "str"]),
    ("a.mul(None)", "TypeError", ["mul()", "NoneType"]),
    ("tl.pow(a, 'x')", "TypeError", ["pow()", "exponent"]),
    ("tl.add(a, a, alpha='x')", "TypeError", ["add()", "alpha"]),
    ("tl.sum(a, 'x')", "TypeError", ["sum()"]),
    ("tl.empty('abc')", "TypeError", ["empty()", "size"]),
    ("tl.zeros((2,), dtype='float32')", "TypeError", ["zeros()", "dtype"]),
    ("tl.add(a, a, out=5)", "TypeError", ["add()", "out"]),
    ("tl.add(tl.ones(2), tl.ones(3))", "RuntimeError",
     ["The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"]),
    ("tl.mul(tl.ones(2, 3), tl.ones(2, 2))", "RuntimeError",
     ["The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"]),
    ("tl.ones(3).add_(tl.ones(2, 3))", "RuntimeError", ["output with shape [3] doesn't match the broadcast shape [2, 3]"]),
    ("i.add_(tl.ones(3))", "RuntimeError", ["result type Float can't be cast to the desired output type Long"]),
    ("i.add_(1.5)", "RuntimeError", ["result type Float can't be cast to the desired output type Long"]),
    ("i.exp_()", "RuntimeError", ["result type Float can't be cast to the desired output type Long"]),
    ("tl.neg(a, out=tl.empty(6, dtype=tl.int32))", "RuntimeError",
     ["neg", "Expected out tensor to have dtype float, but got int instead"]),  # exact_out_dtype, as PyTorch
    ("tl.exp(a, out=tl.empty(6, dtype=tl.int32))", "RuntimeError", ["result type Float can't be cast", "Int"]),
    ("tl.neg(b)", "RuntimeError", ["neg", "Negation, the `-` operator, on a bool tensor is not supported"]),
    ("tl.abs(b)", "NotImplementedError", ["abs", "'Bool'"]),
    ("b.neg_()", "RuntimeError", ["neg", "bool tensor"]),
    ("i // 0", "RuntimeError", ["floor_divide", "ZeroDivisionError"]),
    ("tl.remainder(i, tl.zeros(3, dtype=tl.int64))", "RuntimeError", ["remainder", "ZeroDivisionError"]),
    ("tl.fmod(i, 0)", "RuntimeError", ["fmod", "ZeroDivisionError"]),
    ("tl.div(i, 0, rounding_mode='trunc')", "RuntimeError", ["ZeroDivisionError"]),
    ("tl.div(a, a, rounding_mode='round')", "RuntimeError", ["rounding_mode", "'round'"]),
    ("tl.clamp(a)", "RuntimeError", ["clamp", "At least one of 'min' or 'max' must not be None"]),
    ("tl.where(a, a, a)", "RuntimeError", ["where expected condition to be a boolean tensor", "Float"]),
    ("b - b", "RuntimeError", ["sub", "two bool tensors"]),
    ("~a", "TypeError", ["~ (operator.invert)"]),
    ("bool(a)", "RuntimeError", ["Boolean value of Tensor with more than one value is ambiguous"]),
    ("len(tl.tensor(1.0))", "TypeError", ["len() of a 0-d tensor"]),
    ("tl.lerp(a, a.double(), 0.5)", "RuntimeError", ["lerp", "for `end`"]),
    ("tl.addcdiv(i, i, i)", "RuntimeError", ["addcdiv", "Integer division with addcdiv is no longer supported"]),
    ("tl.bitwise_and(a, a)", "NotImplementedError", ["bitwise_and", "'Float'"]),
    ("a.permute(0)", "RuntimeError", ["permute", "input.dim() = 2 is not equal to len(dims) = 1"]),
    ("a.permute(0, 0)", "RuntimeError", ["permute(): duplicate dims are not allowed."]),
    ("a.expand(3, 3)", "RuntimeError", ["The expanded size of the tensor (3) must match the existing size (2) at "
                                        "non-singleton dimension 0"]),
    ("a.expand(3)", "RuntimeError", ["the number of sizes provided (1) must be greater or equal"]),
    ("a.select(0, 5)", "IndexError", ["select(): index 5 out of range for tensor of size [2, 3] at dimension 0"]),
    ("a.narrow(1, 2, 2)", "RuntimeError", ["start (2) + length (2) exceeds dimension size (3)."]),
    ("tl.ones(2, 3, 4).t()", "RuntimeError", ["t() expects a tensor with <= 2 dimensions, but self is 3D"]),
    ("a.reshape(4, 2)", "RuntimeError", ["shape '[4, 2]' is invalid for input of size 6"]),
    ("tl.cat([a, tl.ones(3, 3)], 1)", "RuntimeError", ["Sizes of tensors must match except in dimension 1. "
                                                        "Expected size 2 but got size 3 for tensor number 1"]),
    ("tl.cat([])", "RuntimeError", ["expected a non-empty list of Tensors"]),
    ("tl.stack([a, tl.ones(3)])", "RuntimeError", ["stack expects each tensor to be equal size"]),
    ("a.split(-1)", "RuntimeError", ["split expects split_size be non-negative"]),
    ("a.chunk(0)", "RuntimeError", ["chunk expects `chunks` to be greater than 0, got: 0"]),
    ("a.repeat(2)", "RuntimeError", ["Number of dimensions of repeat dims can not be smaller"]),
    ("tl.as_strided(a, (10,), (1,))", "RuntimeError", ["out of bounds for storage of size 24"]),
    ("a.unfold(1, 4, 1)", "RuntimeError", ["maximum size for tensor at dimension 1 is 3 but size is 4"]),
    ("a.flatten(1, 0)", "RuntimeError", ["start_dim cannot come after end_dim"]),
    ("a.unflatten(1, (2, 2))", "RuntimeError", ["don't multiply up to the size of dim 1 (3)"]),
    ("tl.movedim(a, (0, 1), (1,))", "RuntimeError", ["movedim: Invalid source or destination dims"]),
    ("a.to('abc')", "RuntimeError", ["device string"]),
    ("tl.diagonal(a, 0, 1, 1)", "RuntimeError", ["diagonal dimensions cannot be identical 1, 1"]),
    ("tl.sum(a, 2)", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], but got 2)"]),
    ("tl.sum(a, (0, -3))", "IndexError", ["Dimension out of range", "-3"]),
    ("a.transpose(0, 5)", "IndexError", ["Dimension out of range", "5"]),
    ("tl.ones(()).transpose(0, 1)", "IndexError", ["Dimension out of range"]),
    ("tl.empty((-1,))", "RuntimeError", ["negative dimension -1"]),
    ("tl.full((2, -3), 1)", "RuntimeError", ["negative dimension -3"]),
    ("tl.empty((2**62,))", "RuntimeError", ["overflow"]),
    ("tl.ones((2**31, 2**31))", "RuntimeError", ["overflow"]),
    ("a.view(-2)", "RuntimeError", ["-2"]),
    ("a.view(2**62, -1)", "RuntimeError", ["is invalid for input of size 6"]),
    ("tl.mm(tl.ones(2, 3), tl.ones(4, 5))", "RuntimeError", ["mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"]),
    ("tl.mm(tl.ones(2, 3), tl.ones(3, 2, dtype=tl.float64))", "RuntimeError", ["same dtype"]),
    ("tl.ones(2).copy_(tl.ones(3))", "RuntimeError", ["[3]", "[2]"]),
    ("tl.add(a, 2**70)", "RuntimeError", ["Overflow"]),
    ("tl.ones(2).item()", "RuntimeError", ["2 elements cannot be converted to Scalar"]),
    ("tl.tensor([[1, 2], [3]])", "ValueError", ["expected sequence of length 2 at dim 1 (got 1)"]),
    ("tl.tensor([None])", "TypeError", ["invalid data type 'NoneType'"]),
    ("tl.repeat_interleave(tl.tensor([[1]]))", "RuntimeError", ["repeat_interleave only accept 1D vector as repeat"]),
    ("tl.repeat_interleave(tl.tensor([1.0]))", "NotImplementedError", ["repeat_interleave_cpu", "'Float'"]),
    ("tl.repeat_interleave(tl.tensor([-1]))", "RuntimeError", ["repeats can not be negative"]),
    ("a.repeat_interleave(-1)", "RuntimeError", ["Repeats must be non-negative"]),
    ("a.repeat_interleave(2, dim=3)", "IndexError", ["Dimension out of range"]),
    ("a.repeat_interleave(tl.tensor([1, 2]), dim=1)", "RuntimeError",
     ["repeats must have the same size as input along dim, but got repeats.size(0) = 2 and input.size(1) = 3"]),
    ("a.repeat_interleave(2, output_size=5)", "RuntimeError", ["does not match required size"]),
    ("tl.ones(3).expand(2, 3).add_(1)", "RuntimeError",
     ["add", "more than one element of the written-to tensor refers to a single memory location"]),
    ("tl.add(a, 1, out=tl.ones(3).expand(2, 3))", "RuntimeError", ["more than one element of the written-to tensor"]),
    ("tl.ones(3).expand(2, 3).copy_(a)", "RuntimeError", ["more than one element of the written-to tensor"]),
    ("tl.add(a.view(6).narrow(0, 0, 4), 1, out=a.view(6).narrow(0, 1, 4))", "RuntimeError",
     ["some elements of the input tensor and the written-to tensor refer to a single memory location"]),
    ("tl.exp(a.view(6).narrow(0, 0, 4), out=a.view(6).narrow(0, 2, 4))", "RuntimeError",
     ["exp", "some elements of the input tensor and the written-to tensor"]),
    ("a.view(6).narrow(0, 1, 4).copy_(a.view(6).narrow(0, 0, 4))", "RuntimeError", ["some elements of the input"]),
    ("a.add_(a[0])", "RuntimeError", ["some elements of the input tensor and the written-to tensor"]),
    ("tl.mm(a, a.t(), out=tl.empty(0, dtype=tl.float64))", "RuntimeError",
     ["mm", "Expected out tensor to have dtype float, but got double instead"]),
    ("tl.index_select(a, 0, tl.tensor([0]), out=tl.empty(0, dtype=tl.float64))", "RuntimeError",
     ["index_select", "Expected out tensor to have dtype float"]),
    ("tl.nonzero(a, out=tl.empty(0))", "RuntimeError", ["nonzero", "Expected out tensor to have dtype long"]),
    ("tl.isclose(a, 1)", "TypeError", ["isclose()", "other"]),  # no_python_numbers, as PyTorch
    ("tl.equal(a, 1)", "TypeError", ["equal()", "other"]),
]
ERROR_CASES += [case for family in FAMILIES for case in family.ERRORS]

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
    nf = BY_NAME[full_name]
    base = variant_sample(nf)
    results = []
    for kind in [k for k in ("function", "method", "inplace") if k in nf.variants]:
        for a in nf.schema.arguments:
            if kind != "function" and a.name == "self":
                continue
            if a.type.base == "str":
                continue
            args = dict(base)
            if kind == "inplace":
                args["self"] = clone(args["self"])
            # A device may be named by a string: give it a float instead.
            args[a.name] = 3.5 if a.type.base == "Device" else "not a number"
            try:
                call(nf, kind, args)
                results.append({"kind": kind, "arg": a.name, "type": None, "message": ""})
            except Exception as e:  # noqa: BLE001
                results.append({"kind": kind, "arg": a.name, "type": type(e).__name__, "message": str(e)})
    return results


def _fuzzable(nf):
    """Ops with an argument the fuzz replaces (a method-only op of just `self` has none)."""
    kinds = [k for k in ("function", "method", "inplace") if k in nf.variants]
    return any(a.type.base != "str" and (k == "function" or a.name != "self")
               for k in kinds for a in nf.schema.arguments)


FUZZED = [nf for nf in FUNCTIONS if _fuzzable(nf)]
# Ops with an overload taking a Device, which may be written as a string: a stray string is parsed as a
# device and refused by the device parser (a RuntimeError, as PyTorch's x.to('abc')).
STRING_IS_DEVICE = {"to"}
# Arguments that take a string in PyTorch besides numbers (norm's p='fro'): op name -> {argument: message part
# of the RuntimeError a stray string gives}. Filled by the family modules (STRING_ARGS).
STRING_ARGS = {}
for _family in FAMILIES:
    STRING_ARGS.update(getattr(_family, "STRING_ARGS", {}))


@pytest.mark.parametrize("nf", FUZZED, ids=ids(FUZZED))
def test_wrong_argument_types(nf):
    results = isolated_result(nf.schema.full_name, [n.schema.full_name for n in FUZZED], _FUZZ_RUNNER,
                              prefix=[os.path.dirname(os.path.abspath(__file__))])
    assert results
    for r in results:
        where = f"{nf.name} ({r['kind']}) with a str for '{r['arg']}'"
        if nf.name in STRING_IS_DEVICE and r["type"] == "RuntimeError":
            assert "device string" in r["message"], f"{where}: {r['message']}"
            continue
        if r["arg"] in STRING_ARGS.get(nf.name, {}):
            assert r["type"] == "RuntimeError" and STRING_ARGS[nf.name][r["arg"]] in r["message"], \
                f"{where}: {r['type']}: {r['message']}"
            continue
        assert r["type"] == "TypeError", f"{where}: {r['type']}: {r['message']}"
        assert nf.name in r["message"] and r["arg"] in r["message"], f"{where}: {r['message']}"


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
