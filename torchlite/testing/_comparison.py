"""assert_close and the deprecated assert_allclose: PyTorch's comparison of tensors, NumPy arrays, Python
scalars, and sequences and mappings of them, with its default tolerances and its messages.

Nested inputs are first split into pairs of leaves (their structure must match); every pair is then checked,
and the first failure is raised. Tensor values are compared on the host in float64 (int64 for exact integer
comparisons), and the differences a message reports are rounded to the compared dtype, as PyTorch, which
computes them in that dtype, reports them.
"""
import cmath
import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from .. import _C
from .._creation import as_tensor, tensor
from .._tensor import Tensor

# dtype -> (rtol, atol) when neither is given; any other dtype compares exactly. PyTorch's table also lists
# complex32 and the quantized dtypes, which torchlite does not have.
_DEFAULT_TOLERANCES = {
    _C.float16: (1e-3, 1e-5),
    _C.bfloat16: (1.6e-2, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
    _C.complex64: (1.3e-6, 1e-5),
    _C.complex128: (1e-7, 1e-7),
}

# assert_allclose's own (older) table.
_ALLCLOSE_TOLERANCES = {_C.float16: (1e-3, 1e-3), _C.float32: (1e-4, 1e-5), _C.float64: (1e-5, 1e-8)}

# The dtype a Python number stands for (tolerances and type checks).
_NUMBER_DTYPES = {int: _C.int64, float: _C.float64, complex: _C.complex128}


class _Failure(Exception):
    """A failed check: the exception type to raise, its message, and the position of the failing item."""

    def __init__(self, exc_type, message, item=()):
        super().__init__(message)
        self.exc_type, self.message, self.item = exc_type, message, item

    def to_exception(self, msg=None):
        """The exception to raise. A str `msg` replaces the message; a callable one receives it."""
        if isinstance(msg, str):
            return self.exc_type(msg)
        message = self.message
        if self.item:
            message += "\n\nThe failure occurred for item " + "".join(str([key]) for key in self.item)
        return self.exc_type(msg(message) if callable(msg) else message)


class _Unsupported(Exception):
    """Raised by a pair class that cannot handle the inputs: the next one is tried."""


def _tolerances(dtypes, rtol, atol, item):
    """rtol and atol as given, or the largest defaults of `dtypes` when neither is given."""
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                   f"{'rtol' if rtol is None else 'atol'}.", item)
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*(_DEFAULT_TOLERANCES.get(dtype, (0.0, 0.0)) for dtype in dtypes))
    return max(rtols), max(atols)


# ------------------------------------------------------------------------------------------ messages
def _mismatch_message(what, extra, *, rtol, atol, abs_diff, rel_diff, abs_index=None, rel_index=None):
    """'<what> are not close!' (or 'equal', when both tolerances are 0), `extra`, then both differences."""
    equal = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if equal else 'close'}!", "", extra]
    for kind, diff, index, tol in (("absolute", abs_diff, abs_index, atol), ("relative", rel_diff, rel_index, rtol)):
        line = (f"{kind.title()} difference: {diff}" if index is None
                else f"Greatest {kind} difference: {diff} at index {index}")
        lines.append(line if equal else f"{line} (up to {tol} allowed)")
    return "\n".join(lines)


def _scalar_message(actual, expected, *, rtol, atol):
    """The message for two mismatching numbers (Python scalars or the values of 0-dim tensors)."""
    abs_diff = abs(actual - expected)
    rel_diff = math.inf if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.", rtol=rtol, atol=atol,
                             abs_diff=abs_diff, rel_diff=rel_diff)


def _round_to(values, dtype):
    """float64 `values` rounded to a floating `dtype` (bfloat16 included), as float64 again."""
    return tensor(values, dtype=_C.float64).to(dtype).double().numpy()


def _argmax(values):
    """The flat index of the largest value, a NaN being larger than any (the first one wins)."""
    nans = np.flatnonzero(np.isnan(values))
    return int(nans[0]) if nans.size else int(np.argmax(values))


def _tensor_message(actual, expected, matches, dtype, *, rtol, atol):
    """The message for two mismatching arrays: how many elements differ, and where they differ most.

    As PyTorch: the differences are those of `dtype` (of its real dtype for a complex one: |a - b|; for integers
    and bools: int64 differences and relative differences of the default dtype), and matching elements count as
    difference 0."""
    total = matches.size
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    floating = dtype.is_floating_point or dtype.is_complex
    np_type = np.complex128 if dtype.is_complex else np.float64 if floating else np.int64
    actual, expected = (a.ravel().astype(np_type) for a in (actual, expected))
    dtype = dtype.to_real()
    matching = matches.ravel()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        abs_diff = np.abs(actual - expected)
        if floating:
            abs_diff = _round_to(abs_diff, dtype)
        abs_diff[matching] = 0
        rel_diff = _round_to(abs_diff / np.abs(expected), dtype if floating else _C.get_default_dtype())
        rel_diff[matching] = 0
    abs_at, rel_at = _argmax(abs_diff), _argmax(rel_diff)

    def position(flat):
        return tuple(int(i) for i in np.unravel_index(flat, matches.shape))

    return _mismatch_message("Tensor-likes", extra, rtol=rtol, atol=atol,
                             abs_diff=(float if floating else int)(abs_diff[abs_at]), abs_index=position(abs_at),
                             rel_diff=float(rel_diff[rel_at]), rel_index=position(rel_at))


