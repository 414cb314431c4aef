"""The benchmark suite's entry point: `python -m benchmarks` from the repository root.

For each case and thread count, every library gets its own copy of the same NumPy-made
inputs; the results of one call are compared across libraries (a sanity check, not
timed); then each library warms up and calibrates its call count so that a trial lasts
at least --min-time seconds, and the trials run interleaved (torchlite, PyTorch, NumPy,
torchlite, ...). A library's time is the median per-call time over its trials; the
ratio is torchlite / PyTorch from the same run (lower is better), next to the issue's
target. `import` is timed in fresh interpreters (see importtime.py).
"""
from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import shlex
import sys

import numpy as np

from benchmarks import cases as cases_mod
from benchmarks import importtime
from benchmarks.cases import Case, Inputs, Sizes
from benchmarks.libs import DISPLAY, Library, load, torchlite_install
from benchmarks.timing import Timer, interleaved_trials, summarize

DEFAULT_JSON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "suite.json")
SCHEMA_VERSION = 1


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", default="torch,numpy",
                    help="libraries to compare with, comma-separated: torch, numpy, or none "
                         "(default: torch,numpy; a library that is not installed is skipped with a note)")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default: 1,2)")
    ap.add_argument("--cases", default=None,
                    help="comma-separated groups, case ids or substrings of ids (default: all; see --list)")
    ap.add_argument("--trials", type=int, default=None, help="trials per library (default: 5; --quick: 3)")
    ap.add_argument("--min-time", type=float, default=None,
                    help="minimum seconds per trial (default: 0.2; --quick: 0.05)")
    ap.add_argument("--pause", type=float, default=0.1,
                    help="seconds of sleep before each trial at more than one thread, so the previous library's "
                         "spin-waiting worker threads go idle first (default: 0.1)")
    ap.add_argument("--quick", action="store_true", help="a fast smoke run: fewer trials, shorter trials")
    ap.add_argument("--tiny", action="store_true",
                    help="tiny sizes, to exercise the code paths (for tests; the numbers mean nothing)")
    ap.add_argument("--json", default=DEFAULT_JSON, help=f"where to write the results (default: {DEFAULT_JSON})")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    args = ap.parse_args(argv)
    if args.trials is None:
        args.trials = 3 if args.quick else 5
    if args.min_time is None:
        args.min_time = 0.05 if args.quick else 0.2
    if args.trials < 1:
        ap.error(f"--trials must be at least 1, got {args.trials}")
    if args.pause < 0:
        ap.error(f"--pause must not be negative, got {args.pause}")
    if args.min_time <= 0:
        ap.error(f"--min-time must be positive, got {args.min_time}")
    try:
        args.thread_counts = [int(t) for t in args.threads.split(",") if t.strip()]
    except ValueError:
        ap.error(f"--threads: expected comma-separated integers such as 1,2, got {args.threads!r}")
    if not args.thread_counts or min(args.thread_counts) < 1:
        ap.error(f"--threads: thread counts must be positive, got {args.threads!r}")
    names = [name.strip() for name in args.against.split(",") if name.strip()]
    args.against_list = [] if names == ["none"] else names
    return args


# ---- formatting ------------------------------------------------------------------------------


