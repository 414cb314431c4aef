"""Out-of-place ops on large tensors: what the caching CPU allocator buys.

python benchmarks/allocator.py [--numel N] [--trials T] [--threads 1,2] [--json PATH]

Times `a + b` and `a * 2` on 16M-element float32 tensors (64 MiB each), out of
place, so every call needs a fresh 64 MiB result: torchlite with its caching
allocator, torchlite with caching turned off (set_cache_limit(0): every result
is a fresh allocation that pays page faults), PyTorch and NumPy, in one process,
plus the in-place `a += b` as the no-allocation floor, at each thread count
(torchlite and PyTorch; NumPy's elementwise ops are single-threaded). Each number
is the median over the trials of the mean time of a few calls. Prints a table
and writes the results to benchmarks/results/allocator.json (or --json).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

CASES = ["a + b", "a * 2", "a += b"]


def _time(fn, trials: int, calls: int) -> float:
    """The median over `trials` of the mean seconds per call over `calls` calls."""
    fn()  # warm-up: the first call faults in the result (and fills the cache)
    runs = []
    for _ in range(trials):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        runs.append((time.perf_counter() - t0) / calls)
    return statistics.median(runs)


def measure(a, b, trials: int, calls: int) -> dict[str, float]:
    def inplace():
        nonlocal a
        a += b

    fns = {"a + b": lambda: a + b, "a * 2": lambda: a * 2, "a += b": inplace}
    return {name: _time(fns[name], trials, calls) * 1e3 for name in CASES}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--numel", type=int, default=16 * 2**20)
    ap.add_argument("--trials", type=int, default=15)
    ap.add_argument("--calls", type=int, default=5, help="calls per trial")
    ap.add_argument("--threads", default=None,
                    help="comma-separated thread counts for torchlite and PyTorch (default: 1 and torchlite's default)")
    ap.add_argument("--json", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                                   "allocator.json"))
    args = ap.parse_args()

    import numpy as np

    import torchlite

    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(args.numel, dtype=np.float32)
    b_np = rng.standard_normal(args.numel, dtype=np.float32)

    default_threads = torchlite.get_num_threads()
    if args.threads:
        thread_counts = [int(t) for t in args.threads.split(",")]
    else:
        thread_counts = sorted({1, default_threads})
    try:
        import torch
    except ImportError:
        torch = None
    results: dict = {
        "numel": args.numel,
        "dtype": "float32",
        "unit": "ms per call (median over trials)",
        "trials": args.trials,
        "calls_per_trial": args.calls,
        "machine": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy_version": np.__version__,
        "torch_version": torch.__version__ if torch else None,
        "cache_limit": torchlite.cpu.get_cache_limit(),
        "runs": [],
    }

    a, b = torchlite.tensor(a_np), torchlite.tensor(b_np)
    assert np.array_equal((a + b).numpy(), a_np + b_np) and np.array_equal((a * 2).numpy(), a_np * 2)
    for threads in thread_counts:
        torchlite.set_num_threads(threads)
        ms = {}
        torchlite.cpu.reset_memory_stats()
        ms["torchlite"] = measure(a, b, args.trials, args.calls)
        stats = torchlite.cpu.memory_stats()
        limit = torchlite.cpu.get_cache_limit()
        torchlite.cpu.set_cache_limit(0)
        try:
            ms["torchlite (no cache)"] = measure(a, b, args.trials, args.calls)
        finally:
            torchlite.cpu.set_cache_limit(limit)
        if torch is not None:
            torch.set_num_threads(threads)
            ta, tb = torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())
            ms["PyTorch"] = measure(ta, tb, args.trials, args.calls)
            del ta, tb
        ms["NumPy"] = measure(a_np.copy(), b_np.copy(), args.trials, args.calls)
        results["runs"].append({"threads": threads, "ms": ms,
                                "torchlite_cache_hits": stats["cache_hits"],
                                "torchlite_cache_misses": stats["cache_misses"]})

        libs = list(ms)
        print(f"{args.numel} float32 elements, {threads} thread(s), ms per call (median of {args.trials} trials)")
        print(f"{'case':<10}" + "".join(f"{lib:>22}" for lib in libs))
        for case in CASES:
            print(f"{case:<10}" + "".join(f"{ms[lib][case]:>22.2f}" for lib in libs))
        print(f"torchlite cache: {stats['cache_hits']} hits, {stats['cache_misses']} misses\n")
    torchlite.set_num_threads(default_threads)

    os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
