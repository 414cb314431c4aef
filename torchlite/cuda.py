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
           "empty_cache", "memory_stats", "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all", "Stream", "Event",
           "StreamContext", "stream", "current_stream", "default_stream", "set_stream"]


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


# ---------------------------------------------------------------- random numbers
# One Philox generator serves every CUDA device (torchlite._C._cuda_default_generator); without a GPU the
# seeding functions still set it, as PyTorch's record the seed for later.

def manual_seed(seed) -> None:
    """Seeds the CUDA generator (int(seed); negative seeds wrap modulo 2^64)."""
    _C._cuda_default_generator.manual_seed(int(seed))


def manual_seed_all(seed) -> None:
    """Seeds the CUDA generator of every device (one generator serves them all)."""
    _C._cuda_default_generator.manual_seed(int(seed))


def seed() -> None:
    """Seeds the CUDA generator from the OS's entropy source."""
    _C._cuda_default_generator.seed()


def seed_all() -> None:
    """seed() for every device."""
    _C._cuda_default_generator.seed()


def initial_seed() -> int:
    """The seed of the CUDA generator."""
    return _C._cuda_default_generator.initial_seed()


def get_rng_state(device="cuda"):
    """The CUDA generator's state: a uint8 tensor of 16 bytes (seed and offset)."""
    return _C._cuda_default_generator.get_state()


def set_rng_state(new_state, device="cuda") -> None:
    """Restores the CUDA generator's state from get_rng_state()."""
    _C._cuda_default_generator.set_state(new_state)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(max(device_count(), 1))]


def set_rng_state_all(new_states) -> None:
    for state in new_states:
        set_rng_state(state)


# ---------------------------------------------------------------- streams and events
# torchlite queues all work of a device, in order, on that device's default stream. So a Stream is a handle on
# that stream: work "on" another stream still runs in order, waits between streams are already satisfied, and
# synchronize() waits for the device.

def _require_cuda(what):
    if not is_available():
        raise RuntimeError(f"{what}: CUDA is not available (no CUDA device, or torchlite was built without CUDA)")


def _device_of(device):
    from . import device as _device

    index = _index(device)
    return _device("cuda", current_device() if index < 0 else index)


class Stream:
    """A CUDA stream of a device (torchlite runs everything on the device's default stream, in order)."""

    def __init__(self, device=None, priority=0, **kwargs):
        _require_cuda("torchlite.cuda.Stream")
        self.device = _device_of(device)
        self.priority = priority
        self.stream_id = 0
        self.cuda_stream = 0

    def synchronize(self) -> None:
        synchronize(self.device)

    def query(self) -> bool:
        """Whether all work queued on the stream is done (it waits for it: torchlite has no asynchronous query)."""
        synchronize(self.device)
        return True

    def wait_stream(self, stream) -> None:
        """Makes later work wait for `stream`'s: always true here, as all work runs in order."""

    def wait_event(self, event) -> None:
        """Makes later work wait for `event`: always true here, as all work runs in order."""

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and other.device == self.device and other.stream_id == self.stream_id

    def __hash__(self):
        return hash((self.device.index, self.stream_id))

    def __repr__(self):
        return f"<torchlite.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class Event:
    """A CUDA event: record() marks a point in a stream's work; elapsed_time() is the time between two recorded
    events, in milliseconds (measured on the host when each was recorded, after the work before it finished)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess
        self._time = None
        self._device = None

    def record(self, stream=None) -> None:
        import time

        _require_cuda("torchlite.cuda.Event.record")
        stream = current_stream() if stream is None else stream
        synchronize(stream.device)
        self._device = stream.device
        self._time = time.perf_counter()

    def wait(self, stream=None) -> None:
        """Makes `stream` wait for the event: always true here, as all work runs in order."""

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        if self._device is not None:
            synchronize(self._device)

    def elapsed_time(self, end_event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    def __repr__(self):
        return f"<torchlite.cuda.Event {'recorded' if self._time is not None else 'uninitialized'}>"


_current_streams = {}


def default_stream(device=None) -> Stream:
    """The default stream of the device (the current one by default)."""
    _require_cuda("torchlite.cuda.default_stream")
    return Stream(device)


def current_stream(device=None) -> Stream:
    """The stream selected on the device (by torchlite.cuda.stream(...)), else its default stream."""
    _require_cuda("torchlite.cuda.current_stream")
    d = _device_of(device)
    return _current_streams.get(d.index) or Stream(d)


def set_stream(stream) -> None:
    if stream is not None:
        _current_streams[stream.device.index] = stream


class StreamContext:
    """with torchlite.cuda.stream(s): makes s the current stream of its device for the block (None: no-op)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev = None

    def __enter__(self):
        if self.stream is not None:
            self.prev = _current_streams.get(self.stream.device.index)
            _current_streams[self.stream.device.index] = self.stream
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            if self.prev is None:
                _current_streams.pop(self.stream.device.index, None)
            else:
                _current_streams[self.stream.device.index] = self.prev
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)


# The legacy CUDA type names (torchlite.cuda.FloatTensor...): isinstance of a CUDA tensor of their dtype.
from ._legacy import CUDA_LEGACY_TYPES as _LEGACY  # noqa: E402

globals().update(_LEGACY)


def __getattr__(name):
    # torchlite.cuda.amp: PyTorch's deprecated spelling of torchlite.amp for CUDA (made on first use).
    if name == "amp":
        from .amp._deprecated import _namespace

        globals()["amp"] = _namespace("cuda")
        return globals()["amp"]
    raise AttributeError(f"module 'torchlite.cuda' has no attribute '{name}'")