# ------------------------------------------------------------------------------------------ pairs of leaves
class _Pair:
    """Two corresponding leaves of the inputs and their position; check() raises a _Failure on a mismatch."""

    def __init__(self, actual, expected, item):
        self.actual, self.expected, self.item = actual, expected, item

    def fail(self, message):
        raise _Failure(AssertionError, message, self.item)


class _NonePair(_Pair):
    """None against anything: equal only to None."""

    def __init__(self, actual, expected, item, **options):
        if actual is not None and expected is not None:
            raise _Unsupported
        super().__init__(actual, expected, item)

    def check(self):
        if not (self.actual is None and self.expected is None):
            self.fail(f"None mismatch: {self.actual} is not {self.expected}")


class _BoolPair(_Pair):
    """Python (or NumPy) bools: equal or not."""

    def __init__(self, actual, expected, item, **options):
        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), item)

    def check(self):
        if self.actual is not self.expected:
            self.fail(f"Booleans mismatch: {self.actual} is not {self.expected}")


def _as_number(x):
    """A Python int, float or complex (NumPy scalars converted), or None for anything else (bools, ...)."""
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    if isinstance(x, (complex, np.complexfloating)):
        return complex(x)
    return None


class _NumberPair(_Pair):
    """Python (or NumPy) ints, floats and complex numbers, of any of these types; an int stands for int64, a
    float for float64, a complex for complex128."""

    def __init__(self, actual, expected, item, *, rtol, atol, equal_nan, check_dtype, **options):
        actual, expected = _as_number(actual), _as_number(expected)
        if actual is None or expected is None:
            raise _Unsupported
        super().__init__(actual, expected, item)
        dtypes = [_NUMBER_DTYPES[type(x)] for x in (actual, expected)]
        self.rtol, self.atol = _tolerances(dtypes, rtol, atol, item)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def check(self):
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            self.fail(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        if actual == expected or (self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected)):
            return
        abs_diff = abs(actual - expected)
        if math.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(expected):
            return
        self.fail(_scalar_message(actual, expected, rtol=self.rtol, atol=self.atol))


def _to_tensor(x):
    """x as a tensor: NumPy arrays and scalars, and objects NumPy converts (`__array__`), through as_tensor.
    Anything else (Python scalars, sets, strings, ...) and dtypes torchlite lacks: _Unsupported."""
    if isinstance(x, Tensor):
        return x
    if not isinstance(x, (np.ndarray, np.generic)) and not hasattr(x, "__array__"):
        raise _Unsupported
    try:
        return as_tensor(np.asarray(x))
    except Exception:
        raise _Unsupported from None


def _host_array(t):
    """A NumPy array of the tensor's values (bfloat16, which NumPy lacks, as float32)."""
    t = t.detach().cpu().resolve_conj()
    return (t.float() if t.dtype is _C.bfloat16 else t).numpy()


def _isclose(actual, expected, *, rtol, atol, equal_nan):
    """Elementwise |actual - expected| <= atol + rtol * |expected|; NaN equals NaN only with equal_nan, an
    infinity only the same infinity (complex numbers: a NaN in either part is NaN; |.| is the modulus). Without
    tolerances the arrays are compared exactly (in their dtype)."""
    matches = actual == expected
    if equal_nan:
        matches |= np.isnan(actual) & np.isnan(expected)
    if rtol == 0 and atol == 0:
        return matches
    wide = np.complex128 if np.iscomplexobj(actual) or np.iscomplexobj(expected) else np.float64
    actual, expected = actual.astype(wide), expected.astype(wide)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(actual - expected)
        return matches | (np.isfinite(error) & (error <= atol + np.abs(rtol * expected)))


