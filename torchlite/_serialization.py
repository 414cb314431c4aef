"""Pickling tensors: pickle, copy.copy and copy.deepcopy of Tensors and Parameters.

A tensor pickles as its values (a NumPy array), dtype, device, shape and requires_grad; a view pickles as its
base and its geometry, so that views pickled together with their base share memory again after loading.
Subclasses (Parameter, user subclasses) keep their class and attributes."""
import numpy as np

from . import _C

_NUMPY_SAFE = {"float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "uint16", "uint32",
               "uint64", "complex64", "complex128"}


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def _values(t):
    """The tensor's values as a contiguous NumPy array (bfloat16 widened to float32, exactly)."""
    t = t.resolve_conj()  # a conjugated view's values, computed
    if t.device.type != "cpu":
        t = t.cpu()
    if _dtype_name(t.dtype) not in _NUMPY_SAFE:
        t = _C._to_dtype(t, _C.float32)
    return np.ascontiguousarray(np.asarray(t.detach()))


def raw_values(t):
    """t's values as a contiguous NumPy array of their raw element bytes; NumPy has no bfloat16, so a
    bfloat16 tensor gives its bits as uint16 (the high half of each float32 value). save and safetensors
    write these bytes."""
    t = t.detach().resolve_conj()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == _C.bfloat16:
        wide = np.ascontiguousarray(np.asarray(_C._to_dtype(t, _C.float32)))
        return (wide.view(np.uint32) >> 16).astype(np.uint16)
    return np.ascontiguousarray(np.asarray(t))


def from_raw_values(arr, dtype_name):
    """The tensor whose raw element bytes `arr` holds (raw_values' inverse; bfloat16 from uint16 bits)."""
    from ._creation import from_numpy

    if dtype_name == "bfloat16":
        return _C._to_dtype(from_numpy((arr.astype(np.uint32) << 16).view(np.float32)), _C.bfloat16)
    return from_numpy(arr)


def reduce_tensor(t):
    """What Tensor.__reduce_ex__ returns."""
    if _C._is_sparse(t):  # its indices and values, pickled as tensors
        indices, values, coalesced = _C._sparse_parts(t)
        return (_rebuild_sparse, (indices, values, tuple(t.shape), coalesced))
    state = dict(t.__dict__) if t.__dict__ else None
    base = t._base
    if base is not None and base.device == t.device and base.dtype == t.dtype:
        args = (base, tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.requires_grad)
        return (_rebuild_view, args + (type(t), state, t.is_conj() != base.is_conj()))
    return (_rebuild_tensor, (_values(t), _dtype_name(t.dtype), str(t.device), t.requires_grad, type(t), state))


def _finish(t, requires_grad, cls, state):
    from ._tensor import Tensor

    if cls is not Tensor:
        t = Tensor._make_subclass(cls, t, requires_grad)
    elif requires_grad:
        t.requires_grad_(True)
    if state:
        t.__dict__.update(state)
    return t


def _rebuild_tensor(values, dtype_name, device, requires_grad, cls, state):
    from ._creation import from_numpy

    t = from_numpy(np.array(values, copy=True))
    dtype = getattr(_C, dtype_name)
    if t.dtype != dtype:
        t = _C._to_dtype(t, dtype)
    if device != "cpu":
        t = t.to(device)
    return _finish(t, requires_grad, cls, state)


def _rebuild_sparse(indices, values, size, coalesced):
    return _C._sparse_coo_tensor(indices, values, list(size), bool(coalesced), True)


def _rebuild_view(base, size, stride, offset, requires_grad, cls, state, conj=False):
    view = base.detach().as_strided(size, stride, offset)
    return _finish(view.conj() if conj else view, requires_grad, cls, state)  # a conj() view stays one


def deepcopy_tensor(t, memo):
    """What Tensor.__deepcopy__ does: a new tensor with the same values, requires_grad and (a copy of) grad;
    only leaves can be deep-copied, as in PyTorch."""
    from ._tensor import Tensor

    if id(t) in memo:
        return memo[id(t)]
    if not t.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                           "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                           "because of a torch.nn.utils.weight_norm usage, see "
                           "https://github.com/pytorch/pytorch/pull/103001")
    import copy

    if _C._is_sparse(t):
        out = memo[id(t)] = _C._sparse_clone(t)
        return out
    out = t.detach().clone()
    if type(t) is not Tensor:
        out = Tensor._make_subclass(type(t), out, t.requires_grad)
    elif t.requires_grad:
        out.requires_grad_(True)
    memo[id(t)] = out
    if t.grad is not None:
        out.grad = deepcopy_tensor(t.grad, memo)
    if t.__dict__:
        out.__dict__.update(copy.deepcopy(t.__dict__, memo))
    return out


def copy_tensor(t):
    """What copy.copy does to a tensor: a new leaf sharing its memory, with its requires_grad, class and
    attributes (PyTorch's copy.copy shares the storage too)."""
    return _finish(t.detach(), t.requires_grad, type(t), dict(t.__dict__) if t.__dict__ else None)
