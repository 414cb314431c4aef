"""The user story, timed: add an operator to the schema, rebuild, use it.

    python tools/time_add_op.py [--workdir build/story] [--json out.json]

1. Mirrors the project into WORKDIR/src (changed files only, mtimes kept) and
   makes WORKDIR/venv (with the system site-packages, for the build tools).
2. Warm-up: builds and installs the copy with the dev loop
   (`pip install --no-build-isolation -e .`); the first run is a full build,
   later runs reuse WORKDIR/src/build.
3. Inserts `softsign_bar` after the first entry of native_functions.yaml,
   starts the clock, runs the dev loop again, imports torchlite in a fresh
   interpreter and calls torchlite.softsign_bar and Tensor.softsign_bar; stops
   the clock.
4. Runs the generated gradient checks of the new op (tests/test_autograd_ops.py
   -k softsign_bar: gradcheck and gradgradcheck, no test written for it).
5. Reports the seconds and which object files were recompiled, then restores
   the schema.
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import time
import venv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEW_OP = """- func: softsign_bar(Tensor self) -> Tensor
  variants: [function, method]
  dtypes: floating
  promotion: int_to_float
  pointwise: self / (1 + abs(self))
  derivatives:
    self: grad / (1 + abs(self)).pow(2)

"""
CHECK = """
import torchlite as tl
x = tl.tensor([-2.0, 0.0, 3.0])
want = [-2.0 / 3.0, 0.0, 0.75]
for got in (tl.softsign_bar(x).tolist(), x.softsign_bar().tolist()):
    assert all(abs(g - w) < 1e-6 for g, w in zip(got, want)), got
assert tl.softsign_bar(tl.tensor([1, 2])).dtype == tl.float32
import torchlite.autograd.forward_ad as fwAD
with fwAD.dual_level():  # no jvp: entry: forward mode raises, naming the op
    try:
        tl.softsign_bar(fwAD.make_dual(x, tl.ones(3)))
    except NotImplementedError as e:
        assert "softsign_bar" in str(e), e
    else:
        raise AssertionError("softsign_bar has no jvp: forward AD must raise")
print("softsign_bar OK")
"""
SKIP = {"build", "generated", ".git", "__pycache__", ".pytest_cache"}
CACHES = {"__pycache__", ".pytest_cache"}


def project_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        return [f for f in out.splitlines() if f and os.path.isfile(os.path.join(ROOT, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(ROOT):
            dirnames[:] = [d for d in dirnames if d not in SKIP]
            files += [os.path.relpath(os.path.join(dirpath, f), ROOT) for f in filenames]
        return files


def mirror(dst: str) -> None:
    """Makes dst's files those of the project: copies what changed, removes what the project no longer has."""
    wanted = {rel for rel in project_files() if rel.split(os.sep)[0] not in SKIP}
    for rel in sorted(wanted):
        s, d = os.path.join(ROOT, rel), os.path.join(dst, rel)
        if os.path.exists(d) and filecmp.cmp(s, d, shallow=False):
            continue
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(s, d)
    for dirpath, dirnames, filenames in os.walk(dst):
        dirnames[:] = [d for d in dirnames if d not in (SKIP if dirpath == dst else CACHES)]
        for f in filenames:
            rel = os.path.relpath(os.path.join(dirpath, f), dst)
            if rel not in wanted:
                os.remove(os.path.join(dirpath, f))


def objects(build_root: str) -> dict[str, float]:
    out = {}
    for dirpath, _, files in os.walk(build_root):
        for f in files:
            if f.endswith(".o"):
                p = os.path.join(dirpath, f)
                out[os.path.relpath(p, build_root)] = os.stat(p).st_mtime_ns
    return out


def run(cmd, cwd, env=None) -> None:
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout[-4000:] + r.stderr[-4000:])
        raise SystemExit(f"failed: {' '.join(cmd)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "story"))
    ap.add_argument("--json", help="write the result here too")
    args = ap.parse_args()
    work = os.path.abspath(args.workdir)
    src = os.path.join(work, "src")
    os.makedirs(src, exist_ok=True)
    mirror(src)
    vdir = os.path.join(work, "venv")
    py = os.path.join(vdir, "bin", "python")
    if not os.path.exists(py):
        venv.EnvBuilder(system_site_packages=True, with_pip=True).create(vdir)
    pip = [py, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-q", "-e", "."]
    yaml_path = os.path.join(src, "native_functions.yaml")
    pristine = open(os.path.join(ROOT, "native_functions.yaml")).read()

    t0 = time.perf_counter()
    run(pip, src)
    warm = time.perf_counter() - t0

    build_root = os.path.join(src, "build")
    before = objects(build_root)
    lines = pristine.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("- func:")]
    edited = "".join(lines[:starts[1]]) + NEW_OP + "".join(lines[starts[1]:])
    try:
        t0 = time.perf_counter()
        with open(yaml_path, "w") as f:
            f.write(edited)
        run(pip, src)
        run([py, "-c", CHECK], work)
        seconds = time.perf_counter() - t0
        # The new op's gradient is checked by the generated tests, with no test written for it.
        r = subprocess.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_autograd_ops.py",
                            "-k", "softsign_bar"], cwd=src, capture_output=True, text=True)
        gradcheck = (r.stdout.strip().splitlines() or ["no output"])[-1]
        if r.returncode != 0:
            sys.stderr.write(r.stdout + r.stderr)
            raise SystemExit("the generated gradient checks of softsign_bar failed")
    finally:
        with open(yaml_path, "w") as f:
            f.write(pristine)
    after = objects(build_root)
    recompiled = sorted(k for k, v in after.items() if before.get(k) != v)
    result = {"seconds_edit_to_import": round(seconds, 2), "warmup_seconds": round(warm, 2),
              "recompiled": recompiled, "cuda": os.environ.get("TORCHLITE_CUDA", "auto"),
              "gradcheck": gradcheck}
    print(f"edit -> rebuild -> import -> softsign_bar: {seconds:.1f} s (target <= 20 s)")
    print(f"warm-up build: {warm:.1f} s")
    print(f"generated gradient checks of softsign_bar: {gradcheck}")
    print("recompiled:\n  " + "\n  ".join(recompiled))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
