"""The CUDA benchmarks of the CUDA issue, on the GPU machine: `python -m benchmarks.cuda [--quick]`.

Targets (measured in one run, on one GPU):
- elementwise `add(a, b, out=c)` on float32 moves at least 85% of the bytes per second of the same
  GPU's device-to-device copy (`dst.copy_(src)`, itself checked against cudaMemcpy through PyTorch);
- `a @ b` (float32 and float16, square) reaches at least 0.95x PyTorch's throughput.
Each timing is the median of 5 trials of enough calls for at least 0.2 s, with a synchronize before and
after each trial. Writes benchmarks/results/cuda.json; without a GPU it says so and exits 0.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import torchlite as tl

HERE = os.path.dirname(os.path.abspath(__file__))


def _time(fn, sync, min_time=0.2, trials=5):
    fn()
    sync()
    calls = 1
    while True:  # calibrate: calls per trial so that a trial lasts min_time
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            break
        calls = max(calls * 2, int(calls * min_time / max(dt, 1e-9)))
    times = []
    for _ in range(trials):
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / calls)
    return statistics.median(times)


def run(numel: int, n: int, min_time: float) -> dict:
    sync = tl.cuda.synchronize
    a = tl.tensor(np.random.default_rng(0).standard_normal(numel, dtype=np.float32)).cuda()
    b = tl.tensor(np.random.default_rng(1).standard_normal(numel, dtype=np.float32)).cuda()
    c = tl.empty(numel, device="cuda")
    copy_s = _time(lambda: c.copy_(a), sync, min_time)
    add_s = _time(lambda: tl.add(a, b, out=c), sync, min_time)
    copy_bw = 2 * 4 * numel / copy_s
    add_bw = 3 * 4 * numel / add_s
    result = {
        "device": tl.cuda.get_device_name(),
        "numel": numel, "copy_GBps": copy_bw / 1e9, "add_GBps": add_bw / 1e9,
        "add_vs_copy": add_bw / copy_bw, "add_target": 0.85, "add_met": add_bw / copy_bw >= 0.85,
        "matmul": [],
    }
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        ta = torch.from_numpy(np.random.default_rng(0).standard_normal(numel, dtype=np.float32)).cuda()
        tc = torch.empty_like(ta)
        t_copy = _time(lambda: tc.copy_(ta), torch.cuda.synchronize, min_time)
        result["torch_copy_GBps"] = 2 * 4 * numel / t_copy / 1e9
    for dtype in ("float32", "float16"):
        x = np.random.default_rng(2).standard_normal((n, n), dtype=np.float32)
        y = np.random.default_rng(3).standard_normal((n, n), dtype=np.float32)
        lx, ly = tl.tensor(x).to(getattr(tl, dtype)).cuda(), tl.tensor(y).to(getattr(tl, dtype)).cuda()
        ours = _time(lambda: lx @ ly, sync, min_time)
        row = {"dtype": dtype, "n": n, "torchlite_TFLOPs": 2 * n ** 3 / ours / 1e12,
               "cublas": bool(tl._C._cuda_blas_available())}
        if torch is not None and torch.cuda.is_available():
            tx, ty = (torch.from_numpy(v).to(getattr(torch, dtype)).cuda() for v in (x, y))
            theirs = _time(lambda: tx @ ty, torch.cuda.synchronize, min_time)
            row.update(torch_TFLOPs=2 * n ** 3 / theirs / 1e12, ratio=theirs / ours, target=0.95,
                       met=theirs / ours >= 0.95)
        result["matmul"].append(row)
    return result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes, short trials (a smoke run)")
    p.add_argument("--json", default=os.path.join(HERE, "results", "cuda.json"))
    args = p.parse_args(argv)
    if not tl.cuda.is_available():
        print("benchmarks.cuda: no CUDA device here (torchlite.cuda.is_available() is False); nothing measured")
        return 0
    if tl.cuda._is_emulated():
        print("benchmarks.cuda: the CUDA device is emulated in host memory (TORCHLITE_EMULATE_CUDA=1); nothing "
              "measured")
        return 0
    numel, n, min_time = (1 << 20, 256, 0.02) if args.quick else (64 << 20, 4096, 0.2)
    result = run(numel, n, min_time)
    print(json.dumps(result, indent=2))
    if not args.quick:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
