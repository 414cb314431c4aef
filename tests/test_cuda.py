"""CUDA tensors: transfers, device rules, random streams, large reductions, matmul, gradients, memory.

These need a CUDA device and skip without one (torchlite.cuda.is_available() is False): a GPU, or the
emulated device that tests/test_cuda_emulated.py runs them on. tests/test_cuda_ops.py runs every op of the
schema on the device against the CPU. Without a GPU, tests/test_cuda_kernels_on_host.py also checks the
hand-written CUDA kernels compiled for the host, and tests/test_cuda_runtime.py the runtime's errors and
allocator.
"""
from __future__ import annotations

import numpy as np
import pytest

import torchlite as tl

pytestmark = pytest.mark.skipif(not tl.cuda.is_available(),
                                reason="needs a CUDA device: torchlite.cuda.is_available() is False here "
                                       "(tests/test_cuda_emulated.py runs this module on the emulated device)")

DTYPES = [tl.float32, tl.float64, tl.float16, tl.bfloat16, tl.int64, tl.int32, tl.int8, tl.uint8, tl.bool]


def host(t):
    return t.cpu().to(tl.float64).numpy() if t.dtype in (tl.float16, tl.bfloat16) else t.cpu().numpy()


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip(dtype):
    x = (tl.arange(24.0).view(4, 6) - 7).to(dtype)
    for src in (x, x.t(), x[::2]):
        y = src.cuda()
        assert y.device == tl.device("cuda", 0) and y.is_cuda and y.dtype == dtype
        np.testing.assert_array_equal(host(y), host(src))
        np.testing.assert_array_equal(host(src.to("cuda", non_blocking=True).cpu()), host(src))


def test_copy_between_devices_casts_and_broadcasts():
    dst = tl.zeros(3, 4, dtype=tl.float64, device="cuda")
    dst.copy_(tl.arange(4, dtype=tl.int32))
    np.testing.assert_array_equal(host(dst), np.tile(np.arange(4.0), (3, 1)))
    back = tl.zeros(4, 3, dtype=tl.int16)
    back.copy_(dst.t())
    np.testing.assert_array_equal(back.numpy(), np.tile(np.arange(4), (3, 1)).T)


def test_device_rules():
    a = tl.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match="cuda:0 and cpu|cpu and cuda:0"):
        a + tl.ones(3)
    np.testing.assert_array_equal(host(a + tl.tensor(2.0)), [3.0, 3.0, 3.0])  # a 0-dim CPU tensor may join
    assert (a * 2).sum().item() == 6.0
    assert a.tolist() == [1.0, 1.0, 1.0]
    assert tl.zeros(2, 2, device="cuda").device.type == "cuda"
    assert a.get_device() == 0 and tl.ones(1).get_device() == -1
    assert tl.arange(5, device="cuda").cpu().tolist() == [0, 1, 2, 3, 4]


def test_same_seed_same_numbers_as_cpu():
    for make in (lambda d: tl.rand(1000, device=d), lambda d: tl.randn(1001, device=d, dtype=tl.float64),
                 lambda d: tl.randint(0, 10 ** 9, (500,), device=d), lambda d: tl.randperm(100, device=d)):
        tl.manual_seed(7)
        cpu = make("cpu")
        tl.manual_seed(7)
        gpu = make("cuda")
        np.testing.assert_allclose(host(gpu), host(cpu), rtol=1e-6)


@pytest.mark.parametrize("n", [1, 1000, 16 * 1024 * 1024 + 3])
def test_reductions_large(n):
    x = tl.rand(n, dtype=tl.float64)
    g = x.cuda()
    np.testing.assert_allclose(g.sum().item(), x.sum().item(), rtol=1e-12)
    assert g.argmax().item() == x.argmax().item()
    np.testing.assert_allclose(g.var().item(), x.var().item(), rtol=1e-10)


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.float16, tl.bfloat16])
def test_matmul_against_cpu(dtype):
    a, b = tl.randn(64, 96, dtype=tl.float64), tl.randn(96, 48, dtype=tl.float64)
    expected = (a @ b).numpy()
    got = host((a.to(dtype).cuda() @ b.to(dtype).cuda().t().contiguous().t()))
    tol = {tl.float32: 1e-4, tl.float64: 1e-10, tl.float16: 3e-2, tl.bfloat16: 2e-1}[dtype]
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * 10)


def test_autograd_on_cuda():
    x = tl.randn(5, 3, dtype=tl.float64, device="cuda", requires_grad=True)
    w = tl.randn(3, 4, dtype=tl.float64, device="cuda", requires_grad=True)
    assert tl.autograd.gradcheck(lambda x, w: (x @ w).relu().sum(1).exp(), (x, w))
    assert tl.autograd.gradcheck(lambda x: x.amax(1) * x.var(0).sum(), (x,))
    y = tl.randn(5, 3, dtype=tl.float64, requires_grad=True)  # gradients flow back across devices
    (y.cuda() * 2).sum().backward()
    assert y.grad.device.type == "cpu"
    np.testing.assert_array_equal(y.grad.numpy(), np.full((5, 3), 2.0))


def test_memory_is_reused():
    tl.cuda.empty_cache()
    base = tl.cuda.memory_allocated()
    x = tl.empty(1 << 20, device="cuda")
    used, reserved = tl.cuda.memory_allocated(), tl.cuda.memory_reserved()
    hits = tl.cuda.memory_stats()["cache_hits"]
    assert used >= base + 4 * (1 << 20)
    del x
    assert tl.cuda.memory_allocated() == base and tl.cuda.memory_reserved() == reserved  # cached, not freed
    y = tl.empty(1 << 20, device="cuda")  # the cached block again
    assert tl.cuda.memory_allocated() == used and tl.cuda.memory_reserved() == reserved
    assert tl.cuda.memory_stats()["cache_hits"] == hits + 1
    del y
    tl.cuda.empty_cache()
    assert tl.cuda.memory_reserved() < reserved


def test_fused_optimizers_and_grad_scaler_on_the_device():
    # The fused kernels the optimizers and GradScaler call through their own bindings (python/PyOptim.cpp) run on
    # CUDA tensors (the host compilation on the emulated device) and step as on the CPU.
    results = {}
    for device in ("cpu", "cuda"):
        w = tl.linspace(-1, 1, 1000, device=device).requires_grad_()
        v = tl.linspace(-1, 1, 1000, device=device).requires_grad_()
        opt = tl.optim.Adam([w], lr=0.1)
        opt2 = tl.optim.Adagrad([v], lr=0.1)
        scaler = tl.amp.GradScaler(device, init_scale=8.0, growth_interval=1)
        for _ in range(3):
            opt.zero_grad()
            opt2.zero_grad()
            scaler.scale((w * w).sum() + (v * v * v).sum()).backward()
            scaler.step(opt)
            scaler.step(opt2)
            scaler.update()
        results[device] = (w.detach().cpu().numpy(), v.detach().cpu().numpy(), scaler.get_scale())
    for a, b in zip(results["cpu"], results["cuda"]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
