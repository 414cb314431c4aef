"""DLPack interop (PyTorch's torch.utils.dlpack): share tensors with NumPy, PyTorch, CuPy, JAX... without a
copy."""
from .. import _C

__all__ = ["to_dlpack", "from_dlpack"]


def to_dlpack(tensor):
    """A DLPack capsule sharing `tensor`'s memory (the legacy interface; prefer passing the tensor itself to
    the other library's from_dlpack). A conjugated view is exported computed, as PyTorch's."""
    return _C._to_dlpack(tensor.resolve_conj())


def from_dlpack(ext_tensor):
    """A torchlite tensor sharing the memory of `ext_tensor`: any object with `__dlpack__` (a NumPy array, a
    PyTorch tensor...) or a DLPack capsule."""
    if hasattr(ext_tensor, "__dlpack__"):
        kwargs = {}
        device = ext_tensor.__dlpack_device__() if hasattr(ext_tensor, "__dlpack_device__") else (1, 0)
        if device[0] == 2:  # CUDA: the producer orders its work before ours on the legacy default stream
            kwargs["stream"] = 1
        try:
            capsule = ext_tensor.__dlpack__(**kwargs)
        except TypeError:
            capsule = ext_tensor.__dlpack__()
    else:
        capsule = ext_tensor
    return _C._from_dlpack(capsule)
