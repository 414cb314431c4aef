"""Values and tensors for the op database: dtype names, PyTorch's promotion, sample tensors, float64 views.

Dtypes are named by strings here ("float32"), as the schema names them.
"""
from __future__ import annotations

import math
import unittest
import zlib

import numpy as np

import torchlite as tl

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
FLOATING = ("float16", "bfloat16", "float32", "float64")
INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")
# The dtypes ops list only by name (`every`, `*_and_complex` in the schema): PyTorch's barebones unsigned
# types and the complex ones. The op database's pointwise tests run the ten DTYPES; the differential tests
# against PyTorch run these too, where an op lists them.
UNSIGNED = ("uint16", "uint32", "uint64")
COMPLEX = ("complex64", "complex128")
NP_DTYPES = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
             "int64": np.int64, "float16": np.float16, "bfloat16": None, "float32": np.float32,
             "float64": np.float64, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
             "complex64": np.complex64, "complex128": np.complex128}
# PyTorch's names in "not implemented for 'Bool'" and cast messages.
TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                    "float64": "Double", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
                    "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
# (rtol, atol) of a result against a float64 reference, at the result dtype. float16/bfloat16 are loosened:
# the kernels round operands and intermediates of magnitude <= 8 to 11 / 8 significant bits.
TOLERANCES = {"float16": (1e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2), "float32": (1.3e-6, 1e-5),
              "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def dtype_category(dtype: str) -> str:
    return "bool" if dtype == "bool" else "integral" if dtype in INTEGRAL else "floating"


def dtype_name(dt) -> str:
    return repr(dt).split(".")[-1]


def tl_dtype(name: str):
    return getattr(tl, name)


def rng_for(*key):
    """A NumPy generator seeded by `key`: each sample draws the same values on every run."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def make(shape, dtype, rng, noncontiguous=False, domain=None, nonzero=False):
    """A tensor of `shape` and dtype (a name) with small random values, in `domain` (low, high) when given,
    with no zeros when `nonzero` (integer divisors); transposed when noncontiguous."""
    if noncontiguous:
        assert len(shape) == 2
        return make((shape[1], shape[0]), dtype, rng, domain=domain, nonzero=nonzero).transpose(0, 1)
    lo, hi = domain if domain else (-2, 2)
    if dtype == "bool":
        data = rng.integers(0, 2, size=shape).astype(np.bool_)
    elif dtype in ("uint8",) + UNSIGNED:
        ulo, uhi = (max(0, math.ceil(lo)), math.floor(hi)) if domain else (0, 8)
        data = rng.integers(ulo, max(ulo, uhi) + 1, size=shape).astype(NP_DTYPES[dtype])
    elif dtype in COMPLEX:
        data = rng.uniform(lo, hi, size=shape) + 1j * rng.uniform(lo, hi, size=shape)
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


def f32(shape, noncontiguous=False):
    """A float32 sample tensor whose values depend on its shape and layout."""
    return make(shape, "float32", rng_for(shape, noncontiguous), noncontiguous=noncontiguous)


def to_f64(x):
    """A tensor's values as a float64 NumPy array (complex128 for a complex tensor; a sparse tensor's dense
    values); anything else unchanged."""
    if isinstance(x, tl.Tensor):
        if x.is_sparse:
            x = x.to_dense()
        np_type = np.complex128 if x.dtype.is_complex else np.float64
        return np.array(x.tolist(), dtype=np_type).reshape(tuple(x.shape))
    return x


def f64_arg(v):
    """A sample argument as the NumPy references take it: tensors (alone or in a list) as float64 arrays."""
    if isinstance(v, tl.Tensor):
        return to_f64(v)
    if isinstance(v, (list, tuple)) and v and isinstance(v[0], tl.Tensor):
        return tuple(to_f64(t) for t in v)
    return v


def skip_reference(reason):
    """Called by a reference that needs an optional package: the test that asked for it is skipped."""
    raise unittest.SkipTest(reason)


def clone(t):
    c = tl.empty(tuple(t.shape), dtype=t.dtype)
    c.copy_(t)
    return c


def assert_matches_reference(actual, expected_f64, dtype, what="", tolerances=None):
    """A torchlite result against a float64 reference at the result dtype: bool and integer results exactly
    (the reference wraps like C++), floating ones within `tolerances[dtype]` (default TOLERANCES)."""
    assert dtype_name(actual.dtype) == dtype, f"{what}: dtype {dtype_name(actual.dtype)}, expected {dtype}"
    assert tuple(actual.shape) == tuple(np.shape(expected_f64)), \
        f"{what}: shape {tuple(actual.shape)}, expected {np.shape(expected_f64)}"
    ref = np.asarray(expected_f64, dtype=np.float64)
    if dtype == "bool":
        np.testing.assert_array_equal(np.asarray(actual), ref != 0, err_msg=what)
    elif dtype in INTEGRAL:
        expected = ref.astype(np.int64).astype(NP_DTYPES[dtype])
        np.testing.assert_array_equal(np.asarray(actual), expected, err_msg=what)
    else:
        rtol, atol = (tolerances or TOLERANCES)[dtype]
        np.testing.assert_allclose(to_f64(actual), ref, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


# ------------------------------------------------------------------------------------------ promotion
def promote_types(a, b):
    """PyTorch's promote_types over dtype names (None: no operand yet)."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    if a in COMPLEX or b in COMPLEX:
        return "complex128" if "complex128" in (a, b) or "float64" in (a, b) else "complex64"
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


def float64_backward_sample(numpy_cases, name):
    """A gradcheck sample for a backward op (grad_output, self, ...) from its float32 sample: its result has
    self's dtype, so self (which gets no gradient) goes to float64 too, for the numerical derivative to be
    taken in float64."""
    def sample():
        args = numpy_cases()[name][0]()
        return dict(args, grad_output=args["grad_output"].double(), self=args["self"].double())
    return sample
