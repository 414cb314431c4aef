"""The caching CPU allocator: freed blocks are reused by allocations of the same
size class, the cache stays under its limit, empty_cache releases it, stats
add up, and it survives threads and fork()."""
import gc
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import torchlite as tl

MiB = 1 << 20
N64 = 16 * MiB  # float32 elements in 64 MiB


@pytest.fixture
def fresh_cache():
    """An empty cache and zeroed counters; the limit is restored afterwards.
    Tensors of earlier tests may still be alive: tests compare allocated bytes
    with the `base` this returns."""
    gc.collect()
    limit = tl.cpu.get_cache_limit()
    tl.cpu.empty_cache()
    tl.cpu.reset_memory_stats()
    yield stats()["allocated_bytes"]
    tl.cpu.set_cache_limit(limit)


def stats():
    return tl.cpu.memory_stats()


def test_stats_keys():
    s = stats()
    for key in ("allocated_bytes", "peak_allocated_bytes", "allocated_blocks", "cached_bytes", "cached_blocks",
                "cache_limit", "num_allocs", "cache_hits", "cache_misses", "num_frees", "num_evictions"):
        assert isinstance(s[key], int) and s[key] >= 0, key
    assert s["num_allocs"] == s["cache_hits"] + s["cache_misses"]
    assert s["cache_limit"] == tl.cpu.get_cache_limit() > 0


@pytest.mark.parametrize("nbytes, rounded", [
    (1, 64), (64, 64), (65, 128), (1000, 1024), (1024, 1024), (1025, 1152), (2048, 2048), (2049, 2304),
    (64 * MiB, 64 * MiB), (64 * MiB + 1, 72 * MiB), (100_000_000, 100_663_296),
])
def test_size_classes(nbytes, rounded):
    assert tl._C._cpu_allocator_round_size(nbytes) == rounded


def test_size_classes_waste_at_most_an_eighth():
    for n in list(range(1, 5000, 7)) + [int(x) for x in np.geomspace(5000, 1 << 40, 400)]:
        r = tl._C._cpu_allocator_round_size(n)
        assert r >= n and r % 64 == 0
        assert r <= max(n + 63, n * 1.125), n


def test_64mib_block_is_reused(fresh_cache):
    base = fresh_cache
    a = tl.empty(N64)
    ptr = a.data_ptr()
    s = stats()
    assert s["allocated_bytes"] == base + 64 * MiB and s["cache_misses"] == 1
    del a
    s = stats()
    assert s["allocated_bytes"] == base and s["cached_bytes"] == 64 * MiB and s["cached_blocks"] == 1
    b = tl.empty(N64)
    assert b.data_ptr() == ptr
    s = stats()
    assert s["cache_hits"] == 1 and s["cache_misses"] == 1 and s["cached_bytes"] == 0
    assert s["peak_allocated_bytes"] == base + 64 * MiB


