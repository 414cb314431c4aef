"""torchlite.multiprocessing: Python's multiprocessing, with CPU tensors sent through shared memory.

As torch.multiprocessing: every name of `multiprocessing` is here (Process, Queue, Pool, get_context,
set_start_method...), and importing this module registers reducers with multiprocessing's pickler
(ForkingPickler, which Queue, Pipe, Pool and a spawned Process's arguments use). A CPU tensor sent that way
is first moved to shared memory (`Tensor.share_memory_()`, in place: the sender keeps using it) and the
receiver maps the same memory, so that writes on either side are seen on the other (Hogwild training:
`model.share_memory()`, then processes that each step the same parameters). Its file descriptor travels
with multiprocessing's own machinery (`reduction.DupFd`). Views keep their geometry, `nn.Parameter`s stay
parameters, `requires_grad` travels; a tensor that requires grad and is not a leaf is refused, as by PyTorch
(autograd does not cross processes). CUDA tensors are sent as copies (no CUDA IPC).
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403 (the whole of multiprocessing's API, as torch.multiprocessing)
from multiprocessing import reduction as _reduction

from .. import _C
from .._serialization import _dtype_name, _finish
from .._tensor import Tensor

__all__ = list(multiprocessing.__all__)


def _rebuild_shared(fd, nbytes, dtype_name, sizes, strides, offset, conj, requires_grad, cls, state):
    t = _C._from_shared_memory(fd.detach(), nbytes, getattr(_C, dtype_name), list(sizes), list(strides), offset)
    return _finish(t.conj() if conj else t, requires_grad, cls, state)


def _reduce_tensor(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                           "does not support crossing process boundaries.  If you just want to transfer the data, "
                           "call detach() on the tensor before serializing (e.g., putting it on the queue).")
    if t.device.type != "cpu":
        return t.__reduce_ex__(2)
    t.share_memory_()
    fd, nbytes = _C._shared_memory_handle(t)
    state = dict(t.__dict__) if t.__dict__ else None
    return (_rebuild_shared, (_reduction.DupFd(fd), nbytes, _dtype_name(t.dtype), tuple(t.shape), tuple(t.stride()),
                              t.storage_offset(), t.is_conj(), t.requires_grad, type(t), state))


def _register():
    from ..nn.parameter import Parameter

    for cls in (Tensor, Parameter):
        _reduction.ForkingPickler.register(cls, _reduce_tensor)


_register()
