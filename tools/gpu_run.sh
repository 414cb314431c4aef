#!/usr/bin/env bash
# One call on the lent GPU machine (the device tool; $OUT comes back): build the CUDA wheel, run the CUDA
# tests, the CUDA benchmark (benchmarks/cuda.py) and the CUB check (tools/check_cub_gpu.py), each under a
# timeout, writing what it has to $OUT as it goes. That machine has no network and no scipy-openblas32:
# first, here, `pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp
# --platform manylinux_2_28_x86_64 -d .whl scipy-openblas32` into a git-ignored .whl/, then run
# `bash tools/gpu_run.sh` there with carry [".whl"]. Measured on 2026-11-27 (H100): the build takes
# 264-281 s with 16 cores, the tests about 40 s, the benchmark about 25 s at --min-time 0.04; the machine's
# start costs about 45 s of the session's device time, and an idle warm machine keeps costing it.
# Timeouts: BUILD_S, TEST_S, BENCH_S, CUB_S; MIN_TIME for the benchmark; EXTRA_TESTS for more test files.
# SANITIZE_S > 0 also runs SANITIZE_TESTS (default tests/test_cuda.py) under compute-sanitizer's memcheck and
# racecheck (issue 19), each within SANITIZE_S seconds, after the CUB check; the reports go to $OUT/sanitizer-*.log.
set -u
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$OUT/steps.log"; }
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/scipy_openblas32*.whl && export PYTHONPATH=/tmp/site
export CMAKE_BUILD_PARALLEL_LEVEL=16 PYTHONUNBUFFERED=1
stamp "building"
TORCHLITE_CUDA=1 timeout ${BUILD_S:-400} python3 -m pip wheel --no-build-isolation --no-deps -w /tmp/wh . > "$OUT/build.log" 2>&1
stamp "build rc=$?"
python3 -m pip install -q --no-deps /tmp/wh/torchlite-*.whl || { stamp "no wheel"; grep -B5 -A20 "error" "$OUT/build.log" | head -80; exit 1; }
stamp "installed"
timeout ${TEST_S:-150} python3 -m pytest -q --maxfail=40 -n 16 -p no:cacheprovider -p no:benchmark --timeout 120 \
  tests/test_cuda.py tests/test_cuda_ops.py tests/test_cuda_index_check.py ${EXTRA_TESTS:-} > "$OUT/tests.log" 2>&1
stamp "tests rc=$?"
tail -25 "$OUT/tests.log"
mkdir -p /tmp/bench && cp -r benchmarks /tmp/bench/
(cd /tmp/bench && timeout ${BENCH_S:-150} python3 -m benchmarks.cuda --min-time ${MIN_TIME:-0.1} \
   --json "$OUT/cuda.json" > "$OUT/bench.out" 2> "$OUT/bench.err")
stamp "bench rc=$?"
grep -v Warning "$OUT/bench.err" | tail -40
(cd /tmp && timeout ${CUB_S:-25} python3 "$OLDPWD/tools/check_cub_gpu.py" > "$OUT/cub.log" 2>&1)
stamp "cub check rc=$?"
tail -30 "$OUT/cub.log"
if [ "${SANITIZE_S:-0}" -gt 0 ]; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  if [ -z "$CS" ]; then
    stamp "no compute-sanitizer on this machine"
  else
    for tool in memcheck racecheck; do
      (cd /tmp && timeout "$SANITIZE_S" "$CS" --tool "$tool" --error-exitcode 3 --target-processes all \
         python3 -m pytest -q -x -p no:cacheprovider -p no:benchmark ${SANITIZE_TESTS:-$OLDPWD/tests/test_cuda.py} \
         > "$OUT/sanitizer-$tool.log" 2>&1)
      stamp "compute-sanitizer $tool rc=$? (0 clean, 3 reports, 124 timed out)"
      grep -E "ERROR SUMMARY|Invalid|Race|passed|failed" "$OUT/sanitizer-$tool.log" | tail -8
    done
  fi
fi
