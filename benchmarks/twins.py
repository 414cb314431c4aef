"""Kernels written twice: the CPU kernel against the host compilation of the CUDA kernel (kernels/gpu/*.inc).

python benchmarks/twins.py [--trials T] [--json PATH]

Every hand-written CUDA kernel family is written once over a backend and also compiled for the host
(kernels/gpu/Backend.h). Where that host compilation is as fast as the CPU kernel, the CPU runs it and
the family is written once (random); where it is slower, the CPU keeps its own kernel and the two share
their metas, checks and orders (copy, sorting, indexing). This measures which is which: each case runs
with the CPU kernels and with `_C._set_gpu_kernels_on_host(True)`, interleaved, on the same inputs, at
the machine's thread count. Prints a table (median of the trials of one call each, after a warm-up) and
writes benchmarks/results/twins.json (or --json).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import torchlite as tl
from torchlite import _C

N = 4 * 2**20


def cases():
    """(family, label, statement as a function) on inputs made once."""
    tl.manual_seed(0)
    x = tl.randn(N)
    rows = tl.randn(1024, 1024)
    idx = tl.randint(0, N, (N // 2,))
    m = tl.randn(2048, 2048)
    half = tl.empty(N, dtype=tl.float16)
    target = tl.empty(2048, 2048)
    mask = x > 0
    return [
        ("random", "uniform_, 4M float32", lambda: x.uniform_()),
        ("random", "normal_, 4M float32", lambda: x.normal_()),
        ("copy", "copy_ of a transposed 2048x2048", lambda: target.copy_(m.t())),
        ("copy", "copy_ float32 -> float16, 4M", lambda: half.copy_(x)),
        ("sorting", "sort of 1024 rows of 1024", lambda: rows.sort(1)),
        ("sorting", "topk(10) of 1024 rows of 1024", lambda: rows.topk(10, 1)),
        ("indexing", "index_select 2M of 4M", lambda: x.index_select(0, idx)),
        ("indexing", "gather 2M of 4M", lambda: x.gather(0, idx)),
        ("indexing", "x[idx], 2M of 4M", lambda: x[idx]),
        ("indexing", "scatter_add_ of 2M", lambda: tl.zeros(N).scatter_add_(0, idx, x[: N // 2])),
        ("indexing", "masked_select, 4M", lambda: x.masked_select(mask)),
        ("indexing", "nonzero, 4M", lambda: mask.nonzero()),
    ]


def _once(fn, on_host: bool) -> float:
    previous = _C._set_gpu_kernels_on_host(on_host)
    try:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    finally:
        _C._set_gpu_kernels_on_host(previous)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=7)
    ap.add_argument("--json", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                                   "twins.json"))
    args = ap.parse_args(argv)
    results = []
    print("| family | case | CPU kernel | CUDA kernel on the host | ratio |")
    print("|---|---|---|---|---|")
    for family, label, fn in cases():
        _once(fn, False), _once(fn, True)  # warm-up
        cpu, host = [], []
        for _ in range(args.trials):
            cpu.append(_once(fn, False))
            host.append(_once(fn, True))
        c, h = statistics.median(cpu), statistics.median(host)
        results.append({"family": family, "case": label, "cpu_s": c, "on_host_s": h, "ratio": h / c})
        print(f"| {family} | {label} | {c * 1e3:.1f} ms | {h * 1e3:.1f} ms | {h / c:.2f} |", flush=True)
    with open(args.json, "w") as f:
        json.dump({"machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                               "threads": tl.get_num_threads() if hasattr(tl, "get_num_threads") else None},
                   "trials": args.trials, "results": results}, f, indent=1)
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
