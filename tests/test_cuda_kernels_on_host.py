"""The hand-written CUDA kernels (csrc/kernels/gpu/*.inc), compiled for the host, checked on CPU tensors.

Every CUDA kernel that is not generated from a `pointwise:` expression is written once over a backend
(csrc/kernels/gpu/Backend.h) and compiled twice: by nvcc for the GPU and by the C++ compiler for the host.
`torchlite._C._set_gpu_kernels_on_host(True)` makes CPU tensors run the host compilation. These tests
compare it with the CPU kernels on many layouts, dtypes and edge cases, and run the reduction, random and
linear-algebra test modules through it, so the CUDA kernels' index math, accumulation and checks are
tested on machines without a GPU. What only a GPU can check (launches, device memory, cuBLAS) is in
tests/test_cuda_runtime.py and the CUDA tests of tests/test_cuda.py, which skip without one.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import torchlite as tl
from torchlite import _C
from torchlite.testing import op_db
from torchlite.testing._samples import kernels as K

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Ops whose CPU and CUDA kernels are written apart (not `cpu: on_host`, where the CPU runs the CUDA kernel's
# host compilation itself: the random ops), so that the two can be compared here.
ON_HOST = sorted(op.full_name for op in op_db if op.kind == "dispatch"
                 and op.kernels["cuda"] not in (None, op.kernels["cpu"]) and op.kernels["cpu"] != "on_host")


gpu_kernels_on_host = K.gpu_kernels_on_host


def arr(*args, **kwargs):
    return K.arr(*args, **kwargs)


# Kernel-path samples of every op with a hand-written CUDA kernel, from the op database.
SAMPLES = {op.full_name: op.kernel_samples() for op in op_db if op.kernel_samples()}


def assert_same(expected, actual, what):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), what
        for e, a in zip(expected, actual):
            assert_same(e, a, what)
        return
    assert expected.dtype == actual.dtype, (what, expected.dtype, actual.dtype)
    assert tuple(expected.shape) == tuple(actual.shape), (what, expected.shape, actual.shape)
    e = expected.to(tl.float64).numpy() if expected.dtype in (tl.float16, tl.bfloat16) else expected.numpy()
    a = actual.to(tl.float64).numpy() if actual.dtype in (tl.float16, tl.bfloat16) else actual.numpy()
    if expected.dtype.is_floating_point:
        # Sums accumulate in another order (and var/std with Welford's updates): a few ulps apart.
        tol = {tl.float16: 2e-3, tl.bfloat16: 1.6e-2, tl.float32: 2e-5, tl.float64: 1e-12}[expected.dtype]
        np.testing.assert_allclose(a, e, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a, e, err_msg=what)


def test_every_cuda_kernel_has_samples():
    """A new hand-written CUDA kernel with its own CPU twin needs kernel samples in
    torchlite/testing/_samples/kernels.py (copy_ has its own test)."""
    covered = set(SAMPLES) | {"copy"}
    assert set(ON_HOST) <= covered, sorted(set(ON_HOST) - covered)
    assert set(ON_HOST) >= covered, sorted(covered - set(ON_HOST))


CASES = [(name, i) for name in sorted(SAMPLES) for i in range(len(SAMPLES[name]))]


@pytest.mark.parametrize("name,i", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_matches_cpu_kernel(name, i):
    fn, args, kw = SAMPLES[name][i]
    expected = fn(*args, **kw)
    with gpu_kernels_on_host():
        actual = fn(*args, **kw)
    assert_same(expected, actual, f"{name} sample {i}")


def _layouts():
    """(name, tensor): the layouts gpu::strided_rows reads in place (kept dims folded into two strided runs,
    reduced dims into one) and those it must copy first."""
    base = arr((6, 5, 40), seed=11)
    return [
        ("contiguous", base),
        ("sliced", base[1:5, :, 3:33]),
        ("stepped", base[:, ::2, ::3]),
        ("permuted", base.permute(2, 0, 1)),
        ("expanded", arr((1, 5, 1), seed=12).expand(6, 5, 40)),
        ("offset", base.reshape(-1)[7:7 + 4 * 5 * 39].reshape(4, 5, 39)),
        ("long", arr((3, 2000), seed=13)),
        ("long_columns", arr((2000, 3), seed=14)),
    ]


LAYOUT_REDUCTIONS = {
    "sum": lambda x, d: x.sum(d),
    "amax": lambda x, d: x.amax(d),
    "argmax": lambda x, d: x.argmax(d if isinstance(d, int) else None),
    "max": lambda x, d: x.max(d) if isinstance(d, int) else x.max(),
    "var": lambda x, d: x.var(d),
    "norm": lambda x, d: x.norm(3, d),
    "any": lambda x, d: (x > 1).any(d) if isinstance(d, int) else (x > 1).any(),
}


@pytest.mark.parametrize("op", sorted(LAYOUT_REDUCTIONS))
def test_reductions_read_strided_rows_in_place(op):
    """Every reduction over every dim set of tensors laid out in many ways: the host compilation of the CUDA
    reductions (which reads strided rows in place where it can) equals the CPU kernels."""
    f = LAYOUT_REDUCTIONS[op]
    for name, x in _layouts():
        dims = [None] + list(range(x.dim())) + [(0, 1), (1, 2), (0, 2)]
        for d in dims:
            if x.dim() < 3 and isinstance(d, tuple) and max(d) >= x.dim():
                continue
            if op in ("argmax", "max", "any") and isinstance(d, tuple):
                continue
            expected = f(x, d)
            with gpu_kernels_on_host():
                actual = f(x, d)
            if isinstance(expected, tuple):
                expected, actual = tuple(expected), tuple(actual)
            assert_same(expected, actual, f"{op} of {name} over {d}")


def test_flag_is_off_by_default_and_restored():
    assert _C._set_gpu_kernels_on_host(False) is False
    with gpu_kernels_on_host():
        assert _C._set_gpu_kernels_on_host(True) is True
    assert _C._set_gpu_kernels_on_host(False) is False


@pytest.mark.parametrize("src_dtype", ["float32", "int64", "float16", "bool"])
@pytest.mark.parametrize("layout", ["dense", "transposed", "broadcast", "strided_out"])
def test_copy_kernel(src_dtype, layout):
    """copy_'s CUDA kernel (same device): casts, broadcasts and any strides, through the host compilation."""
    src = arr((4, 6), src_dtype, seed=3)
    dst_dtype = {"float32": tl.float64, "int64": tl.int8, "float16": tl.float32, "bool": tl.int32}[src_dtype]
    if layout == "transposed":
        src = src.t()
    if layout == "broadcast":
        src = src[0]
    shape = (6, 4) if layout == "transposed" else (4, 6)
    results = []
    for on_host in (False, True):
        dst = tl.zeros(shape[1], shape[0] * 2, dtype=dst_dtype).t()[::2] if layout == "strided_out" else \
            tl.zeros(*shape, dtype=dst_dtype)
        if on_host:
            with gpu_kernels_on_host():
                dst.copy_(src)
        else:
            dst.copy_(src)
        results.append(dst)
    if layout == "strided_out":
        assert not results[1].is_contiguous()
    assert_same(results[0], results[1], f"copy_ {layout} {src_dtype}")


