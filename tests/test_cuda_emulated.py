"""The CUDA test modules on the emulated CUDA device, so that they run on every machine.

TORCHLITE_EMULATE_CUDA=1 (core/CudaEmulation.cpp) gives one CUDA device whose tensors live in host memory
and whose kernels are the CUDA kernels compiled for the host (the CPU kernel for generated pointwise ones).
On it, tests/test_cuda.py and tests/test_cuda_ops.py check everything above the kernels as a GPU would:
results stay on the device, the device rules, copies between devices, autograd and gradcheck on device
tensors, the allocator's statistics, the Python layer. Launches, device memory and cuBLAS need a GPU: there
the same modules run for real.
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_emulated(args, timeout=1500):
    env = dict(os.environ, TORCHLITE_EMULATE_CUDA="1")
    env.pop("TORCHLITE_GPU_KERNELS_ON_HOST", None)
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("module", ["tests/test_cuda.py", "tests/test_cuda_ops.py"])
def test_module_on_the_emulated_device(module):
    r = run_emulated(["-m", "pytest", "-q", "-p", "no:cacheprovider", module])
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and " skipped" not in r.stdout.splitlines()[-1], r.stdout[-2000:]


EMULATED = r"""
import numpy as np
import torchlite as tl

assert tl.cuda.is_available() and tl.cuda.device_count() == 1 and tl.cuda.current_device() == 0
assert "emulated" in tl.cuda.get_device_name() and tl.cuda._is_emulated()
from benchmarks import cuda as bench
assert bench.main(["--quick", "--json", "unused.json"]) == 0  # says so and measures nothing
before = tl.cuda.memory_allocated()
x = tl.arange(6.0, device="cuda").view(2, 3)
assert x.device == tl.device("cuda", 0) and x.is_cuda
assert tl.cuda.memory_allocated() >= before + 512
y = (x * 2).t().contiguous()
assert y.device.type == "cuda" and y.cpu().tolist() == [[0.0, 6.0], [2.0, 8.0], [4.0, 10.0]]
try:
    np.asarray(x)
    raise AssertionError("NumPy read a CUDA tensor")
except TypeError as e:
    assert "cuda:0" in str(e) and "cpu()" in str(e), e
try:
    x + tl.ones(2, 3)
    raise AssertionError("a CPU and a CUDA tensor met")
except RuntimeError as e:
    assert "cuda:0" in str(e) and "cpu" in str(e), e
try:
    tl.zeros(1, device="cuda:1")
    raise AssertionError("cuda:1 exists")
except (RuntimeError, IndexError) as e:
    assert "cudaSetDevice(1)" in str(e), e
del x, y
tl.cuda.empty_cache()
print("ok")
"""


def test_the_emulated_device():
    r = run_emulated(["-c", EMULATED], timeout=120)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout[-3000:] + r.stderr[-3000:]


def test_emulation_is_off_by_default():
    """Without the variable, CUDA is what the machine has (tests/test_cuda_runtime.py checks the no-GPU case)."""
    env = {k: v for k, v in os.environ.items() if k != "TORCHLITE_EMULATE_CUDA"}
    r = subprocess.run([sys.executable, "-c", "import torchlite as tl; print(tl.cuda._is_emulated() or "
                        "(tl.cuda.is_available() and 'emulated' in tl.cuda.get_device_name()))"], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stdout + r.stderr
