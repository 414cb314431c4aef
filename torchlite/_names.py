"""Documented top-level functions that are Python in PyTorch too (torch.functional, torch/__init__.py):
predicates (is_tensor, is_floating_point...), numel, varargs joins (meshgrid, atleast_Nd, block_diag,
cartesian_prod), combinations, the deprecated range, the default device and the deterministic-algorithms
flags. They are written over generated ops, so autograd flows through them."""
import builtins
import itertools
import math
import numbers
import warnings

from . import _C

__all__ = [
    "is_tensor", "is_floating_point", "is_complex", "is_conj", "is_nonzero", "is_same_size", "is_signed", "numel",
    "resolve_neg",
    "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "cartesian_prod", "combinations", "range",
    "adjoint", "set_default_device", "get_default_device", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled", "unravel_index",
    "unique_consecutive", "typename", "set_warn_always", "is_warn_always_enabled", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "set_deterministic_debug_mode", "get_deterministic_debug_mode", "vander",
    "chain_matmul", "symeig", "eig", "matrix_rank", "lstsq", "solve",
]


def _check_tensor(op, x, name="input"):
    from ._tensor import Tensor

    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position 1) must be Tensor, not {type(x).__name__}")


def is_tensor(obj):
    """True if obj is a torchlite tensor (of any subclass)."""
    from ._tensor import Tensor

    return isinstance(obj, Tensor)


def is_floating_point(input):  # noqa: A002  (PyTorch's name)
    """Whether input's dtype is a floating dtype."""
    _check_tensor("is_floating_point", input)
    return input.is_floating_point()


def is_complex(input):  # noqa: A002
    """Whether input's dtype is complex (complex64 or complex128)."""
    _check_tensor("is_complex", input)
    return input.is_complex()


def is_conj(input):  # noqa: A002
    """Whether input is a lazily conjugated view (never: torchlite computes conjugates)."""
    _check_tensor("is_conj", input)
    return input.is_conj()


def resolve_neg(input):  # noqa: A002
    """input with any lazy negation applied: input itself, torchlite having no negated views."""
    _check_tensor("resolve_neg", input)
    return input.resolve_neg()


def is_nonzero(input):  # noqa: A002
    """The truth of a one-element tensor; RuntimeError for any other number of elements."""
    _check_tensor("is_nonzero", input)
    return input.is_nonzero()


def is_same_size(input, other):  # noqa: A002
    """Whether the two tensors have the same shape."""
    _check_tensor("is_same_size", input)
    _check_tensor("is_same_size", other, "other")
    return input.is_same_size(other)


def is_signed(input):  # noqa: A002
    """Whether input's dtype is signed."""
    _check_tensor("is_signed", input)
    return input.is_signed()


def numel(input):  # noqa: A002
    """The number of elements of input."""
    _check_tensor("numel", input)
    return input.numel()


def adjoint(input):  # noqa: A002
    """The conjugate transpose of the last two dims, as a view (the transpose, for real dtypes)."""
    _check_tensor("adjoint", input)
    return input.adjoint()


def vander(x, N=None, increasing=False):  # noqa: N803  (PyTorch's name)
    """The Vandermonde matrix of the 1-D x: columns x^(N-1), ..., x^0 (x^0 ... x^(N-1) when increasing); N
    defaults to len(x). Integer and bool x give int64, as PyTorch's."""
    from . import int64, linalg, ones

    _check_tensor("vander", x, "x")
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    if not x.dtype.is_floating_point:
        x = x.to(int64)
    n = x.shape[0] if N is None else int(N)
    if n <= 1:  # no power above 0 (linalg.vander needs N > 1)
        return ones((x.shape[0], n), dtype=x.dtype, device=x.device)
    result = linalg.vander(x, N=n)
    return result if increasing else result.flip(-1)


def chain_matmul(*matrices, out=None):
    """The product of the 2-D matrices (deprecated in PyTorch for linalg.multi_dot, which it calls)."""
    from . import linalg

    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        _check_tensor("chain_matmul", matrices[0], "matrices")
        if matrices[0].dim() != 2:
            raise RuntimeError(f"chain_matmul(): Tensor dimension is {matrices[0].dim()}, expected 2 instead.")
        return matrices[0].clone() if out is None else out.resize_(matrices[0].shape).copy_(matrices[0])
    return linalg.multi_dot(list(matrices), out=out)


