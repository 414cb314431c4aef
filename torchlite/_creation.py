"""torchlite.tensor(): building a tensor from Python data or a NumPy array."""
import numpy as np

from . import _C

_NP_DTYPES = {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "float16": np.float16, "float32": np.float32, "float64": np.float64,
    "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "complex64": np.complex64,
    "complex128": np.complex128,
}


def _default_complex():
    """PyTorch's default complex dtype: complex128 when the default dtype is float64, complex64 otherwise."""
    return _C.complex128 if _C.get_default_dtype() is _C.float64 else _C.complex64


def _infer(data, dim, shape, kinds):
    """Walks nested sequences: records the shape and the dtypes of the scalars seen (a Python float: the default
    dtype, int: int64, bool: bool, complex: the default complex dtype; a NumPy scalar or a 0-dim tensor: its own
    dtype), which promote together as PyTorch's do."""
    from ._tensor import Tensor

    if isinstance(data, Tensor):
        if data.dim() != 0:
            raise ValueError("only one element tensors can be converted to Python scalars")
        kinds.add(data.dtype)
        return
    if isinstance(data, np.generic) and data.dtype.name in _NP_DTYPES:
        kinds.add(getattr(_C, data.dtype.name))
        return
    if isinstance(data, bool):
        kinds.add(_C.bool)
        return
    if isinstance(data, int):
        kinds.add(_C.int64)
        return
    if isinstance(data, float):
        kinds.add(_C.get_default_dtype())
        return
    if isinstance(data, complex):
        kinds.add(_default_complex())
        return
    if isinstance(data, (dict, set, frozenset)):
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    if isinstance(data, (str, bytes)) or not hasattr(data, "__len__"):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    n = len(data)
    if dim == len(shape):
        shape.append(n)
    elif shape[dim] != n:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {n})")
    scalars = sequences = 0
    for item in data:
        if _is_scalar(item):
            scalars += 1
        else:
            sequences += 1
        if scalars and sequences:  # [1, [2]]: PyTorch refuses a level that mixes numbers and sequences
            got = f"a {type(item).__name__} after a number" if sequences > 1 or not _is_scalar(item) else \
                f"a number ({item!r}) after a sequence"
            raise TypeError(f"new(): the sequence at dim {dim} mixes numbers and sequences: got {got}")
        if dim + 1 < len(shape) and not hasattr(item, "__len__") and not _is_scalar(item):
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
        if dim + 1 < len(shape) and _is_scalar(item):
            raise ValueError(f"expected sequence of length {shape[dim + 1]} at dim {dim + 1} (got scalar)")
        _infer(item, dim + 1, shape, kinds)
        if _is_scalar(item) and len(shape) > dim + 1:
            raise ValueError(f"expected sequence of length {shape[dim + 1]} at dim {dim + 1} (got scalar)")


_PY_DTYPES = {float: _C.float64, int: _C.int64, bool: _C.bool}


def _is_scalar(x):
    from ._tensor import Tensor

    return isinstance(x, (bool, int, float, complex, np.generic)) or (isinstance(x, Tensor) and x.dim() == 0)


def _flatten(data, out):
    from ._tensor import Tensor

    if isinstance(data, Tensor):
        out.append(data.item())
    elif _is_scalar(data):
        out.append(data)
    else:
        for item in data:
            _flatten(item, out)


