"""make_tensor: a tensor of random values for tests, as torch.testing.make_tensor.

The values come from torchlite's own random ops (randint, uniform_), so torchlite.manual_seed makes them
reproducible.
"""
import math
import warnings
from collections.abc import Sequence

from .. import _C
from .._dtype_info import finfo, iinfo

_INTEGRAL_TYPES = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.uint16, _C.uint32, _C.uint64)
_FLOATING_TYPES = (_C.float16, _C.bfloat16, _C.float32, _C.float64)
_COMPLEX_TYPES = (_C.complex64, _C.complex128)


def _bounds(low, high, dtype, *, lowest, highest_exclusive, default_low, default_high):
    """[low, high) with the defaults filled in, checked, and clamped to [lowest, highest_exclusive]; for bool
    and integer dtypes both rounded up (randint's high is exclusive too)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in _FLOATING_TYPES:
        warnings.warn("Passing `low==high` to `torchlite.testing.make_tensor` for floating types is deprecated "
                      "(in PyTorch since 2.1). Use `torchlite.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest_exclusive:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest_exclusive})")
    low = min(max(low, lowest), highest_exclusive)
    high = min(max(high, lowest), highest_exclusive)
    if dtype in _FLOATING_TYPES:
        return low, high
    return math.ceil(low), math.ceil(high)


def _uniform_(t, low, high):
    """Fills t with values drawn uniformly from [low, high). uniform_ refuses ranges wider than the dtype's
    largest value: those are drawn at half scale, then doubled."""
    if high - low >= finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def _random_tensor(shape, dtype, device, low, high):
    """A tensor of `shape` with values drawn uniformly from [low, high) (defaults and clamping by dtype)."""
    randint, empty = _C._functions.randint, _C._functions.empty
    if dtype is _C.bool:
        low, high = _bounds(low, high, dtype, lowest=0, highest_exclusive=2, default_low=0, default_high=2)
        return randint(low, high, shape, dtype=dtype, device=device)
    if dtype in _INTEGRAL_TYPES:
        info = iinfo(dtype)
        # randint's bounds are int64: the largest int64 itself cannot be drawn (nor uint64's values past it).
        int64_max = iinfo(_C.int64).max
        highest_exclusive = min(info.max + (0 if dtype is _C.int64 else 1), int64_max)
        # The default -9 is clamped to 0 for the unsigned types.
        low, high = _bounds(low, high, dtype, lowest=info.min, highest_exclusive=highest_exclusive, default_low=-9,
                            default_high=10)
        if dtype in (_C.uint16, _C.uint32, _C.uint64):  # drawn as int64 (randint has no kernel for them), cast
            return randint(low, high, shape, dtype=_C.int64, device=device).to(dtype)
        return randint(low, high, shape, dtype=dtype, device=device)
    if dtype in _COMPLEX_TYPES:  # the real and imaginary parts each drawn as the real dtype's values
        parts = _random_tensor((*shape, 2), dtype.to_real(), device, low, high)
        return _C._functions.view_as_complex(parts)
    if dtype in _FLOATING_TYPES:
        info = finfo(dtype)
        low, high = _bounds(low, high, dtype, lowest=info.min, highest_exclusive=info.max, default_low=-9,
                            default_high=9)
        return _uniform_(empty(shape, dtype=dtype, device=device), low, high)
    raise TypeError(f"The requested dtype '{dtype}' is not supported by torchlite.testing.make_tensor().")


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of the given shape, dtype and device filled with values drawn uniformly from [low, high).

    shape: ints, or one sequence of ints. Without low/high the dtype's defaults apply: bool [0, 2), unsigned
    integers [0, 10), signed integers [-9, 10), floating types [-9, 9), complex types [-9, 9) for the real and the
    imaginary part; given bounds are clamped to the dtype's finite
    range (integer bounds rounded up). requires_grad (floating dtypes only) makes the result a leaf that
    requires grad; noncontiguous=True (with two or more elements) makes it a non-contiguous view; exclude_zero
    replaces zeros by 1 (bool, integers) or finfo(dtype).tiny (floating). memory_format must be None: torchlite
    has no memory formats yet (NotImplementedError otherwise).

    Raises ValueError for low >= high (low == high for floating dtypes is deprecated, a FutureWarning, and gives
    a tensor of low), NaN bounds, an interval wholly outside the dtype's range, requires_grad with a bool or
    integer dtype, noncontiguous together with memory_format; TypeError for an unsupported dtype.
    """
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got {noncontiguous=} and {memory_format=}")
    if memory_format is not None:
        raise NotImplementedError(f"make_tensor(): memory_format={memory_format!r} is not supported: torchlite has "
                                  "no memory formats yet (pass memory_format=None)")
    if requires_grad and (dtype is _C.bool or dtype in _INTEGRAL_TYPES):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")

    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice the last dim, every other element of it taken below
        shape = (*shape[:-1], 2 * shape[-1])
    result = _random_tensor(shape, dtype, device, low, high)
    if noncontiguous:
        result = result[..., 1::2]  # from 1, not 0, so that a missed storage offset shows too
    if exclude_zero and dtype in _COMPLEX_TYPES:  # a zero part of either kind becomes tiny
        parts = _C._functions.view_as_real(result)
        parts[parts == 0] = finfo(dtype).tiny
    elif exclude_zero:
        result[result == 0] = finfo(dtype).tiny if dtype in _FLOATING_TYPES else 1
    if dtype in _FLOATING_TYPES + _COMPLEX_TYPES and requires_grad:
        result.requires_grad_()  # complex: NotImplementedError (torchlite has no complex autograd yet)
    return result