def _tensors_arg(op, tensors):
    """Varargs or one list/tuple of tensors, as PyTorch's torch.functional accepts them."""
    from ._tensor import Tensor

    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0- or 1-dim tensors: with indexing='ij' (the default, with PyTorch's warning) the
    i-th output varies along dim i; with 'xy' (Cartesian indexing) the first two dims are swapped: the grids are
    of shape (len(b), len(a), ...)."""
    tensors = _tensors_arg("meshgrid", tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    if not tensors:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.shape}")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have the same dtype.")
        if t.device != tensors[0].device:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have the same device.")
    swap = indexing == "xy" and len(tensors) >= 2
    ts = list(tensors)
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        out.append(t.reshape(view).expand(shape))
    if swap:  # the grids of (b, a, ...) in the order (a, b, ...)
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def _atleast(op, n, tensors):
    if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):
        _check_tensor(op, tensors[0])
        return _atleast_one(tensors[0], n)
    tensors = _tensors_arg(op, tensors)
    return tuple(_atleast_one(t, n) for t in tensors)


def _atleast_one(t, n):
    d = t.dim()
    if d >= n:
        return t
    if n == 1:
        return t.reshape(1)
    if n == 2:
        return t.reshape(1, 1) if d == 0 else t.unsqueeze(0)
    if d == 0:
        return t.reshape(1, 1, 1)
    if d == 1:
        return t.unsqueeze(0).unsqueeze(-1)  # (k) -> (1, k, 1)
    return t.unsqueeze(-1)  # (m, k) -> (m, k, 1)


def atleast_1d(*tensors):
    """The tensors (one, or a tuple) viewed with at least 1 dim."""
    return _atleast("atleast_1d", 1, tensors)


def atleast_2d(*tensors):
    """The tensors (one, or a tuple) viewed with at least 2 dims ((k) becomes (1, k))."""
    return _atleast("atleast_2d", 2, tensors)


def atleast_3d(*tensors):
    """The tensors (one, or a tuple) viewed with at least 3 dims ((k) becomes (1, k, 1), (m, k) (m, k, 1))."""
    return _atleast("atleast_3d", 3, tensors)


def block_diag(*tensors):
    """The block-diagonal matrix of the tensors (0-dim ones as 1 x 1, 1-dim ones as 1 x n), in their promoted
    dtype."""
    from ._C import _functions as F

    tensors = _tensors_arg("block_diag", tensors)
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not mats:
        return F.empty((1, 0))
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = _C.promote_types(dtype, m.dtype)
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    parts = []
    c = 0
    for m in mats:
        # each block padded with zeros left and right to the full width, then the rows stacked
        parts.append(F.constant_pad_nd(m.to(dtype), (c, cols - c - m.shape[1])))
        c += m.shape[1]
    out = F.cat(parts, 0)
    assert out.shape == (rows, cols)
    return out


def cartesian_prod(*tensors):
    """The Cartesian product of 1-dim tensors: an (N, k) tensor of every combination, in row-major order (the
    tensor itself for one input)."""
    from ._C import _functions as F

    tensors = _tensors_arg("cartesian_prod", tensors)
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return F.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """The r-length combinations of the elements of a 1-dim tensor, as itertools.combinations (or
    combinations_with_replacement) orders them: an (N, r) tensor."""
    from ._C import _functions as F

    _check_tensor("combinations", input)
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if not isinstance(r, numbers.Integral) or isinstance(r, bool):
        raise TypeError(f"combinations(): argument 'r' must be int, not {type(r).__name__}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return F.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = [i for combo in pick(builtins.range(input.numel()), r) for i in combo]
    from ._creation import tensor

    index = tensor(idx, dtype=_C.int64, device=input.device)
    return input.index_select(0, index).reshape(-1, r)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,  # noqa: A001
          requires_grad=False):
    """Deprecated (with PyTorch's warning): the values start, start + step, ... up to and including end, in the
    default dtype unless dtype says otherwise. Use arange, which excludes end."""
    from ._C import _functions as F

    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    for name, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, _C.TensorBase):
            v = v.item()
        if not isinstance(v, numbers.Number) or isinstance(v, complex):
            raise TypeError(f"range(): argument '{name}' must be Number, not {type(v).__name__}")
    start, end, step = (v.item() if isinstance(v, _C.TensorBase) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    dtype = dtype if dtype is not None else _C.get_default_dtype()
    n = int(math.floor((end - start) / step)) + 1
    if dtype.is_floating_point:
        values = F.arange(n, dtype=_C.float64, device=device) * step + start
    else:
        values = F.arange(n, dtype=_C.int64, device=device) * int(step) + int(start)
    values = values.to(dtype)
    if out is not None:
        if out.shape != values.shape:
            out.resize_(values.shape)
        return out.copy_(values)
    return values.requires_grad_(requires_grad) if requires_grad else values


# ---------------------------------------------------------------- process-wide settings

_default_device = None


def set_default_device(device):
    """Records the device that PyTorch's factories would default to. torchlite's factories do not consult it yet,
    so only the CPU (or None) is accepted; another device raises NotImplementedError rather than be ignored."""
    global _default_device
    if device is not None:
        d = _C.device(device) if isinstance(device, (str, int)) and not isinstance(device, bool) else device
        if isinstance(device, int) and not isinstance(device, bool):
            d = _C.device("cuda", device)
        if not isinstance(d, _C.device):
            raise TypeError(f"set_default_device(): expected a device, a str or None, not {type(device).__name__}")
        if d.type != "cpu":
            raise NotImplementedError(f"set_default_device: torchlite's factories always default to the CPU; a "
                                      f"default device of {d} is not supported yet (pass device= to each factory)")
        device = d
    _default_device = device


def get_default_device():
    """The device factories default to: the CPU."""
    return _default_device if _default_device is not None else _C.device("cpu")


_deterministic = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records the flag PyTorch uses to refuse nondeterministic kernels. torchlite's kernels are written to be
    deterministic (accumulating scatters split only the outer dim; on CUDA, writes that may meet run in order), so
    the flag changes no result."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _deterministic["mode"] = mode
    _deterministic["warn_only"] = warn_only


def are_deterministic_algorithms_enabled():
    """Whether use_deterministic_algorithms(True) is in effect."""
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    """Whether use_deterministic_algorithms(True, warn_only=True) is in effect."""
    return _deterministic["warn_only"]


def unravel_index(indices, shape):
    """The coordinates in `shape` of flat (row-major) indices: a tuple of int64 tensors, one per dim. Indices
    wrap modulo the number of elements, as in PyTorch (-1 is the last element)."""
    from ._C import _functions as F
    from ._tensor import Tensor

    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    if indices.dtype.is_floating_point or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    for s in shape:
        if not isinstance(s, numbers.Integral) or isinstance(s, bool):
            raise TypeError(f"expected 'shape' to be int or sequence of ints, but got a sequence containing "
                            f"{type(s).__name__}")
        if s < 0:
            raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    if not shape:
        return ()
    numel = 1
    for s in shape:
        numel *= s
    idx = indices.long()
    if numel > 0:
        idx = F.remainder(idx, numel)
    coords = []
    for s in reversed(shape):
        if s == 0:
            coords.append(F.zeros_like(idx))
            continue
        coords.append(F.remainder(idx, s))
        idx = F.floor_divide(idx, s)
    return tuple(reversed(coords))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """Removes consecutive duplicates (of elements, or of slices along dim): the values, and with the flags the
    index of each input element (slice) in them and the length of each run."""
    from ._C import _functions as F

    _check_tensor("unique_consecutive", input)
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        d = dim % max(input.dim(), 1)
        x = input
    n = x.shape[d] if x.dim() else 1
    if x.dim() == 0:
        x = x.reshape(1)
    if n == 0:
        values = x
        starts = F.zeros(0, dtype=_C.bool, device=input.device)
    else:
        lo, hi = x.narrow(d, 0, n - 1), x.narrow(d, 1, n - 1)
        change = hi != lo
        if x.dim() > 1:
            change = change.movedim(d, 0).reshape(n - 1, -1).any(1)
        starts = F.cat([F.ones(1, dtype=_C.bool, device=input.device), change])
        values = x.index_select(d, F.nonzero(starts).reshape(-1))
    out = [values]
    if return_inverse:
        inverse = F.cumsum(starts.long(), 0) - 1
        out.append(inverse.reshape(input.shape) if dim is None else inverse)
    if return_counts:
        firsts = F.nonzero(starts).reshape(-1)
        ends = F.cat([firsts[1:], F.full((1,), n, dtype=_C.int64, device=input.device)]) if n else firsts
        out.append(ends - firsts)
    return out[0] if len(out) == 1 else tuple(out)


def typename(obj):
    """The legacy type name of a tensor ('torchlite.FloatTensor'); for other objects their qualified name."""
    from ._tensor import Tensor

    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    name = getattr(type(obj), "__qualname__", type(obj).__name__)
    return name if module in ("", "builtins") else f"{module}.{name}"


_flags = {"warn_always": False, "matmul_precision": "highest", "debug_mode": 0}


def set_warn_always(b):
    """Records PyTorch's flag that makes warnings raised once per process raise every time. torchlite's
    warnings go through Python's warnings module, whose filters decide."""
    _flags["warn_always"] = bool(b)


def is_warn_always_enabled():
    return _flags["warn_always"]


def set_float32_matmul_precision(precision):
    """Records the float32 matmul precision ('highest', 'high' or 'medium'). torchlite's float32 products always
    compute in float32 ('highest')."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision: {precision}")
    _flags["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _flags["matmul_precision"]


def set_deterministic_debug_mode(debug_mode):
    """0/'default', 1/'warn', 2/'error': as use_deterministic_algorithms(False), (True, warn_only=True),
    (True)."""
    names = {"default": 0, "warn": 1, "error": 2}
    mode = names.get(debug_mode, debug_mode) if isinstance(debug_mode, str) else debug_mode
    if mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(mode != 0, warn_only=mode == 1)


def get_deterministic_debug_mode():
    if not are_deterministic_algorithms_enabled():
        return 0
    return 1 if is_deterministic_algorithms_warn_only_enabled() else 2


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor (the array API's asarray): sharing memory with a tensor or NumPy array when dtype and device
    allow and copy is not True; copy=False refuses to copy."""
    from ._creation import as_tensor, tensor
    from ._tensor import Tensor

    if copy:
        if isinstance(obj, Tensor):
            out = obj.detach().clone().to(dtype=dtype, device=device) if (dtype or device) else obj.detach().clone()
        else:
            out = tensor(obj, dtype=dtype, device=device)
    else:
        out = as_tensor(obj, dtype=dtype, device=device)
        if copy is False:
            shares = (isinstance(obj, Tensor) and out is obj) or (
                not isinstance(obj, Tensor) and hasattr(obj, "__array_interface__") and
                out.numel() > 0 and out.data_ptr() == obj.__array_interface__["data"][0])
            if not shares and not (hasattr(obj, "__len__") and len(obj) == 0):
                raise ValueError("asarray(): copy=False, but the data cannot be used without a copy")
    if requires_grad:
        out.requires_grad_(True)
    return out


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-dim tensor sharing the memory of an object that implements the buffer protocol (bytes, bytearray,
    array.array...), read as `count` elements of dtype from byte `offset` (all that fit when count is -1)."""
    import numpy as np

    from ._creation import _NP_DTYPES

    name = repr(dtype).split(".")[-1]
    if name not in _NP_DTYPES:
        raise TypeError(f"frombuffer(): unsupported dtype {dtype}")
    size = len(memoryview(buffer).cast("B"))
    item = np.dtype(_NP_DTYPES[name]).itemsize
    if offset < 0 or offset > size:
        raise ValueError(f"both buffer length ({size}) and offset ({offset}) must be non-negative and offset must "
                         "be smaller than the buffer length")
    if count == -1:
        if (size - offset) % item != 0:
            raise ValueError(f"buffer length ({size - offset} after offset) must be a multiple of element size "
                             f"({item})")
        count = (size - offset) // item
    elif count <= 0 or offset + count * item > size:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset}) must not be "
                         f"greater than actual buffer length ({size})")
    from ._C import _from_numpy

    arr = np.frombuffer(buffer, dtype=_NP_DTYPES[name], count=count, offset=offset)
    if dtype == _C.bfloat16:
        raise TypeError("frombuffer(): bfloat16 is not supported yet")
    out = _from_numpy(arr)
    if requires_grad:
        out.requires_grad_(True)
    return out


class layout:
    """A tensor's memory layout: `torchlite.strided` (dense), or `torchlite.sparse_coo` for the sparse COO tensors
    of sparse gradients (torchlite/_sparse.py)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torchlite.{self._name}"

    def __reduce__(self):
        return (_layout_by_name, (self._name,))


class memory_format:
    """A memory format (contiguous_format, channels_last...): torchlite accepts them where PyTorch's factories
    and conversions do, and makes tensors in the contiguous (row-major) format."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torchlite.{self._name}"

    def __reduce__(self):
        return (_memory_format_by_name, (self._name,))


strided = layout("strided")
sparse_coo = layout("sparse_coo")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")


def _layout_by_name(name):
    return globals()[name]


def _memory_format_by_name(name):
    return globals()[name]


def _result_type(name, fields):
    """torchlite.return_types.<name> for the Python-level ops (histogram, histogramdd): a named tuple."""
    from . import return_types

    t = getattr(return_types, name, None)
    if t is None:
        import collections

        base = collections.namedtuple(name, fields)

        def __repr__(self):
            body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
            return f"torchlite.return_types.{name}(\n{body})"

        t = type(name, (base,), {"__slots__": (), "__module__": "torchlite.return_types", "__repr__": __repr__})
        setattr(return_types, name, t)
    return t


def _histogram_nd(op, x, bins, ranges, weight, density):
    """(hist, [edges per dim]) of the N points x (N, D): the bins of each dim are [edge_i, edge_i+1), the last
    also holding its right edge; points outside or NaN are left out."""
    from ._C import _functions as F
    from ._tensor import Tensor

    n, dims = x.shape
    edges = []
    for d in builtins.range(dims):
        b = bins[d]
        col = x[:, d]
        if isinstance(b, Tensor):
            if b.dim() != 1 or b.numel() < 1:
                raise RuntimeError(f"torch.{op}(): bins tensor should have one dimension and at least 1 element")
            edges.append(b.to(x.dtype))
            continue
        if not isinstance(b, numbers.Integral) or b <= 0:
            raise RuntimeError(f"torch.{op}(): bins must be > 0, but got {b} for dimension {d}")
        if ranges is not None:
            lo, hi = float(ranges[2 * d]), float(ranges[2 * d + 1])
        elif n:
            lo, hi = col.min().item(), col.max().item()
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise ValueError(f"torch.{op}(): min should not exceed max, but got min {lo} max {hi}")
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(f"torch.{op}(): range of [{lo}, {hi}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(F.linspace(lo, hi, b + 1, dtype=x.dtype, device=x.device))
    counts = [e.numel() - 1 for e in edges]
    flat = F.zeros(n, dtype=_C.int64, device=x.device)
    valid = F.ones(n, dtype=_C.bool, device=x.device)
    for d, e in enumerate(edges):
        col = x[:, d]
        # the bin of each point: the number of edges at or below it, minus one (the last edge closes the last bin)
        idx = (col.unsqueeze(1) >= e.unsqueeze(0)).sum(1) - 1
        idx = F.where(col == e[-1], F.full((), counts[d] - 1, dtype=_C.int64, device=x.device), idx)
        valid = valid & (idx >= 0) & (idx < counts[d]) & ~col.isnan()
        flat = flat * counts[d] + idx.clamp(0, max(counts[d] - 1, 0))
    total = 1
    for c in counts:
        total *= c
    if weight is not None:
        if weight.numel() != n:
            raise RuntimeError(f"torch.{op}(): if weight tensor is provided it should have the same shape as the "
                               "input tensor excluding its innermost dimension")
        w = weight.reshape(-1)[valid].to(_C.float64)
    else:
        w = F.ones(int(valid.sum().item()), dtype=_C.float64, device=x.device)
    hist = F.zeros(total, dtype=_C.float64, device=x.device)
    if total > 0:
        hist = hist.index_add(0, flat[valid], w)
    hist = hist.to(x.dtype).reshape(counts)
    if density and total > 0:
        volume = None
        for d, e in enumerate(edges):
            shape = [1] * dims
            shape[d] = counts[d]
            width = (e[1:] - e[:-1]).reshape(shape)
            volume = width if volume is None else volume * width
        hist = hist / (hist.sum() * volume)
    return hist, edges


def _check_histogram_input(op, input):
    _check_tensor(op, input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{input.type().split('.')[-1][:-6]}'")


def histogram(input, bins, *, range=None, weight=None, density=False, out=None):  # noqa: A002
    """A histogram of input's values: bins equal-width bins over range (the data's range by default) or the
    given increasing bin edges; each bin holds [edge_i, edge_i+1), the last also its right edge. With weight,
    the weights' sums; with density, normalized to integrate to 1. Returns (hist, bin_edges)."""
    _check_histogram_input("histogram", input)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError("torch.histogram(): if weight tensor is provided it should have the same shape as the "
                           "input tensor")
    hist, (edges,) = _histogram_nd("histogram", input.reshape(-1, 1), [bins],
                                   None if range is None else list(range), weight, density)
    result_type = _result_type("histogram", ["hist", "bin_edges"])
    if out is not None:
        out[0].resize_(hist.shape).copy_(hist)
        out[1].resize_(edges.shape).copy_(edges)
        return result_type(out[0], out[1])
    return result_type(hist, edges)


def histogramdd(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """The D-dimensional histogram of the points input (..., D): bins per dim (one int for all, a list of ints,
    or a list of edge tensors), range a flat list [lo0, hi0, lo1, hi1, ...]. Returns (hist, bin_edges)."""
    from ._tensor import Tensor

    _check_histogram_input("histogramdd", input)
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd(): input should have at least 2 dimensions, but got "
                           f"{input.dim()}")
    dims = input.shape[-1]
    if isinstance(bins, numbers.Integral) or isinstance(bins, Tensor) and bins.dim() == 0:
        bins = [int(bins)] * dims
    bins = list(bins)
    if len(bins) != dims:
        raise RuntimeError(f"torch.histogramdd(): expected {dims} sequences of bin edges for each of the {dims} "
                           f"dimensions of the input, but got {len(bins)}")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd(): for a {dims}-dimensional histogram range should have {2 * dims} "
                           f"elements, but got {len(range)}")
    hist, edges = _histogram_nd("histogramdd", input.reshape(-1, dims), bins, range, weight, density)
    return _result_type("histogramdd", ["hist", "bin_edges"])(hist, tuple(edges))


