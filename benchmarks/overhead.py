"""Per-op overhead on 1-element float32 tensors: the pipeline issue's gate.

python benchmarks/overhead.py [--json out.json]

Prints the median time per call (µs) of each case, over many repetitions; with
PyTorch installed, the same cases run on PyTorch in the same process for
comparison. The benchmarks issue grows this into the full suite.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import timeit

CASES = {
    "a + b": "a + b",
    "a + 2.0": "a + 2.0",
    "a.add(b, alpha=2)": "a.add(b, alpha=2)",
    "add(a, b, out=o)": "lib.add(a, b, out=o)",
}
GATE_US = 0.8


def measure(lib, number=200_000, repeat=15) -> dict[str, float]:
    env = {"lib": lib, "a": lib.ones(1), "b": lib.ones(1), "o": lib.ones(1)}
    out = {}
    for name, stmt in CASES.items():
        t = timeit.Timer(stmt, globals=env)
        t.timeit(number // 10)  # warm-up
        runs = [t.timeit(number) / number * 1e6 for _ in range(repeat)]
        out[name] = statistics.median(runs)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write the results here too")
    ap.add_argument("--number", type=int, default=200_000)
    args = ap.parse_args()
    import torchlite

    results = {"machine": platform.processor() or platform.machine(), "torchlite": measure(torchlite, args.number)}
    try:
        import torch

        torch.set_num_threads(1)
        results["torch"] = measure(torch, args.number)
        results["torch_version"] = torch.__version__
    except ImportError:
        results["torch"] = None
    print(f"{'case':<22}{'torchlite µs':>14}{'PyTorch µs':>12}{'gate':>8}")
    for name in CASES:
        tl_us = results["torchlite"][name]
        th = results["torch"][name] if results["torch"] else float("nan")
        print(f"{name:<22}{tl_us:>14.3f}{th:>12.3f}{'ok' if tl_us <= GATE_US else 'OVER':>8}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
