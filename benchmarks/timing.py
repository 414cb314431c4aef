"""Timing: a compiled loop per statement, calibration to a minimum trial time, interleaved trials.

A statement (`a + b`) runs inside a function compiled for it, with its inputs as
local variables, like `timeit` but without a global lookup per name and with
in-place statements (`a += b`) allowed. As in `timeit`, the garbage collector is
off while a trial runs.
"""
from __future__ import annotations

import gc
import itertools
import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class Bench:
    """One case set up for one library: `stmt` runs with the names in `env` bound."""

    stmt: str
    env: dict
    # Returns a NumPy array that all libraries must agree on (compared before timing), or None.
    reference: Callable[[], object] | None = None


def compile_loop(stmt: str, names: list[str]) -> Callable:
    """A function `loop(n, *inputs) -> seconds` that runs `stmt` n times with `names` bound to inputs."""
    for name in names:
        if not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"benchmark input name {name!r} must be an identifier not starting with '_'")
    params = "".join(f", {name}" for name in names)
    source = (
        f"def _loop(_n, _perf, _repeat{params}):\n"
        f"    _t0 = _perf()\n"
        f"    for _ in _repeat(None, _n):\n"
        f"        {stmt}\n"
        f"    return _perf() - _t0\n"
    )
    namespace: dict = {}
    exec(compile(source, f"<benchmark: {stmt}>", "exec"), namespace)
    return namespace["_loop"]


class Timer:
    """Times a Bench: `run(n)` is the wall time of n executions of its statement."""

    def __init__(self, bench: Bench):
        names = sorted(bench.env)
        self._loop = compile_loop(bench.stmt, names)
        self._args = [bench.env[name] for name in names]
        self.calls = 1  # per trial, set by calibrate()

    def run(self, n: int) -> float:
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._loop(n, time.perf_counter, itertools.repeat, *self._args)
        finally:
            if gc_was_enabled:
                gc.enable()

    def calibrate(self, min_time: float, warmup: int = 2) -> None:
        """Warms up, then finds a call count whose trial lasts at least `min_time` seconds."""
        for _ in range(warmup):
            self.run(1)
        n = 1
        while True:
            elapsed = self.run(n)
            if elapsed >= min_time:
                break
            if elapsed < min_time / 100:
                n *= 10
            else:  # close enough to extrapolate; aim 20% over to absorb noise
                n = max(n + 1, math.ceil(n * min_time / elapsed * 1.2))
        self.calls = n


def interleaved_trials(timers: dict[str, Timer], trials: int, min_time: float,
                       pause: float = 0.0) -> tuple[dict[str, list[float]], dict[str, list[int]]]:
    """Per-call seconds (and calls made) of each timer's trials, alternating timers trial by trial.

    Alternating lets drift hit all libraries alike. A trial repeats the calibrated call count until
    it has lasted `min_time` (calibration during a slow spell undercounts). `pause` seconds of
    sleep before each trial let the previous library's idle worker threads (OpenMP, OpenBLAS)
    stop spin-waiting: spinning, they slow the next library's threads.
    """
    per_call: dict[str, list[float]] = {name: [] for name in timers}
    calls: dict[str, list[int]] = {name: [] for name in timers}
    for _ in range(trials):
        for name, timer in timers.items():
            if pause:
                time.sleep(pause)
            elapsed, n = 0.0, 0
            while elapsed < min_time:
                elapsed += timer.run(timer.calls)
                n += timer.calls
            per_call[name].append(elapsed / n)
            calls[name].append(n)
    return per_call, calls


def summarize(per_call: list[float], calls: list[int]) -> dict:
    """The median per-call time over trials, with each trial's per-call time and call count."""
    return {
        "median_s": statistics.median(per_call),
        "min_s": min(per_call),
        "max_s": max(per_call),
        "trials_s": per_call,
        "calls_per_trial": calls,
    }