def gradient(input, *, spacing=1, dim=None, edge_order=1):  # noqa: A002
    """Estimates the derivative of input along each dim in dim (all dims when None) with central differences
    inside and one-sided differences of order edge_order (1 or 2) at the ends; spacing is one number, a number
    per dim, or a 1-dim tensor of coordinates per dim. Returns a tuple of tensors, one per dim."""
    from ._tensor import Tensor

    _check_tensor("gradient", input)
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2, but got {edge_order}")
    if dim is None:
        dims = list(builtins.range(input.dim()))
    elif isinstance(dim, numbers.Integral):
        dims = [dim % max(input.dim(), 1)]
    else:
        dims = [d % max(input.dim(), 1) for d in dim]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    f = input if input.dtype.is_floating_point else input.to(_C.get_default_dtype())
    out = []
    for d, h in zip(dims, spacings):
        n = f.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")

        def at(start, length, _d=d):
            return f.narrow(_d, start, length)

        if isinstance(h, Tensor):
            if h.dim() != 1 or h.numel() != n:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and to have the "
                                   f"size of dim {d} ({n}), but got {tuple(h.shape)}")
            x = h.to(f.dtype)
            shape = [1] * f.dim()
            shape[d] = n - 1
            dx = (x[1:] - x[:-1]).reshape(shape)  # dx[i] = x[i+1] - x[i]
            hl, hr = dx.narrow(d, 0, n - 2), dx.narrow(d, 1, n - 2)
            interior = (hl * hl * at(2, n - 2) - hr * hr * at(0, n - 2) + (hr * hr - hl * hl) * at(1, n - 2)) / (
                hl * hr * (hl + hr))
            if edge_order == 1:
                first = (at(1, 1) - at(0, 1)) / dx.narrow(d, 0, 1)
                last = (at(n - 1, 1) - at(n - 2, 1)) / dx.narrow(d, n - 2, 1)
            else:
                d1, d2 = dx.narrow(d, 0, 1), dx.narrow(d, 1, 1)
                first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * at(0, 1) + (d1 + d2) / (d1 * d2) * at(1, 1)
                         - d1 / (d2 * (d1 + d2)) * at(2, 1))
                d1, d2 = dx.narrow(d, n - 3, 1), dx.narrow(d, n - 2, 1)
                last = (d2 / (d1 * (d1 + d2)) * at(n - 3, 1) - (d2 + d1) / (d1 * d2) * at(n - 2, 1)
                        + (2 * d2 + d1) / (d2 * (d1 + d2)) * at(n - 1, 1))
        else:
            interior = (at(2, n - 2) - at(0, n - 2)) / (2 * h)
            if edge_order == 1:
                first = (at(1, 1) - at(0, 1)) / h
                last = (at(n - 1, 1) - at(n - 2, 1)) / h
            else:
                first = (-3 * at(0, 1) + 4 * at(1, 1) - at(2, 1)) / (2 * h)
                last = (3 * at(n - 1, 1) - 4 * at(n - 2, 1) + at(n - 3, 1)) / (2 * h)
        from ._C import _functions as F

        out.append(F.cat([first, interior, last], d))
    return tuple(out)


