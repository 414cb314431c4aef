"""torchlite.cuda: CUDA devices and their memory, as torch.cuda.

Without a GPU (or in a build without CUDA), is_available() is False and device_count() 0; the functions
that need a device raise RuntimeError "CUDA is not available: ..."; empty_cache() does nothing.
Memory comes from a caching allocator: freed blocks are kept for reuse (memory_reserved() counts them),
empty_cache() gives them back to the driver, and an allocation that fails empties the cache and retries
once before raising "CUDA out of memory".
"""
import glob as _glob
import os as _os
import sys as _sys

from . import _C

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize", "get_device_name", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
           "empty_cache", "memory_stats"]


def _find_cublas():
    """The nvidia-cublas wheel's libcublas (site-packages/nvidia/cublas/lib, or nvidia/cu13/lib), if installed:
    matrix products on CUDA load it at their first call (else the system's libcublas.so.13 / .12)."""
    for base in _sys.path:
        for pattern in ("nvidia/cublas/lib/libcublas.so.*", "nvidia/cu1*/lib/libcublas.so.*"):
            found = sorted(_glob.glob(_os.path.join(base or ".", pattern)))
            if found:
                return found[-1]
    return None


_cublas = _find_cublas()
if _cublas is not None:
    _C._cuda_set_blas_library(_cublas)


def is_available() -> bool:
    """True when torchlite was built with CUDA and a CUDA device is present (or emulated: see _is_emulated)."""
    return _C._cuda_device_count() > 0


def _is_emulated() -> bool:
    """True when TORCHLITE_EMULATE_CUDA=1 was set at import: one CUDA device emulated in host memory, for tests
    on machines without a GPU (core/CudaEmulation.cpp). Not PyTorch API."""
    return _C._cuda_is_emulated()


def device_count() -> int:
    return _C._cuda_device_count()


def get_device_name(device=None) -> str:
    """The name of a CUDA device (the current one by default)."""
    return _C._cuda_get_device_name(_index(device))


def current_device() -> int:
    return _C._cuda_current_device()


def _index(device) -> int:
    """A device index from None (the current device), an int, 'cuda[:i]' or a torchlite.device."""
    if device is None:
        return -1
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    from . import device as _device
    d = _device(device) if isinstance(device, str) else device
    if not isinstance(d, _device):
        raise TypeError(f"expected a CUDA device (int, str or torchlite.device), but got {type(device).__name__}")
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return -1 if d.index is None else d.index


def set_device(device) -> None:
    """Makes `device` the current CUDA device (a negative index does nothing, as in PyTorch)."""
    index = _index(device)
    if index >= 0:
        _C._cuda_set_device(index)


def synchronize(device=None) -> None:
    """Waits for all work queued on the device (the current one by default) to finish."""
    _C._cuda_synchronize(_index(device))


def memory_stats(device=None) -> dict:
    """The caching allocator's counters for the device: allocated/reserved bytes and their peaks, cached
    blocks, allocations, cache hits, driver allocations and frees, out-of-memory retries."""
    return _C._cuda_memory_stats(_index(device))


def memory_allocated(device=None) -> int:
    """Bytes held by live tensors on the device (in the allocator's rounded block sizes)."""
    return memory_stats(device)["allocated_bytes"]


def max_memory_allocated(device=None) -> int:
    return memory_stats(device)["peak_allocated_bytes"]


def memory_reserved(device=None) -> int:
    """Bytes the allocator holds on the device: live tensors plus cached free blocks."""
    return memory_stats(device)["reserved_bytes"]


def max_memory_reserved(device=None) -> int:
    return memory_stats(device)["peak_reserved_bytes"]


def reset_peak_memory_stats(device=None) -> None:
    _C._cuda_reset_peak_memory_stats(_index(device))


def empty_cache() -> None:
    """Gives the cached free blocks of every device back to the driver (live tensors are untouched)."""
    _C._cuda_empty_cache()


def __getattr__(name):
    # torchlite.cuda.amp: PyTorch's deprecated spelling of torchlite.amp for CUDA (made on first use).
    if name == "amp":
        from .amp._deprecated import _namespace

        globals()["amp"] = _namespace("cuda")
        return globals()["amp"]
    raise AttributeError(f"module 'torchlite.cuda' has no attribute '{name}'")