def _check_integral_fit(flat, np_dtype, build, explicit):
    """PyTorch's checked conversion of each number to an integral dtype: NaN, infinities and values out of range
    are refused (an unsigned dtype takes negative ints down to -max, which wrap, and no negative float); ints
    past int64 without a dtype give PyTorch's ValueError."""
    info = np.iinfo(np_dtype)
    lo = -int(info.max) if info.min == 0 else int(info.min)
    hi = int(info.max)
    for v in flat:
        if isinstance(v, (float, np.floating)):
            # NaN and infinities fail the comparisons; a negative float never fits an unsigned dtype (a negative
            # int wraps), as PyTorch
            ok = v == v and (lo if info.min < 0 else 0) <= v <= hi
        else:
            ok = lo <= int(v) <= hi
        if not ok:
            if not explicit and isinstance(v, int):
                raise ValueError("Overflow when unpacking long long")
            name = repr(build).split(".")[1]
            raise RuntimeError(f"tensor(): value {v} cannot be converted to type {name} without overflow")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """torchlite.tensor(data, *, dtype=None, device=None, requires_grad=False): a new tensor copied from data.

    data is a number, a (nested) sequence of numbers, a NumPy array or a tensor.
    Without dtype, Python floats give the default dtype, ints int64, bools bool,
    NumPy scalars and 0-dim tensors their own dtype, all promoted together as
    PyTorch does; NumPy arrays keep their dtype. dtype may be float, int or bool."""
    from ._tensor import Tensor

    dtype = _PY_DTYPES.get(dtype, dtype)  # dtype=float / int / bool, as PyTorch takes them
    if isinstance(data, np.generic) and data.dtype.kind in "biufc":  # a NumPy scalar keeps its dtype
        data = np.asarray(data)
    if isinstance(data, Tensor):
        src = data
    elif isinstance(data, np.ndarray):
        if data.dtype.kind not in "biufc" or data.dtype.name not in _NP_DTYPES:
            raise TypeError(f"can't convert np.ndarray of type {data.dtype}. The only supported types are: "
                            f"{_SUPPORTED}.")
        src = _C._from_buffer(data)
    else:
        shape, kinds = [], set()
        _infer(data, 0, shape, kinds)
        inferred = None
        for kind in kinds:
            inferred = kind if inferred is None else _C.promote_types(inferred, kind)
        if inferred is None:  # no scalars (an empty sequence)
            inferred = _C.get_default_dtype()
        flat = []
        _flatten(data, flat)
        # Convert straight to the requested dtype (float64 data must not pass through float32);
        # bfloat16, which NumPy lacks, goes through float64.
        build = dtype if dtype is not None else inferred
        np_dtype = _NP_DTYPES.get(repr(build).split(".")[1], np.float64)
        if np.dtype(np_dtype).kind != "c" and any(isinstance(v, (complex, np.complexfloating)) for v in flat):
            raise TypeError(f"tensor(): must be real number, not complex (the dtype is {build})")
        if np.dtype(np_dtype).kind in "iu":
            _check_integral_fit(flat, np_dtype, build, explicit=dtype is not None)
            if np_dtype is np.uint64:  # wrapped modulo 2^64 (-1 -> 2^64 - 1; ints past int64 as they are)
                arr = np.array([int(v) % (1 << 64) for v in flat], dtype=np.uint64).reshape(shape)
            else:
                # Through int64, so that negatives wrap into an unsigned dtype as in PyTorch (-1 -> 255).
                arr = np.array(flat, dtype=np.int64).astype(np_dtype).reshape(shape)
        else:
            arr = np.array(flat, dtype=np_dtype).reshape(shape)
        src = _C._from_buffer(arr)
        if build is _C.bfloat16:
            dtype = _C.bfloat16
    target = dtype if dtype is not None else src.dtype
    if src is data or src.dtype is not target:
        src = _C._to_dtype(src, target)
    if device is not None and _C.device(device).type != "cpu":
        src = src.to(device)  # built on the host, then copied (without a GPU: "CUDA is not available")
    if requires_grad:
        src.requires_grad_()
    return src


_SUPPORTED = ("float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, "
              "uint8, and bool")


def from_numpy(ndarray):
    """torchlite.from_numpy(ndarray): a tensor sharing memory with a NumPy array.

    Writes to either are seen by the other, and the array stays alive while the tensor does. The array
    must have a supported dtype, the native byte order and non-negative strides."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype.kind not in "biufc" or ndarray.dtype.name not in _NP_DTYPES:
        raise TypeError(f"can't convert np.ndarray of type numpy.{ndarray.dtype.type.__name__}. "
                        f"The only supported types are: {_SUPPORTED}.")
    return _C._from_numpy(ndarray)


def as_tensor(data, dtype=None, device=None):
    """torchlite.as_tensor(data, dtype=None, device=None): data as a tensor, sharing memory when it can.

    A tensor of the requested dtype and device is returned as is; a NumPy array of the requested dtype
    (with a supported dtype and layout) shares its memory; anything else is copied as by tensor()."""
    from ._tensor import Tensor

    if isinstance(data, Tensor):
        if dtype is not None and data.dtype is not dtype:
            data = data.to(dtype)
        if device is not None and data.device != _C.device(device):
            data = data.to(device)
        return data
    if (isinstance(data, np.ndarray) and data.dtype.name in _NP_DTYPES and data.dtype.isnative
            and all(s >= 0 for s in data.strides)
            and (dtype is None or repr(dtype).split(".")[1] == data.dtype.name)
            and (device is None or _C.device(device).type == "cpu")):
        return _C._from_numpy(data)
    return tensor(data, dtype=dtype, device=device)