def set_default_tensor_type(t):
    """Deprecated (with PyTorch's warning): sets the default floating dtype from a legacy type (FloatTensor,
    DoubleTensor...) or its name. CUDA types are refused: torchlite's factories default to the CPU."""
    from ._legacy import _parse_type

    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    dtype, cuda = _parse_type(t)
    if cuda:
        raise NotImplementedError("set_default_tensor_type: CUDA tensor types as the default are not supported "
                                  "(torchlite's factories default to the CPU)")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _C.set_default_dtype(dtype)


def set_flush_denormal(mode):
    """Whether flushing denormal numbers to zero could be turned on: False, as torchlite leaves the CPU's
    floating-point mode alone (PyTorch returns False where it is not supported too)."""
    if not isinstance(mode, bool):
        raise TypeError(f"set_flush_denormal(): argument 'mode' must be bool, not {type(mode).__name__}")
    return False


def get_device_module(device=None):
    """The module of a device type: torchlite.cuda for 'cuda', torchlite.cpu for 'cpu' (the default device's
    when None)."""
    import importlib

    if device is None:
        d = get_default_device()
    elif isinstance(device, str) and ":" not in device and device in ("cpu", "cuda"):
        d = _C.device(device)
    elif isinstance(device, str):
        d = _C.device(device)
    elif isinstance(device, _C.device):
        d = device
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if d.type not in ("cpu", "cuda"):
        raise RuntimeError(f"Device '{d.type}' does not have a corresponding module registered as 'torch.{d.type}'.")
    return importlib.import_module(f"torchlite.{d.type}")


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False):
    """A 1-dim tensor of size elements of dtype read from a file: with shared=True, mapped from the file, so
    writes to the tensor go to the file; else a copy of its values."""
    import numpy as np

    from ._C import _from_numpy
    from ._creation import _NP_DTYPES

    dtype = dtype if dtype is not None else _C.get_default_dtype()
    name = repr(dtype).split(".")[-1]
    if name not in _NP_DTYPES:
        raise TypeError(f"from_file(): unsupported dtype {dtype}")
    npd = np.dtype(_NP_DTYPES[name])
    import os

    nbytes = os.path.getsize(filename)
    if size * npd.itemsize > nbytes:
        raise RuntimeError(f"from_file(): the file {filename} holds {nbytes} bytes, fewer than the {size} elements of "
                           f"{dtype} asked for ({size * npd.itemsize} bytes)")
    if shared:
        arr = np.memmap(filename, dtype=npd, mode="r+", shape=(size,))
    else:
        arr = np.fromfile(filename, dtype=npd, count=size)
    out = _from_numpy(np.asarray(arr))
    if device is not None:
        out = out.to(device)
    if requires_grad:
        out.requires_grad_(True)
    return out


