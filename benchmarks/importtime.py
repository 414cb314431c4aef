"""`import X` wall time in fresh interpreters, measured inside each child around the import statement.

The issue wants the time on a non-editable install: an editable install (scikit-build-core's
redirect mode) may run CMake on import. When torchlite is installed editable, the suite stages a
non-editable copy of the package (its Python files plus the compiled extension, what the wheel
holds) in a temporary directory and imports that one, with `python -S` (no site: the editable
install's import hook is not installed) and the interpreter's own path on PYTHONPATH. PyTorch and
NumPy are then imported the same way, so the three numbers stay comparable.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

CHILD = "import time; t0 = time.perf_counter(); import {module}; print(repr(time.perf_counter() - t0))"


def stage_torchlite(dest: str) -> str:
    """Copies the imported torchlite package (Python files and compiled modules) under `dest`."""
    import torchlite

    source = os.path.dirname(os.path.abspath(torchlite.__file__))
    package = os.path.join(dest, "torchlite")
    shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # Modules that an editable install maps from elsewhere (the built extension).
    for name, module in list(sys.modules.items()):
        if not (name == "torchlite" or name.startswith("torchlite.")):
            continue
        path = getattr(module, "__file__", None)
        if not path or os.path.abspath(path).startswith(source + os.sep):
            continue
        parts = name.split(".")[1:]
        target_dir = os.path.join(package, *parts[:-1])
        os.makedirs(target_dir, exist_ok=True)
        shutil.copy2(path, os.path.join(target_dir, os.path.basename(path)))
    return dest


class ImportTimer:
    """Runs `import <module>` in fresh interpreters, plain or against a staged copy of torchlite."""

    def __init__(self, staged_dir: str | None):
        self.staged_dir = staged_dir
        self.env = dict(os.environ)
        self.flags: list[str] = []
        if staged_dir:
            # The interpreter's path, less the current directory, this repository's and the one that
            # holds torchlite's sources (an editable install may add it): a source checkout holds a
            # torchlite/ without the compiled extension.
            import torchlite

            repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            sources = os.path.dirname(os.path.dirname(os.path.abspath(torchlite.__file__)))
            skip = {os.path.abspath(os.getcwd()), repo, sources}
            path = [staged_dir] + [p for p in sys.path if p and os.path.isdir(p) and os.path.abspath(p) not in skip]
            self.env["PYTHONPATH"] = os.pathsep.join(path)
            self.flags = ["-S"]

    def once(self, module: str) -> float:
        """Seconds spent in `import module` in a fresh interpreter."""
        cmd = [sys.executable, *self.flags, "-c", CHILD.format(module=module)]
        proc = subprocess.run(cmd, env=self.env, capture_output=True, text=True, cwd=tempfile.gettempdir())
        if proc.returncode != 0:
            raise RuntimeError(f"`import {module}` failed in a fresh interpreter ({' '.join(cmd)}):\n{proc.stderr}")
        return float(proc.stdout.strip().splitlines()[-1])

    def check_staged(self) -> None:
        """Fails unless the child imports torchlite from the staged copy."""
        if not self.staged_dir:
            return
        cmd = [sys.executable, *self.flags, "-c", "import torchlite; print(torchlite.__file__)"]
        proc = subprocess.run(cmd, env=self.env, capture_output=True, text=True, cwd=tempfile.gettempdir())
        where = proc.stdout.strip()
        if proc.returncode != 0 or not where.startswith(self.staged_dir):
            raise RuntimeError(f"the staged copy of torchlite does not import (got {where!r}):\n{proc.stderr}")


def measure(modules: list[str], trials: int, staged: bool) -> dict[str, list[float]]:
    """Per-module import seconds over `trials` rounds (modules alternate within a round), after a warm-up."""
    with tempfile.TemporaryDirectory(prefix="torchlite-import-") as tmp:
        timer = ImportTimer(stage_torchlite(tmp) if staged else None)
        timer.check_staged()
        for module in modules:  # warm-up: bytecode caches, page cache
            timer.once(module)
        times: dict[str, list[float]] = {module: [] for module in modules}
        for _ in range(trials):
            for module in modules:
                times[module].append(timer.once(module))
        return times