def format_time(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def _format_ratio(ratio: float) -> str:
    return f"{ratio:.2f}" if ratio >= 0.01 else f"{ratio:.2g}"


def _median(record: dict, lib: str) -> float | None:
    entry = record["libraries"].get(lib)
    return entry.get("median_s") if entry else None


def table(records: list[dict]) -> str:
    """The Markdown table: case | threads | torchlite | PyTorch | NumPy | ratio | target | met."""
    header = ["case", "threads", DISPLAY["torchlite"], DISPLAY["torch"], DISPLAY["numpy"],
              "ratio", "target", "met"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    for r in records:
        ratio = "—" if r["ratio"] is None else _format_ratio(r["ratio"])
        target = "—" if r["target"] is None else f"≤ {r['target']:g}"
        met = {True: "met", False: "**not met**", None: "—"}[r["met"]]
        threads = "—" if r["threads"] is None else str(r["threads"])
        cells = [r["case"], threads, *(format_time(_median(r, lib)) for lib in ("torchlite", "torch", "numpy")),
                 ratio, target, met]
        lines.append("| " + " | ".join(cells) + " |")
    judged = [r for r in records if r["met"] is not None]
    lines.append("")
    lines.append(f"Targets met: {sum(r['met'] for r in judged)} of {len(judged)} "
                 "(ratio = torchlite time / PyTorch time, same run; lower is better).")
    return "\n".join(lines)


# ---- running ---------------------------------------------------------------------------------


def check_agreement(case: Case, benches: dict, threads: int) -> None:
    """Fails when the libraries compute different results for the case (so the timings compare like with like)."""
    references = {name: bench.reference() for name, bench in benches.items() if bench.reference is not None}
    if "torchlite" not in references:
        return
    expected = references.pop("torchlite")
    for name, got in references.items():
        scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1.0
        if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-3, atol=1e-3 * scale):
            diff = np.max(np.abs(got - expected)) if got.shape == expected.shape else "shapes differ"
            raise RuntimeError(
                f"sanity check failed for {case.id} at {threads} thread(s): torchlite and {DISPLAY[name]} disagree "
                f"(shapes {expected.shape} and {got.shape}, max abs difference {diff}; "
                f"torchlite {expected.ravel()[:4]}, {DISPLAY[name]} {got.ravel()[:4]})")


def _record(case: Case, sizes: Sizes, threads: int | None, libs: list[Library], results: dict) -> dict:
    record = {"id": case.id, "group": case.group, "case": case.label(sizes), "threads": threads,
              "target": case.target, "notes": case.notes, "libraries": results}
    tl = _median(record, "torchlite")
    th = _median(record, "torch")
    npy = _median(record, "numpy")
    record["ratio"] = tl / th if tl and th else None
    record["ratio_vs_numpy"] = tl / npy if tl and npy else None
    record["met"] = None if record["ratio"] is None or case.target is None else record["ratio"] <= case.target
    return record


def run_timed_case(case: Case, sizes: Sizes, libs: list[Library], thread_counts: list[int],
                   trials: int, min_time: float, pause: float, progress) -> list[dict]:
    inputs = Inputs(seed=0)
    records = []
    for i, threads in enumerate(thread_counts):
        in_effect = {lib.name: lib.set_threads(threads) for lib in libs}
        benches, results = {}, {}
        for lib in libs:
            bench = case.build(lib, sizes, inputs)
            if bench is None:
                results[lib.name] = {"skipped": f"not applicable to {lib.display}"}
            else:
                benches[lib.name] = bench
        if i == 0:
            check_agreement(case, benches, threads)
        timers = {name: Timer(bench) for name, bench in benches.items()}
        for timer in timers.values():
            timer.calibrate(min_time)
        # One thread: no worker threads to spin, so no pause needed.
        per_call, calls = interleaved_trials(timers, trials, min_time, pause=pause if threads > 1 else 0.0)
        for name in timers:
            results[name] = summarize(per_call[name], calls[name])
            results[name]["threads_in_effect"] = in_effect[name]
        record = _record(case, sizes, threads, libs, {lib.name: results[lib.name] for lib in libs})
        progress(record)
        records.append(record)
        del benches, timers
        gc.collect()
    return records


def run_import_case(case: Case, sizes: Sizes, libs: list[Library], trials: int, install: dict, progress) -> dict:
    modules = [lib.name for lib in libs]
    staged = bool(install["editable"])
    times = importtime.measure(modules, trials, staged=staged)
    results = {name: summarize(times[name], [1] * trials) for name in modules}
    record = _record(case, sizes, None, libs, results)
    record["import_of"] = ("a staged non-editable copy of the editable install (python -S)" if staged
                           else "the installed package")
    progress(record)
    return record


def machine_info(libs: list[Library], skipped: dict, install: dict) -> dict:
    try:
        usable_cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        usable_cpus = None
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "usable_cpus": usable_cpus,
        "python": platform.python_version(),
        "versions": {lib.name: lib.version for lib in libs},
        "default_threads": {lib.name: lib.get_threads() for lib in libs},
        "skipped_libraries": skipped,
        "library_notes": {lib.name: lib.notes for lib in libs if lib.notes},
        "torchlite_install": install,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        for case in cases_mod.CASES:
            print(f"{case.id:<28} {case.label(cases_mod.FULL)}  (target {case.target})")
        return 0
    selected = cases_mod.select(args.cases)
    sizes = cases_mod.TINY if args.tiny else cases_mod.FULL
    libs, skipped = load(args.against_list)
    for name, why in skipped.items():
        print(f"note: {DISPLAY[name]} skipped: {why}", file=sys.stderr)
    if "torch" not in [lib.name for lib in libs]:
        print("note: no PyTorch, so no ratios", file=sys.stderr)
    install = torchlite_install()
    if any(case.build is None for case in selected) and install["editable"]:
        print("note: torchlite is an editable install; `import` is timed on a staged non-editable copy",
              file=sys.stderr)
    cpus = os.cpu_count() or 1
    if max(args.thread_counts) > cpus:
        print(f"note: {max(args.thread_counts)} threads on {cpus} CPUs", file=sys.stderr)

    command = "python -m benchmarks " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    output = {
        "schema_version": SCHEMA_VERSION,
        "command": command.strip(),
        "settings": {"against": args.against_list, "threads": args.thread_counts, "trials": args.trials,
                     "min_time_s": args.min_time, "pause_before_trial_s": args.pause,
                     "pause_applies": "at more than one thread", "quick": args.quick, "tiny": args.tiny,
                     "cases": [case.id for case in selected], "sizes": sizes.__dict__,
                     "statistic": "median over trials of the mean per-call time within a trial "
                                  "(a trial lasts at least min_time_s; import: one import per trial)",
                     "gc": "disabled during trials (as timeit does)"},
        "machine": machine_info(libs, skipped, install),
        "load_average_before": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "results": [],
    }
    original = {lib.name: lib.get_threads() for lib in libs}

    def progress(record: dict) -> None:
        times = ", ".join(f"{DISPLAY[name]} {format_time(entry.get('median_s'))}"
                          for name, entry in record["libraries"].items() if "median_s" in entry)
        ratio = "" if record["ratio"] is None else f", ratio {_format_ratio(record['ratio'])}"
        threads = "" if record["threads"] is None else f" [{record['threads']} thread(s)]"
        print(f"{record['id']}{threads}: {times}{ratio}", file=sys.stderr, flush=True)

    try:
        for case in selected:
            if case.build is None:
                output["results"].append(run_import_case(case, sizes, libs, args.trials, install, progress))
            else:
                counts = args.thread_counts if case.per_thread else args.thread_counts[:1]
                output["results"] += run_timed_case(case, sizes, libs, counts, args.trials, args.min_time,
                                                 args.pause, progress)
    finally:
        for lib in libs:
            if original[lib.name] is not None:
                lib.set_threads(original[lib.name])
    output["load_average_after"] = os.getloadavg() if hasattr(os, "getloadavg") else None

    print(table(output["results"]))
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(output, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"\nwrote {args.json}")
    return 0