class Stream:
    """A device-generic stream (torch.Stream): on the CPU work runs in order as it is called; on CUDA it is a
    torchlite.cuda.Stream (torchlite queues a device's work in order on one stream)."""

    def __init__(self, device=None, *, priority=0, **kwargs):
        d = _C.device(device) if isinstance(device, str) else (device or _C.device("cpu"))
        if isinstance(device, int) and not isinstance(device, bool):
            d = _C.device("cuda", device)
        self.device = d
        self.device_type = d.type
        self.device_index = -1 if d.index is None else d.index
        self.priority = priority
        self.stream_id = 0
        self._cuda = None
        if d.type == "cuda":
            from . import cuda

            self._cuda = cuda.Stream(d, priority)
            self.device_index = self._cuda.device.index

    def query(self):
        return True if self._cuda is None else self._cuda.query()

    def synchronize(self):
        if self._cuda is not None:
            self._cuda.synchronize()

    def wait_stream(self, stream):
        """Later work waits for stream's: always true, as each device's work runs in order."""

    def wait_event(self, event):
        """Later work waits for event: always true, as each device's work runs in order."""

    def record_event(self, event=None):
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def __enter__(self):
        if self._cuda is not None:
            from . import cuda

            self._ctx = cuda.stream(self._cuda)
            self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        if self._cuda is not None:
            self._ctx.__exit__(*exc)
        return False

    def __eq__(self, other):
        return (isinstance(other, Stream) and other.device_type == self.device_type
                and other.device_index == self.device_index and other.stream_id == self.stream_id)

    def __hash__(self):
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self):
        return (f"torchlite.Stream device_type={self.device_type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A device-generic event (torch.Event): a torchlite.cuda.Event on CUDA; the CPU backend has none (record()
    raises, as in PyTorch)."""

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        d = _C.device(device) if isinstance(device, str) else (device or _C.device("cpu"))
        self.device = d
        self.device_type = d.type
        self.enable_timing = enable_timing
        self._cuda = None
        if d.type == "cuda":
            from . import cuda

            self._cuda = cuda.Event(enable_timing, blocking, interprocess)

    def record(self, stream=None):
        if self._cuda is None:
            raise RuntimeError(f"{self.device_type} backend doesn't support events.")
        self._cuda.record(stream._cuda if isinstance(stream, Stream) else stream)

    def wait(self, stream=None):
        """Makes stream wait for the event: always true, as each device's work runs in order."""

    def query(self):
        return True

    def synchronize(self):
        if self._cuda is not None:
            self._cuda.synchronize()

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._cuda is None:
            raise RuntimeError(f"{self.device_type} backend doesn't support events.")
        return self._cuda.elapsed_time(end_event._cuda)

    def __repr__(self):
        return f"torchlite.Event device_type={self.device_type}, device_index=-1, event_flag=0, event_id=0"