class _TensorPair(_Pair):
    """Tensors, or other tensor-likes of directly related types (NumPy arrays against NumPy arrays)."""

    def __init__(self, actual, expected, item, *, allow_subclasses, rtol, atol, equal_nan, check_device,
                 check_dtype, check_layout, check_stride):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            raise _Unsupported
        actual, expected = _to_tensor(actual), _to_tensor(expected)
        super().__init__(actual, expected, item)
        self.rtol, self.atol = _tolerances((actual.dtype, expected.dtype), rtol, atol, item)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        # Every torchlite tensor is strided: check_layout has nothing to compare.
        self.check_stride = check_stride

    def check(self):
        self._check_attributes(self.actual, self.expected)
        actual, expected = self._equalize(self.actual, self.expected)
        self._check_values(actual, expected)

    def _check_attributes(self, actual, expected):
        """Shape, then stride, device and dtype as asked."""
        def mismatch(name, actual_value, expected_value):
            self.fail(f"The values for attribute '{name}' do not match: {actual_value} != {expected_value}.")

        if actual.shape != expected.shape:
            mismatch("shape", actual.shape, expected.shape)
        if self.check_stride and actual.stride() != expected.stride():
            mismatch("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            mismatch("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            mismatch("dtype", actual.dtype, expected.dtype)

    @staticmethod
    def _equalize(actual, expected):
        """Both of their promoted dtype if their dtypes differ. (Values are compared on the CPU anyway.)"""
        if actual.dtype != expected.dtype:
            dtype = _C.promote_types(actual.dtype, expected.dtype)
            actual, expected = actual.to(dtype), expected.to(dtype)
        return actual, expected

    def _check_values(self, actual, expected):
        a, e = _host_array(actual), _host_array(expected)
        matches = _isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        if matches.all():
            return
        if actual.dim() == 0:
            self.fail(_scalar_message(actual.item(), expected.item(), rtol=self.rtol, atol=self.atol))
        self.fail(_tensor_message(a, e, matches, actual.dtype, rtol=self.rtol, atol=self.atol))


_PAIR_CLASSES = (_NonePair, _BoolPair, _NumberPair, _TensorPair)


# ------------------------------------------------------------------------------------------ nesting
def _is_sequence(x):
    return isinstance(x, Sequence) and not isinstance(x, str)


def _sorted_if_possible(keys):
    try:
        return sorted(keys)
    except TypeError:
        return list(keys)


def _pairs(actual, expected, item, options):
    """The pairs of corresponding leaves of two (nested) inputs, in order; a _Failure if their structure differs
    or if no pair class handles two leaves."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError,
                           f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", item)
        return [pair for i in range(len(actual)) for pair in _pairs(actual[i], expected[i], (*item, i), options)]
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Failure(AssertionError,
                           "The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {_sorted_if_possible(expected_keys - actual_keys)}\n"
                           f"Additional keys in the actual mapping: {_sorted_if_possible(actual_keys - expected_keys)}",
                           item)
        return [pair for key in _sorted_if_possible(actual_keys)
                for pair in _pairs(actual[key], expected[key], (*item, key), options)]
    for pair_class in _PAIR_CLASSES:
        try:
            return [pair_class(actual, expected, item, **options)]
        except _Unsupported:
            continue
    raise _Failure(TypeError,
                   f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.", item)


# ------------------------------------------------------------------------------------------ public
def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Asserts that `actual` and `expected` are close, as torch.testing.assert_close.

    Tensors (and NumPy arrays, compared with NumPy arrays) are close if they have the same shape, device and
    dtype (unless check_device / check_dtype is False: then they are moved to the CPU / promoted to a common
    dtype), the same stride if check_stride, and |actual - expected| <= atol + rtol * |expected| elementwise.
    NaNs are equal only with equal_nan; infinities only to the same infinity. Complex values compare by the
    modulus |actual - expected|. Python ints, floats and complex numbers compare as int64, float64 and complex128
    (of different types only with check_dtype=False); bools and None by identity.
    Sequences and Mappings are close if their lengths / keys match and all their elements are close.

    rtol and atol are given both or neither (ValueError); without them each dtype's defaults apply (float16
    1e-3/1e-5, bfloat16 1.6e-2/1e-5, float32 and complex64 1.3e-6/1e-5, float64 and complex128 1e-7/1e-7, any
    other 0/0; for two dtypes the larger of each). `allow_subclasses=False` requires equal types. Inputs no
    comparison handles: TypeError.
    A mismatch raises AssertionError; `msg` (a str) replaces its message, or (a callable) receives it.
    check_layout is accepted for compatibility: every torchlite tensor is strided.

    Where PyTorch differs, on purpose: a bool against a number (True vs 1) is a TypeError (PyTorch fails
    with an internal RuntimeError), and only tensors, NumPy arrays and scalars, Python numbers and objects
    with `__array__` are tensor-likes (torchlite.tensor() accepts sets, which torch.as_tensor refuses, so
    two sets would otherwise compare as tensors).
    """
    __tracebackhide__ = True  # pytest shows the caller's line
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        pairs = _pairs(actual, expected, (), options)
    except _Failure as failure:  # structure and type errors keep their message, whatever msg says
        raise failure.to_exception() from None
    for pair in pairs:
        try:
            pair.check()
        except _Failure as failure:
            raise failure.to_exception(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated (FutureWarning): use assert_close.

    Non-tensor inputs become tensors (`expected` of `actual`'s dtype); then assert_close with check_dtype=False
    and this function's own default tolerances (float16 1e-3/1e-3, float32 1e-4/1e-5, float64 1e-5/1e-8, any
    other 0/0)."""
    __tracebackhide__ = True
    warnings.warn("`torchlite.testing.assert_allclose()` is deprecated (as `torch.testing.assert_allclose()` is "
                  "since PyTorch 1.12) and will be removed in a future release. Please use "
                  "`torchlite.testing.assert_close()` instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtols, atols = zip(*(_ALLCLOSE_TOLERANCES.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)))
        rtol, atol = max(rtols), max(atols)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