def test_reused_blocks_give_correct_values(fresh_cache):
    x = tl.full([N64], 1.5)
    for k in range(3):
        y = x + x * k  # both results need a fresh 64 MiB block, served from the cache after the first round
        assert y.sum().item() == pytest.approx(1.5 * (1 + k) * N64)
        arr = y.numpy()
        assert arr[0] == arr[-1] == arr[N64 // 2] == 1.5 * (1 + k)
        del y, arr
    assert stats()["cache_hits"] >= 3


def test_data_pointers_are_64_byte_aligned(fresh_cache):
    tensors = [tl.empty(n) for n in (1, 3, 17, 255, 1000, 4097, 100_000, 3 * MiB)]
    assert all(t.data_ptr() % 64 == 0 for t in tensors)
    del tensors
    tensors = [tl.empty(n) for n in (1, 3, 17, 255, 1000, 4097, 100_000, 3 * MiB)]  # from the cache
    assert all(t.data_ptr() % 64 == 0 for t in tensors)


def test_cache_stays_under_its_limit(fresh_cache):
    tl.cpu.set_cache_limit(8 * MiB)
    rng = np.random.default_rng(0)
    live = []
    for i in range(400):
        n = int(rng.integers(1, 1 << 21))  # up to 8 MiB of float32
        live.append(tl.empty(n))
        if len(live) > 5:
            live.pop(int(rng.integers(0, len(live))))
        s = stats()
        assert s["cached_bytes"] <= 8 * MiB
    live.clear()
    s = stats()
    assert s["allocated_bytes"] == fresh_cache, "every block came back"
    assert s["cached_bytes"] <= 8 * MiB and s["num_evictions"] > 0
    assert s["cache_hits"] > 0


def test_no_leak_with_the_default_limit(fresh_cache):
    rng = np.random.default_rng(1)
    base = fresh_cache
    for _ in range(300):
        sizes = rng.integers(1, 1 << 20, size=4)
        ts = [tl.empty(int(n)) for n in sizes]
        del ts
    s = stats()
    assert s["allocated_bytes"] == base
    assert s["cached_bytes"] <= s["cache_limit"]
    assert s["num_frees"] == s["num_allocs"]


def test_block_larger_than_limit_is_not_cached(fresh_cache):
    tl.cpu.set_cache_limit(1 * MiB)
    a = tl.empty(MiB)  # 4 MiB
    del a
    assert stats()["cached_bytes"] == 0


def test_limit_zero_turns_caching_off(fresh_cache):
    tl.cpu.set_cache_limit(0)
    for _ in range(3):
        a = tl.empty(1000)
        del a
    s = stats()
    assert s["cached_bytes"] == 0 and s["cache_hits"] == 0 and s["cache_misses"] == 3


def test_lowering_the_limit_evicts(fresh_cache):
    ts = [tl.empty(MiB) for _ in range(4)]  # 4 x 4 MiB
    del ts
    assert stats()["cached_bytes"] == 16 * MiB
    tl.cpu.set_cache_limit(9 * MiB)
    s = stats()
    assert s["cached_bytes"] == 8 * MiB and s["num_evictions"] == 2
    with pytest.raises(RuntimeError, match="non-negative"):
        tl.cpu.set_cache_limit(-1)


def test_empty_cache_releases_everything_but_live_tensors(fresh_cache):
    keep = tl.full([MiB], 7.0)
    ts = [tl.empty(n) for n in (10, 1000, MiB, N64)]
    del ts
    s = stats()
    assert s["cached_blocks"] == 4 and s["cached_bytes"] > 64 * MiB
    tl.cpu.empty_cache()
    s = stats()
    assert s["cached_bytes"] == 0 and s["cached_blocks"] == 0 and s["num_evictions"] == 4
    assert s["allocated_bytes"] == fresh_cache + 4 * MiB
    assert keep.sum().item() == 7.0 * MiB
    misses = stats()["cache_misses"]
    tl.empty(N64)
    assert stats()["cache_misses"] == misses + 1, "after empty_cache a new allocation goes to the system"


def test_threads_allocating_and_emptying_concurrently(fresh_cache):
    # empty_cache releases the GIL, so it really runs beside the allocating threads.
    errors = []

    def work(seed):
        try:
            rng = np.random.default_rng(seed)
            for _ in range(300):
                n = int(rng.integers(1, 300_000))
                t = tl.full([n], float(seed))
                if t.sum().item() != float(seed) * n:
                    errors.append(seed)
                if seed == 0:
                    tl.cpu.empty_cache()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    s = stats()
    assert s["allocated_bytes"] == fresh_cache and s["num_frees"] == s["num_allocs"]


def run_python(code, env=None, timeout=60, cwd=None):
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], timeout=timeout, capture_output=True,
                          text=True, env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_fork_while_another_thread_holds_the_allocator(tmp_path):
    # The allocator's mutex is held across fork(): the child never inherits it
    # locked, even when another thread was inside the allocator at that moment.
    run_python("""
        import os, sys, threading, time
        import torchlite as tl
        for _ in range(3):
            holder = threading.Thread(target=tl._C._cpu_allocator_hold_lock_for_testing, args=(0.3,))
            holder.start()
            time.sleep(0.05)  # the holder has the mutex now (it does not need the GIL)
            pid = os.fork()
            if pid == 0:
                x = tl.ones(1 << 16) + 1  # allocates: deadlocks if the mutex came locked
                os._exit(0 if x.sum().item() == 2 * (1 << 16) else 1)
            holder.join()
            deadline = time.monotonic() + 20
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    sys.exit("the forked child deadlocked in the allocator")
                time.sleep(0.01)
            assert os.waitstatus_to_exitcode(status) == 0
    """, cwd=tmp_path)


@pytest.mark.parametrize("value, expected", [("1M", MiB), ("512k", 512 << 10), ("3GiB", 3 << 30), ("0", 0),
                                             ("12345", 12345)])
def test_cache_limit_from_environment(value, expected, tmp_path):
    env = dict(os.environ, TORCHLITE_CPU_CACHE_LIMIT=value)
    proc = run_python("import torchlite as tl; tl.empty(1); print(tl.cpu.get_cache_limit())", env=env,
                      cwd=tmp_path)
    assert int(proc.stdout) == expected


def test_bad_cache_limit_in_environment_is_ignored_with_a_warning(tmp_path):
    env = dict(os.environ, TORCHLITE_CPU_CACHE_LIMIT="lots")
    proc = run_python("import torchlite as tl; tl.empty(1); print(tl.cpu.get_cache_limit())", env=env,
                      cwd=tmp_path)
    assert int(proc.stdout) > 0
    assert "ignoring TORCHLITE_CPU_CACHE_LIMIT=lots" in proc.stderr
