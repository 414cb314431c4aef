#!/usr/bin/env bash
# The tests under AddressSanitizer and UndefinedBehaviorSanitizer (issue 19).
#
#   bash tools/sanitize.sh                       # the default tests below
#   bash tools/sanitize.sh tests/test_fuzz.py    # or the tests named
#
# 1. Builds a CPU-only torchlite with -fsanitize=$SANITIZE (CMake's TORCHLITE_SANITIZE; a Debug build,
#    -O0 -g1) as a wheel, in its own build dir build/sanitize/ (codegen writes to build/sanitize/generated,
#    not the shared generated/); a rerun rebuilds only what changed (a clean build: 29 min on 2 busy cores).
#    The normal install (editable or not) is not touched.
# 2. Unpacks the wheel into its own venv, build/sanitize/venv, which sees the system site-packages as a plain
#    path entry: their .pth files do not run, so an editable torchlite there is never imported. It checks
#    that torchlite and torchlite._C come from the venv.
# 3. Runs pytest from the repository root (conftest.py imports the installed torchlite, not ./torchlite)
#    with the sanitizer runtimes in LD_PRELOAD (Python is not instrumented) and PYTHONMALLOC=malloc (so
#    ASan sees Python objects too). Subprocesses (the fuzz runs its cases in one) inherit the environment.
#    Reports go to build/sanitize/logs/{asan,ubsan}.PID (with both runtimes loaded an ASan report may be in
#    ubsan.PID), also from subprocesses whose stderr a test discards; UBSan recovers (reports and goes
#    on), ASan stops the process at its first error. pytest's output: build/sanitize/pytest.log.
# 4. Prints every report; exits 1 if there is any or if pytest failed.
#
# Environment: SANITIZE (default address,undefined,float-cast-overflow: GCC's "undefined" leaves out
# float-to-integer conversions that overflow, which issue 19 asks about), PYTEST_ARGS (extra pytest
# arguments), SKIP_BUILD=1 (test the last build and venv again). The build runs under `nice` with 2 jobs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
B="$ROOT/build/sanitize"
SANITIZE=${SANITIZE:-address,undefined,float-cast-overflow}
TESTS=("$@")
if [ ${#TESTS[@]} -eq 0 ]; then
  TESTS=(tests/test_sanitizer_findings.py tests/test_fuzz.py tests/test_checked_values.py tests/test_overlap.py
         tests/test_ops.py tests/test_indexing.py tests/test_autograd.py)
fi
PY=${PYTHON:-python3}
VENV="$B/venv"
T0=$(date +%s)
stamp() { echo "sanitize: [$(( $(date +%s) - T0 )) s] $*"; }

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  stamp "building (-fsanitize=$SANITIZE, log: $B/build.log)"
  mkdir -p "$B"
  rm -rf "$B/wheel"
  if ! nice -n 10 env CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} TORCHLITE_CUDA=0 \
      "$PY" -m pip wheel --no-build-isolation --no-deps -w "$B/wheel" . \
      -C build-dir="$B/build" -C cmake.build-type=Debug \
      -C cmake.define.TORCHLITE_SANITIZE="$SANITIZE" \
      -C cmake.define.TORCHLITE_GENERATED_DIR="$B/generated" > "$B/build.log" 2>&1; then
    tail -40 "$B/build.log"; stamp "build failed"; exit 1
  fi
  stamp "built"
  # A venv of its own, not --system-site-packages: the system site-packages' .pth files would put an
  # editable torchlite's import hook first. A plain path line in a .pth adds the directory only.
  rm -rf "$VENV"
  "$PY" -m venv --without-pip "$VENV"
  SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  "$PY" -c 'import site; print("\n".join(site.getsitepackages()))' > "$SITE/system_site_packages.pth"
  "$PY" -m zipfile -e "$B"/wheel/torchlite-*.whl "$SITE"
fi

SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
SO=$(ls "$SITE"/torchlite/_C*.so)
# The sanitizer runtimes _C links to, preloaded into the uninstrumented Python.
PRELOAD=$(ldd "$SO" | awk '/lib(asan|ubsan|tsan|lsan)\.so/ {print $3}' | paste -sd: -)
[ -n "$PRELOAD" ] || { echo "sanitize: $SO links no sanitizer runtime"; exit 1; }
LOGS="$B/logs"
rm -rf "$LOGS"
mkdir -p "$LOGS"
# detect_leaks=0: Python leaks by design. allocator_may_return_null=1: a huge allocation returns null, as
# malloc does, and torchlite raises, instead of ASan aborting. max_allocation_size_mb=8192: allocations over
# 8 GiB fail at once, as test_fuzz's address-space limit makes them fail without ASan (ASan's shadow memory
# cannot live under such a limit, so the fuzz sets none here).
SANPY=(env LD_PRELOAD="$PRELOAD" PYTHONMALLOC=malloc
       ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=8192:log_path=$LOGS/asan:${ASAN_OPTIONS_EXTRA:-}"
       UBSAN_OPTIONS="print_stacktrace=1:report_error_type=1:log_path=$LOGS/ubsan:${UBSAN_OPTIONS_EXTRA:-}"
       "$VENV/bin/python")

# The sanitized build is what the tests import (from the root, where conftest.py runs first).
WHERE=$("${SANPY[@]}" -c 'import conftest, torchlite; print(torchlite.__file__, torchlite._C.__file__)')
echo "sanitize: torchlite: $WHERE"
case "$WHERE" in "$SITE"/torchlite/__init__.py\ "$SITE"/torchlite/_C*) ;;
  *) echo "sanitize: not the sanitized build"; exit 1 ;; esac

stamp "running ${TESTS[*]} (LD_PRELOAD=$PRELOAD)"
set +e
"${SANPY[@]}" -m pytest -q -p no:cacheprovider ${PYTEST_ARGS:-} "${TESTS[@]}" > "$B/pytest.log" 2>&1
rc=$?
tail -30 "$B/pytest.log"
set -e
stamp "pytest exit $rc"

# A log holding only ASan's "failed to allocate" warnings (an allocation over max_allocation_size_mb refused, as
# the fuzz asks for; torchlite raised) is not a report.
n=0
for f in "$LOGS"/*; do
  [ -e "$f" ] || continue
  grep -qv "WARNING: AddressSanitizer failed to allocate" "$f" || continue
  n=$((n + 1))
  echo "==================== $(basename "$f")"
  head -c 20000 "$f"
done
if [ $n -gt 0 ]; then
  echo "sanitize: $n report file(s) in $LOGS; distinct reports:"
  grep -h "^SUMMARY: " "$LOGS"/* | sort | uniq -c | sort -rn
fi
if [ $n -gt 0 ] || [ "$rc" != 0 ]; then stamp "NOT clean"; exit 1; fi
stamp "clean"
