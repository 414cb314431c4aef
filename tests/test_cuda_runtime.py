"""torchlite.cuda: the device API, its errors without a GPU, and the caching device allocator.

The allocator's logic (core/DeviceCachingAllocator) is tested over host memory through
_C._HostBackedDeviceAllocator, so it runs on every machine; the tests that need a GPU skip without one.
"""
import pytest

import torchlite as tl

NO_GPU = not tl.cuda.is_available()
NEEDS_GPU = pytest.mark.skipif(NO_GPU, reason="needs a CUDA device (torchlite.cuda.is_available() is False)")
NOT_AVAILABLE = "CUDA is not available"


@pytest.mark.skipif(not NO_GPU, reason="checks the behaviour without a GPU")
def test_without_a_gpu_every_device_call_raises_clearly():
    assert tl.cuda.device_count() == 0 and not tl.cuda.is_available()
    for call in (tl.cuda.current_device, tl.cuda.synchronize, tl.cuda.memory_allocated, tl.cuda.max_memory_allocated,
                 tl.cuda.memory_reserved, tl.cuda.reset_peak_memory_stats, lambda: tl.cuda.set_device(0),
                 lambda: tl.ones(2).cuda(), lambda: tl.ones(2).cuda(0), lambda: tl.zeros(2, device="cuda"),
                 lambda: tl.ones(2).to("cuda:0", non_blocking=True), tl.cuda.get_device_name,
                 lambda: tl.tensor([1.0, 2.0], device="cuda"), lambda: tl.zeros(3).copy_(tl.zeros(3, device="cuda")),
                 lambda: tl.arange(4, device="cuda"), lambda: tl.randn(2, device="cuda")):
        with pytest.raises(RuntimeError, match=NOT_AVAILABLE):
            call()
    tl.cuda.empty_cache()  # nothing to give back: not an error
    tl.cuda.set_device(-1)  # a negative index does nothing, as in PyTorch


def test_device_arguments_are_checked():
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device, but got: cpu"):
        tl.ones(2).cuda("cpu")
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        tl.cuda.synchronize("cpu")
    with pytest.raises(TypeError, match="expected a CUDA device"):
        tl.cuda.memory_allocated(2.5)
    x = tl.ones(2)
    assert x.cpu() is x


def test_version_string():
    v = tl.version.cuda
    assert v is None or (isinstance(v, str) and v.replace(".", "").isdigit())


# ------------------------------------------------------------------ the caching allocator's logic

@pytest.fixture
def alloc():
    a = tl._C._HostBackedDeviceAllocator(1 << 20)  # 1 MiB per device
    yield a
    del a


def test_round_sizes():
    r = tl._C._device_allocator_round_size
    assert [r(1), r(512), r(513), r(1 << 20)] == [512, 512, 1024, 1 << 20]
    assert r((1 << 20) + 1) == (1 << 20) + (1 << 17)  # 8 classes per power of two above 1 MiB
    assert all(n <= r(n) <= n * 1.125 + 512 for n in (1000, 123457, 5_000_000, 77_777_777))


def test_freed_blocks_are_reused_per_size_class_and_device(alloc):
    p = alloc.allocate(1000, 0)
    s = alloc.stats(0)
    assert (s["allocated_bytes"], s["reserved_bytes"], s["backend_allocs"]) == (1024, 1024, 1)
    alloc.free(p, 0)
    s = alloc.stats(0)
    assert (s["allocated_bytes"], s["reserved_bytes"], s["cached_blocks"]) == (0, 1024, 1)
    assert alloc.allocate(600, 0) == p  # the same class: the cached block
    assert alloc.stats(0)["cache_hits"] == 1
    q = alloc.allocate(600, 1)  # another device: its own blocks
    assert q != p and alloc.stats(1)["backend_allocs"] == 1
    r = alloc.allocate(5000, 0)  # another class: a new block
    assert alloc.stats(0)["backend_allocs"] == 2
    for ptr, dev in ((p, 0), (q, 1), (r, 0)):
        alloc.free(ptr, dev)


def test_peaks_reset_and_empty_cache(alloc):
    ptrs = [alloc.allocate(4096, 0) for _ in range(4)]
    for p in ptrs[1:]:
        alloc.free(p, 0)
    s = alloc.stats(0)
    assert s["peak_allocated_bytes"] == 4 * 4096 and s["allocated_bytes"] == 4096
    alloc.reset_peak_stats(0)
    assert alloc.stats(0)["peak_allocated_bytes"] == 4096
    assert tl._C._HostBackedDeviceAllocator.backend_used(0) == 4 * 4096
    alloc.empty_cache()  # the three cached blocks go back; the live one stays
    s = alloc.stats(0)
    assert (s["reserved_bytes"], s["cached_blocks"], s["backend_frees"]) == (4096, 0, 3)
    assert tl._C._HostBackedDeviceAllocator.backend_used(0) == 4096
    alloc.free(ptrs[0], 0)


def test_out_of_memory_empties_the_cache_and_retries(alloc):
    big = alloc.allocate(600 * 1024, 0)
    alloc.free(big, 0)  # cached: 600 KiB of the 1 MiB
    p = alloc.allocate(700 * 1024, 0)  # another class: fits only once the cache is given back
    s = alloc.stats(0)
    assert s["oom_retries"] == 1 and s["cached_blocks"] == 0 and s["reserved_bytes"] == 700 * 1024
    with pytest.raises(RuntimeError, match=r"out of memory\. Tried to allocate 0\.5 MiB on device 0\. torchlite "
                                           r"holds 0\.68\d* MiB in live tensors"):
        alloc.allocate(512 * 1024, 0)
    alloc.free(p, 0)
    with pytest.raises(RuntimeError, match="freeing a pointer it did not allocate"):
        alloc.free(p, 0)


@NEEDS_GPU
def test_cuda_memory_counters_follow_tensors():
    tl.cuda.empty_cache()
    before = tl.cuda.memory_allocated()
    x = tl.empty(1 << 20, device="cuda")
    assert tl.cuda.memory_allocated() == before + 4 * (1 << 20)
    assert tl.cuda.max_memory_allocated() >= tl.cuda.memory_allocated()
    del x
    assert tl.cuda.memory_allocated() == before and tl.cuda.memory_reserved() >= 4 * (1 << 20)
    tl.cuda.synchronize()
    tl.cuda.empty_cache()
    assert tl.cuda.memory_reserved() == tl.cuda.memory_allocated()
    assert tl.cuda.current_device() == 0
