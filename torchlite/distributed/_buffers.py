"""torchlite CPU tensors as MPI buffers: NumPy arrays sharing the tensor's memory where they can.

A contiguous CPU tensor is handed to MPI through its shared NumPy view; a non-contiguous one through a
contiguous copy that is written back once the operation completes. bfloat16 and float16 have no MPI type:
they move as their 16 raw bits (uint16) and reduce in float32 (exact for the inputs, rounded once on the way
back). bool moves as uint8 (and reduces with MAX for SUM, MIN for PRODUCT: logical or / and)."""
import ctypes

import numpy as np

from .. import _C

_HALF = ("bfloat16", "float16")
_NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "int16": np.int16,
       "int8": np.int8, "uint8": np.uint8, "bool": np.uint8, "float16": np.uint16, "bfloat16": np.uint16}


def dtype_name(dtype):
    return str(dtype).split(".")[-1]


def check_tensor(t, what="tensor"):
    from .._tensor import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{what}` of type torchlite.Tensor\n"
                        f"             but got {type(t)} instead.")
    if t.device.type != "cpu":
        raise RuntimeError(f"torchlite.distributed: the MPI backend works on CPU tensors, got a tensor on {t.device} "
                           "(CUDA tensors need the NCCL backend, see docs/distributed.md)")
    name = dtype_name(t.dtype)
    if name not in _NP:
        raise RuntimeError(f"torchlite.distributed: unsupported dtype {t.dtype}")


def is_half(t):
    return dtype_name(t.dtype) in _HALF


def np_type(t, reduce=False):
    """The NumPy type t travels as (float32 for 16-bit floats in a reduction)."""
    if reduce and is_half(t):
        return np.dtype(np.float32)
    return np.dtype(_NP[dtype_name(t.dtype)])


def raw_view(t):
    """A flat NumPy array sharing the memory of the contiguous CPU tensor `t`, in a type MPI knows (16-bit floats
    as uint16 bits, bool as uint8). The array holds no reference to `t`: the caller keeps `t` alive."""
    name = dtype_name(t.dtype)
    n = t.numel()
    if name in _HALF:
        if n == 0:
            return np.empty(0, np.uint16)
        buf = (ctypes.c_uint16 * n).from_address(t.data_ptr())
        return np.frombuffer(buf, dtype=np.uint16)
    a = np.asarray(t.detach()).reshape(-1)
    if name == "bool":
        a = a.view(np.uint8)
    return a


def _no_grad():
    from ..autograd.grad_mode import no_grad

    return no_grad()


class Buffer:
    """An MPI view of tensor `t`: `.array` (flat, contiguous NumPy) and `finish()`, which writes the array back
    into `t` where it is a copy. reduce=True: 16-bit floats as float32 copies."""

    def __init__(self, t, reduce=False, write=True):
        self.tensor = t
        self.tmp = None
        if reduce and is_half(t):
            self.tmp = _C._to_dtype(t.detach(), _C.float32).contiguous()
        elif not t.is_contiguous():
            self.tmp = t.detach().contiguous()
        self.write = write and self.tmp is not None
        self.array = raw_view(self.tmp if self.tmp is not None else t)

    def finish(self):
        if self.write:
            with _no_grad():
                self.tensor.copy_(self.tmp)


def write(t, values):
    """Writes the flat values `values` (t's raw type, or float32 for a 16-bit float t) into tensor `t`."""
    from .._creation import from_numpy

    values = np.ascontiguousarray(values)
    if values.dtype == np_type(t) and t.is_contiguous():
        raw_view(t)[...] = values
        return
    if values.dtype == np_type(t):  # raw bits of a non-contiguous tensor: through a contiguous copy
        tmp = t.detach().contiguous()
        raw_view(tmp)[...] = values
    else:
        tmp = from_numpy(values.copy())
    with _no_grad():
        t.copy_(tmp.reshape(t.shape))


def pack(tensors, reduce=False):
    """One contiguous array holding the tensors' values one after another (float32 for 16-bit floats when
    reduce), and their element counts."""
    counts = [t.numel() for t in tensors]
    parts = [Buffer(t, reduce=reduce, write=False).array for t in tensors]
    return np.concatenate(parts), counts


def unpack(values, tensors):
    """Writes consecutive slices of `values` into `tensors`."""
    off = 0
    for t in tensors:
        n = t.numel()
        write(t, values[off:off + n])
        off += n