# ------------------------------------------------------------------ linear algebra removed in PyTorch 1.9+
# PyTorch keeps these names (and the Tensor methods but matrix_rank) only to raise a RuntimeError that says what
# replaces each; torchlite does the same, with the same text.
_REMOVED = "This function was deprecated since version 1.9 and is now removed."
_REMOVED_LINALG = {
    "symeig": (" The default behavior has changed from using the upper triangular portion of the matrix by default to "
               "using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
               "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
               "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"),
    "eig": (" `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
            "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
            "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
            "L_complex, V_complex = torch.linalg.eig(A)"),
    "matrix_rank": ("\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
                    "renamed in `torch.linalg.matrix_rank()` to 'hermitian'."),
    "lstsq": (" `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
              "arguments and does not return the QR decomposition in the returned tuple (although it returns other "
              "information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\n"
              "The returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns "
              "of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
              "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = "
              "torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, "
              "B).solution"),
    "solve": (" `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
              "reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, "
              "which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should "
              "be replaced with:\nX = torch.linalg.solve(A, B)"),
}


def _removed(name):
    def removed(*args, **kwargs):
        raise RuntimeError(_REMOVED + _REMOVED_LINALG[name])

    removed.__name__ = removed.__qualname__ = name
    removed.__doc__ = f"Removed from PyTorch in 1.9: raises RuntimeError saying what replaces torch.{name}."
    return removed


symeig, eig, matrix_rank, lstsq, solve = (_removed(n) for n in ("symeig", "eig", "matrix_rank", "lstsq", "solve"))
