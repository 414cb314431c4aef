"""The CUDA benchmarks of the CUDA-speed issue, on the GPU machine: `python -m benchmarks.cuda [--quick]`.

Every case runs in torchlite and in PyTorch (when a CUDA build of it is installed) in one process, on one
GPU, interleaved: one trial of torchlite, one of PyTorch, five times; each trial is enough calls for at
least `--min-time` seconds with a synchronize before and after; the median trial is reported per call.

Targets (issue 20): every case's torchlite / PyTorch time ratio <= 1.0 (<= 1.05 for matmul); elementwise
cases on large contiguous float32 at >= 95% and full reductions at >= 90% of the same GPU's
device-to-device copy bandwidth (`dst.copy_(src)`, measured in the same run).

Writes benchmarks/results/cuda.json with the device name; without a GPU it says so and exits 0.
`--device cpu` runs the same cases on the CPU (a smoke test of this script; nothing is written).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

try:  # PyTorch first: importing it after torchlite crashes in PyTorch 2.11's import on the GPU machine
    import torch
except ImportError:
    torch = None

import torchlite as tl

HERE = os.path.dirname(os.path.abspath(__file__))
TRIALS = 5


def _calibrate(fn, sync, min_time):
    fn()
    sync()
    calls = 1
    while True:
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        dt = time.perf_counter() - t0
        if dt >= min_time or calls >= 1 << 20:
            return calls
        calls = max(calls * 2, int(calls * min_time / max(dt, 1e-9) * 1.1))


def _trial(fn, sync, calls):
    sync()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    sync()
    return (time.perf_counter() - t0) / calls


def time_pair(ours, theirs, sync_ours, sync_theirs, min_time):
    """Median seconds per call of `ours` and of `theirs` (None when theirs is None), trials interleaved."""
    c1 = _calibrate(ours, sync_ours, min_time)
    c2 = _calibrate(theirs, sync_theirs, min_time) if theirs is not None else 0
    t1, t2 = [], []
    for _ in range(TRIALS):
        t1.append(_trial(ours, sync_ours, c1))
        if theirs is not None:
            t2.append(_trial(theirs, sync_theirs, c2))
    return statistics.median(t1), (statistics.median(t2) if t2 else None)


# ---------------------------------------------------------------- the cases
# Each case: (name, kind, bytes moved per call or None, setup(lib, device, scale) -> callable).
# kind: "elementwise" and "reduction" cases also get a bandwidth target; "matmul" a looser ratio.


def _randn(lib, shape, device, dtype=None):
    x = lib.randn(*shape, device=device)
    return x if dtype is None else x.to(getattr(lib, dtype))


def case_add1(lib, dev, s):
    a, b = _randn(lib, (1,), dev), _randn(lib, (1,), dev)
    return lambda: a + b


def case_tiny_fwd_bwd(lib, dev, s):
    x = _randn(lib, (16,), dev).requires_grad_()
    w = _randn(lib, (16,), dev).requires_grad_()

    def step():
        ((x * w).exp().sum()).backward()
    return step


def _unary(expr):
    def setup(lib, dev, s):
        a = _randn(lib, (s["numel"],), dev)
        return lambda: expr(lib, a)
    return setup


def case_sum_dim(dim, op):
    def setup(lib, dev, s):
        a = _randn(lib, (s["side"], s["side"]), dev)
        return lambda: getattr(a, op)(dim=dim)
    return setup


def case_cumsum(lib, dev, s):
    a = _randn(lib, (s["numel"],), dev)
    return lambda: a.cumsum(0)


def case_sort(lib, dev, s):
    a = _randn(lib, (s["sort_numel"],), dev)
    return lambda: a.sort()


def case_sort_rows(lib, dev, s):
    a = _randn(lib, (s["side"] // 2, 1000), dev)
    return lambda: a.sort(dim=1)


def case_gather(lib, dev, s):
    a = _randn(lib, (s["numel"],), dev)
    idx = lib.randint(0, s["numel"], (s["sort_numel"],), device=dev)
    return lambda: a[idx]


def case_cast(lib, dev, s):
    a = _randn(lib, (s["numel"],), dev)
    return lambda: a.to(lib.float16)


def case_softmax_composite(lib, dev, s):
    x = _randn(lib, (s["rows"], 1000), dev)

    def f():
        e = (x - x.amax(1, keepdim=True)).exp()
        return e / e.sum(1, keepdim=True)
    return f


def _functional(name, make_args):
    def setup(lib, dev, s):
        F = lib.nn.functional
        args = make_args(lib, dev, s)
        fn = getattr(F, name)
        return lambda: fn(*args)
    return setup


def case_matmul(dtype):
    def setup(lib, dev, s):
        n = s["mm"]
        a, b = _randn(lib, (n, n), dev, dtype), _randn(lib, (n, n), dev, dtype)
        return lambda: a @ b
    return setup


def case_mlp(lib, dev, s):
    F = lib.nn.functional
    g = 512
    x = _randn(lib, (g, 784), dev)
    y = lib.randint(0, 10, (g,), device=dev)
    params = [(_randn(lib, (o, i), dev) * (1.0 / i) ** 0.5).requires_grad_()
              for i, o in ((784, 2048), (2048, 2048), (2048, 10))]
    biases = [lib.zeros(o, device=dev).requires_grad_() for o in (2048, 2048, 10)]

    def step():
        h = x
        for k, (w, b) in enumerate(zip(params, biases)):
            h = F.linear(h, w, b)
            if k < 2:
                h = F.relu(h)
        loss = F.cross_entropy(h, y)
        loss.backward()
        with lib.no_grad():
            for p in params + biases:
                p.sub_(p.grad, alpha=0.01)
                p.grad = None
    return step


CASES = [
    ("add 1 element (launch overhead)", "latency", None, case_add1),
    ("tiny forward+backward", "latency", None, case_tiny_fwd_bwd),
    ("exp 64M", "elementwise", lambda s: 8 * s["numel"], _unary(lambda lib, a: a.exp())),
    ("relu 64M", "elementwise", lambda s: 8 * s["numel"], _unary(lambda lib, a: a.relu())),
    ("a * 2 + 1 64M", "elementwise", lambda s: 16 * s["numel"], _unary(lambda lib, a: a * 2 + 1)),
    ("cast float32 -> float16 64M", "elementwise", lambda s: 6 * s["numel"], case_cast),
    ("sum 64M", "reduction", lambda s: 4 * s["numel"], _unary(lambda lib, a: a.sum())),
    ("amax 64M", "reduction", lambda s: 4 * s["numel"], _unary(lambda lib, a: a.amax())),
    ("mean(dim=1) 8192x8192", "reduction", lambda s: 4 * s["side"] ** 2, case_sum_dim(1, "mean")),
    ("sum(dim=0) 8192x8192", "reduction", lambda s: 4 * s["side"] ** 2, case_sum_dim(0, "sum")),
    ("var(dim=1) 8192x8192", "reduction", lambda s: 4 * s["side"] ** 2, case_sum_dim(1, "var")),
    ("cumsum 64M", "scan", None, case_cumsum),
    ("sort 16M", "sort", None, case_sort),
    ("sort rows 4096x1000", "sort", None, case_sort_rows),
    ("a[idx] 16M of 64M", "index", None, case_gather),
    ("softmax as amax/exp/sum/div 4096x1000", "composite", None, case_softmax_composite),
    ("F.softmax 4096x1000", "nn", None,
     _functional("softmax", lambda lib, dev, s: (_randn(lib, (s["rows"], 1000), dev), 1))),
    ("F.log_softmax 4096x1000", "nn", None,
     _functional("log_softmax", lambda lib, dev, s: (_randn(lib, (s["rows"], 1000), dev), 1))),
    ("F.layer_norm 4096x1024", "nn", None,
     _functional("layer_norm", lambda lib, dev, s: (_randn(lib, (s["rows"], 1024), dev), (1024,)))),
    ("F.cross_entropy 4096x1000", "nn", None,
     _functional("cross_entropy", lambda lib, dev, s: (
         _randn(lib, (s["rows"], 1000), dev), lib.randint(0, 1000, (s["rows"],), device=dev)))),
    ("matmul float32", "matmul", None, case_matmul(None)),
    ("matmul bfloat16", "matmul", None, case_matmul("bfloat16")),
    ("matmul float16", "matmul", None, case_matmul("float16")),
    ("MLP 784-2048-2048-10 batch 512 train step", "training", None, case_mlp),
]

SIZES = {
    "full": {"numel": 64 << 20, "sort_numel": 16 << 20, "side": 8192, "rows": 4096, "mm": 8192},
    "quick": {"numel": 1 << 20, "sort_numel": 1 << 18, "side": 512, "rows": 256, "mm": 256},
}


def run(device: str, quick: bool, min_time: float, only=None) -> dict:
    s = SIZES["quick" if quick else "full"]
    sync = tl.cuda.synchronize if device == "cuda" else (lambda: None)
    theirs_lib = torch if torch is not None and (device == "cpu" or torch.cuda.is_available()) else None
    tsync = (theirs_lib.cuda.synchronize if device == "cuda" else (lambda: None)) if theirs_lib is not None else None

    a = tl.randn(s["numel"], device=device)
    c = tl.empty(s["numel"], device=device)
    copy_s, _ = time_pair(lambda: c.copy_(a), None, sync, None, min_time)
    copy_bw = 8 * s["numel"] / copy_s
    del a, c
    result = {
        "device": tl.cuda.get_device_name() if device == "cuda" else "cpu",
        "torch": theirs_lib.__version__ if theirs_lib is not None else None,
        "sizes": s, "trials": TRIALS, "min_time_s": min_time,
        "copy_GBps": copy_bw / 1e9,
        "cases": [],
    }
    for name, kind, nbytes, setup in CASES:
        if only and not any(o in name for o in only):
            continue
        ours = setup(tl, device, s)
        theirs = setup(theirs_lib, device, s) if theirs_lib is not None else None
        t_ours, t_theirs = time_pair(ours, theirs, sync, tsync, min_time)
        row = {"case": name, "kind": kind, "torchlite_us": t_ours * 1e6}
        if t_theirs is not None:
            limit = 1.05 if kind == "matmul" else 1.0
            row.update(torch_us=t_theirs * 1e6, ratio=t_ours / t_theirs, ratio_target=limit,
                       ratio_met=t_ours / t_theirs <= limit)
        if nbytes is not None:
            bw = nbytes(s) / t_ours
            target = 0.95 if kind == "elementwise" else 0.90
            row.update(GBps=bw / 1e9, of_copy=bw / copy_bw, of_copy_target=target, of_copy_met=bw / copy_bw >= target)
        result["cases"].append(row)
        print(f"{name:45s} torchlite {t_ours * 1e6:10.1f} us" +
              (f"  torch {t_theirs * 1e6:10.1f} us  ratio {t_ours / t_theirs:6.2f}" if t_theirs else "") +
              (f"  {row['of_copy']:.0%} of copy" if nbytes is not None else ""), file=sys.stderr, flush=True)
        del ours, theirs
    return result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes, short trials (a smoke run)")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                   help="cpu: run the cases on the CPU, a smoke test of this script (nothing written)")
    p.add_argument("--min-time", type=float, default=None, help="seconds per trial (default 0.2, quick 0.02)")
    p.add_argument("--only", nargs="*", help="run only the cases whose name contains one of these")
    p.add_argument("--json", default=os.path.join(HERE, "results", "cuda.json"))
    args = p.parse_args(argv)
    if args.device == "cuda":
        if not tl.cuda.is_available():
            print("benchmarks.cuda: no CUDA device here (torchlite.cuda.is_available() is False); nothing measured")
            return 0
        if tl.cuda._is_emulated():
            print("benchmarks.cuda: the CUDA device is emulated in host memory (TORCHLITE_EMULATE_CUDA=1); "
                  "nothing measured")
            return 0
    min_time = args.min_time if args.min_time is not None else (0.02 if args.quick else 0.2)
    result = run(args.device, args.quick, min_time, args.only)
    result["command"] = "python -m benchmarks.cuda" + (" --quick" if args.quick else "")
    print(json.dumps(result, indent=2))
    if args.device == "cuda" and (not args.quick or args.json != os.path.join(HERE, "results", "cuda.json")):
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