def test_copy_kernel_refuses_overlap():
    x = tl.arange(6.0)
    with gpu_kernels_on_host(), pytest.raises(RuntimeError, match="more than one element"):
        x.expand(3, 6).copy_(tl.zeros(3, 6))


def test_reduction_errors_match_cpu():
    """The checks are shared: the same exception type and words."""
    cases = [lambda: tl.amax(tl.zeros(0)), lambda: tl.argmax(tl.zeros(2, 0), 1), lambda: tl.var(tl.arange(3)),
             lambda: tl.all(tl.ones(2), out=tl.empty(2, dtype=tl.float32)),
             lambda: tl.norm(tl.zeros(0), p=float("inf"))]
    for case in cases:
        with pytest.raises(Exception) as cpu:
            case()
        with gpu_kernels_on_host(), pytest.raises(Exception) as host:
            case()
        assert type(cpu.value) is type(host.value) and str(cpu.value) == str(host.value)


# Whole test modules, run again with the CUDA kernels compiled for the host in place of the CPU kernels: the
# schema-driven op tests (tests/test_ops.py), the gradchecks and forward-mode checks of every op
# (tests/test_autograd_ops.py), the differential tests against PyTorch when it is installed, and the op
# families' own modules. Left out: tests that expect the CPU kernel's name in a message, since the CUDA
# kernels name themselves as PyTorch's do ("normal_kernel_cuda", "bernoulli_tensor_cuda_p_", "cumsum_cuda").
MODULES = {
    "tests/test_ops.py": None,
    "tests/test_autograd_ops.py": None,
    "tests/test_torch_diff.py": "not (test_reduction_and_scan_dtype_rules_match_torch and cum)",
    "tests/test_reductions.py": "not test_bool_scans_are_not_implemented",
    "tests/test_sum_accuracy.py": None,
    "tests/test_random.py": "not (test_errors and (randn or normal or bernoulli))",
    "tests/test_linalg.py": None,
    "tests/test_creation.py": None,
    "tests/test_indexing.py": None,
}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_passes_with_gpu_kernels_on_host(module):
    env = dict(os.environ, TORCHLITE_GPU_KERNELS_ON_HOST="1")
    select = ["-k", MODULES[module]] if MODULES[module] else []
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", module, *select],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    if r.returncode == 5:  # nothing ran: the module skipped itself (tests/test_torch_diff.py without PyTorch)
        pytest.skip(f"{module} ran no test here: {r.stdout.strip().splitlines()[-1]}")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "passed" in r.stdout
