"""The CUDA test modules on the emulated CUDA device, so that they run on every machine.

TORCHLITE_EMULATE_CUDA=N (core/CudaEmulation.cpp) gives N CUDA devices whose tensors live in host memory
and whose kernels are the CUDA kernels compiled for the host (the CPU kernel for generated pointwise ones).
On it, tests/test_cuda.py and tests/test_cuda_ops.py check everything above the kernels as a GPU would:
results stay on the device, the device rules, copies between devices, autograd and gradcheck on device
tensors, the allocator's statistics, the Python layer. Launches, device memory and cuBLAS need a GPU: there
the same modules run for real.
"""
import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_emulated(args, timeout=1500, devices=1):
    """Runs python with args on `devices` emulated devices: pytest from the repository root (its conftest
    imports the installed torchlite), a script (-c) from elsewhere, so that the source tree's torchlite
    package, which has no compiled module, is not the one imported."""
    env = dict(os.environ, TORCHLITE_EMULATE_CUDA=str(devices))
    env.pop("TORCHLITE_GPU_KERNELS_ON_HOST", None)
    cwd = ROOT if args[:2] == ["-m", "pytest"] else tempfile.gettempdir()
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("module", ["tests/test_cuda.py", "tests/test_cuda_ops.py"])
def test_module_on_the_emulated_device(module):
    r = run_emulated(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", module])
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    # it ran on the device: no test skipped for the want of one (other skips keep their own reasons)
    assert " passed" in r.stdout and "needs a CUDA device" not in r.stdout, r.stdout[-2000:]


EMULATED = r"""
import numpy as np
import torchlite as tl

assert tl.cuda.is_available() and tl.cuda.device_count() == 1 and tl.cuda.current_device() == 0
assert "emulated" in tl.cuda.get_device_name() and tl.cuda._is_emulated()
import sys
sys.path.append(ROOT)
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


TWO_DEVICES = r"""
import torchlite as tl

assert tl.cuda.device_count() == 2 and tl.cuda.current_device() == 0
a, b = tl.ones(3, device="cuda"), tl.ones(3, device="cuda:1")  # "cuda" is the current device
assert a.device == tl.device("cuda", 0) and b.device == tl.device("cuda", 1)
# An op on cuda:1 runs with cuda:1 current (the emulated kernels check it) and leaves cuda:0 current.
c = (b * 2).sum(0)
assert c.device == tl.device("cuda", 1) and c.item() == 6.0 and tl.cuda.current_device() == 0
try:
    a + b
    raise AssertionError("cuda:0 and cuda:1 tensors met")
except RuntimeError as e:
    assert "cuda:0" in str(e) and "cuda:1" in str(e), e
d = b.to("cuda:0") + a
assert d.device == tl.device("cuda", 0) and d.tolist() == [2.0, 2.0, 2.0]
assert tl.cuda.memory_allocated(1) > 0
x = tl.randn(3, 2, dtype=tl.float64, device="cuda:1", requires_grad=True)
assert tl.autograd.gradcheck(lambda x: (x @ x.t()).sin(), (x,))
(x.exp().sum() * a.sum().to("cuda:1")).backward()
assert x.grad.device == tl.device("cuda", 1) and tl.cuda.current_device() == 0
tl.cuda.set_device(1)
assert tl.cuda.current_device() == 1 and tl.zeros(2, device="cuda").device == tl.device("cuda", 1)
assert (a * 3).device == tl.device("cuda", 0) and tl.cuda.current_device() == 1
tl.cuda.synchronize(0)
try:
    tl.cuda.set_device(2)
    raise AssertionError("cuda:2 exists")
except IndexError as e:
    assert "2" in str(e), e
print("ok")
"""


def test_two_emulated_devices():
    """Device indices, the device guard (an op runs with its tensors' device current, then restores it),
    moves and gradients between two devices."""
    r = run_emulated(["-c", TWO_DEVICES], timeout=120, devices=2)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout[-3000:] + r.stderr[-3000:]


def test_the_emulated_device():
    r = run_emulated(["-c", f"ROOT = {ROOT!r}\n" + EMULATED], timeout=120)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout[-3000:] + r.stderr[-3000:]


def test_emulation_is_off_by_default():
    """Without the variable, CUDA is what the machine has (tests/test_cuda_runtime.py checks the no-GPU case)."""
    env = {k: v for k, v in os.environ.items() if k != "TORCHLITE_EMULATE_CUDA"}
    r = subprocess.run([sys.executable, "-c", "import torchlite as tl; print(tl.cuda._is_emulated() or "
                        "(tl.cuda.is_available() and 'emulated' in tl.cuda.get_device_name()))"],
                       cwd=tempfile.gettempdir(),
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stdout + r.stderr
