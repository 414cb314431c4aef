"""torchlite.cpu: the CPU device and its caching allocator.

Freed CPU blocks are kept in free lists keyed by a rounded size class and reused
by later allocations of the same class, up to a cap on cached bytes
(min(1 GiB, physical memory / 4) by default; the environment variable
TORCHLITE_CPU_CACHE_LIMIT, e.g. ``512M`` or ``0``, sets it at start-up).
"""
from . import _C


def is_available() -> bool:
    """Always True: every build has the CPU device."""
    return True


def device_count() -> int:
    return 1


def memory_stats() -> dict:
    """The allocator's counters: allocated/cached bytes and blocks, the peak,
    allocation, hit, miss, free and eviction counts, and the cache limit.
    Byte counts are size-class bytes (the request rounded up)."""
    return _C._cpu_allocator_stats()


def memory_allocated() -> int:
    """Bytes held by live tensors (size-class bytes)."""
    return _C._cpu_allocator_stats()["allocated_bytes"]


def memory_cached() -> int:
    """Bytes kept in the allocator's free lists, ready for reuse."""
    return _C._cpu_allocator_stats()["cached_bytes"]


def empty_cache() -> None:
    """Returns every cached block to the system; live tensors are untouched."""
    _C._cpu_allocator_empty_cache()


def get_cache_limit() -> int:
    return _C._cpu_allocator_get_cache_limit()


def set_cache_limit(nbytes: int) -> None:
    """Caps the bytes kept cached (evicting the oldest blocks now if needed); 0 turns caching off."""
    _C._cpu_allocator_set_cache_limit(nbytes)


def reset_memory_stats() -> None:
    """Zeroes the counters; the peak restarts at the bytes allocated now."""
    _C._cpu_allocator_reset_stats()


def __getattr__(name):
    # torchlite.cpu.amp: PyTorch's deprecated spelling of torchlite.amp for the CPU (made on first use).
    if name == "amp":
        from .amp._deprecated import _namespace

        globals()["amp"] = _namespace("cpu")
        return globals()["amp"]
    raise AttributeError(f"module 'torchlite.cpu' has no attribute '{name}'")
