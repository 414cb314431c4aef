"""Out-of-place ops on large tensors: what the caching CPU allocator buys.

python benchmarks/allocator.py [--numel N] [--trials T] [--threads K] [--json PATH]

Times `a + b` and `a * 2` on 16M-element float32 tensors (64 MiB each), out of
place, so every call needs a fresh 64 MiB result: torchlite with its caching
allocator, torchlite with caching turned off (set_cache_limit(0): every result
is a fresh allocation that pays page faults), PyTorch and NumPy, in one process,
plus the in-place `a += b` as the no-allocation floor. Each number is the median
over the trials of the mean time of a few calls. Prints a table and writes the
results to benchmarks/results/allocator.json (or --json).
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
    ap.add_argument("--threads", type=int, default=None, help="threads for torchlite and PyTorch (default: theirs)")
    ap.add_argument("--json", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                                   "allocator.json"))
    args = ap.parse_args()

    import numpy as np

    import torchlite

    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(args.numel, dtype=np.float32)
    b_np = rng.standard_normal(args.numel, dtype=np.float32)

    if args.threads:
        torchlite.set_num_threads(args.threads)
    threads = torchlite.get_num_threads()
    results: dict = {
        "numel": args.numel,
        "dtype": "float32",
        "unit": "ms per call (median over trials)",
        "trials": args.trials,
        "calls_per_trial": args.calls,
        "threads": threads,
        "machine": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy_version": np.__version__,
        "ms": {},
    }

    a, b = torchlite.tensor(a_np), torchlite.tensor(b_np)
    assert np.array_equal((a + b).numpy(), a_np + b_np) and np.array_equal((a * 2).numpy(), a_np * 2)
    results["ms"]["torchlite"] = measure(a, b, args.trials, args.calls)
    results["cache_stats_after"] = torchlite.cpu.memory_stats()

    limit = torchlite.cpu.get_cache_limit()
    torchlite.cpu.set_cache_limit(0)
    try:
        results["ms"]["torchlite (no cache)"] = measure(a, b, args.trials, args.calls)
    finally:
        torchlite.cpu.set_cache_limit(limit)
    del a, b

    try:
        import torch

        torch.set_num_threads(threads)
        ta, tb = torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())
        results["ms"]["PyTorch"] = measure(ta, tb, args.trials, args.calls)
        results["torch_version"] = torch.__version__
        del ta, tb
    except ImportError:
        results["torch_version"] = None

    results["ms"]["NumPy"] = measure(a_np.copy(), b_np.copy(), args.trials, args.calls)

    libs = list(results["ms"])
    print(f"{args.numel} float32 elements, {threads} thread(s), ms per call (median of {args.trials} trials)")
    print(f"{'case':<10}" + "".join(f"{lib:>22}" for lib in libs))
    for case in CASES:
        print(f"{case:<10}" + "".join(f"{results['ms'][lib][case]:>22.2f}" for lib in libs))
    os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
