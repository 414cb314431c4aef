"""torchlite.amp: autocast's per-op policies (from the schema's `autocast:` keys), gradients through the casts,
nesting and state, custom_fwd/custom_bwd, and GradScaler's scaling, unscaling, skipped steps and scale
updates; the output dtypes of many ops and GradScaler's scale sequence compared with PyTorch where installed."""
import pickle
import warnings

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn
import torchlite.nn.functional as F
from torchlite.amp import GradScaler, autocast


def f32(*shape, seed=0):
    return tl.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_lower_precision_ops_and_gradients_in_the_inputs_dtype():
    a = f32(4, 3).requires_grad_(True)
    b = f32(3, 5, seed=1).requires_grad_(True)
    with autocast("cpu"):
        out = a @ b
        assert tl.is_autocast_enabled("cpu") and tl.get_autocast_dtype("cpu") == tl.bfloat16
    assert out.dtype == tl.bfloat16 and not tl.is_autocast_enabled("cpu")
    ref = a.detach().to(tl.bfloat16).float().numpy() @ b.detach().to(tl.bfloat16).float().numpy()
    np.testing.assert_allclose(out.float().detach().numpy(), ref, rtol=1e-2, atol=1e-2)
    out.float().sum().backward()
    assert a.grad.dtype == tl.float32 and b.grad.dtype == tl.float32  # the casts are recorded ops
    np.testing.assert_allclose(a.grad.numpy(), np.tile(b.detach().numpy().sum(1), (4, 1)), rtol=2e-2, atol=2e-2)


def test_policies_fp32_promote_and_untouched_ops():
    x = f32(4, 3)
    with autocast("cpu"):
        y = F.linear(x, f32(2, 3, seed=2))
        assert y.dtype == tl.bfloat16
        assert F.relu(y).dtype == tl.bfloat16  # no policy: runs in its input's dtype
        assert F.mse_loss(y, y.detach()).dtype == tl.float32  # fp32 on the CPU
        assert F.cross_entropy(y, tl.tensor([0, 1, 1, 0])).dtype == tl.float32
        assert tl.index_copy(y, 0, tl.tensor([1]), x[:1, :2]).dtype == tl.float32  # promote on the CPU
        assert tl.mm(x.double(), x.double().t()).dtype == tl.float64  # float64 is never lowered
        assert tl.mm(x.int(), x.int().t()).dtype == tl.int32  # integers are not cast
        assert tl.exp(y).dtype == tl.bfloat16  # fp32 only on CUDA


def test_modules_and_recurrences_under_autocast():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
    x = f32(5, 2, 8, 8)
    with autocast("cpu", dtype=tl.bfloat16):
        out = model(x)
        loss = F.cross_entropy(out, tl.tensor([0, 1, 2, 0, 1]))
    assert out.dtype == tl.bfloat16 and loss.dtype == tl.float32
    loss.backward()
    assert all(p.grad is not None and p.grad.dtype == tl.float32 for p in model.parameters())
    lstm = nn.LSTM(3, 4)
    with autocast("cpu"):
        seq, (h, c) = lstm(f32(6, 2, 3))
    assert seq.dtype == tl.bfloat16 and h.dtype == tl.bfloat16
    seq.float().sum().backward()
    assert lstm.weight_hh_l0.grad.dtype == tl.float32


def test_nesting_disabling_decorator_and_restore():
    x = f32(2, 2)
    with autocast("cpu"):
        with autocast("cpu", enabled=False):
            assert (x @ x).dtype == tl.float32
        with autocast("cpu", dtype=tl.float16):
            assert (x @ x).dtype == tl.float16
        assert (x @ x).dtype == tl.bfloat16
    with pytest.raises(ValueError, match="boom"):
        with autocast("cpu"):
            raise ValueError("boom")
    assert not tl.is_autocast_enabled("cpu") and tl.get_autocast_dtype("cpu") == tl.bfloat16

    @autocast("cpu")
    def f(a):
        return a @ a

    assert f(x).dtype == tl.bfloat16 and (x @ x).dtype == tl.float32
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        autocast("cpu", dtype=tl.float64)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        autocast("tpu")
    with pytest.warns(FutureWarning, match="torch.cpu.amp.autocast"):
        old = tl.cpu.amp.autocast()
    with old:
        assert (x @ x).dtype == tl.bfloat16


def test_custom_fwd_and_bwd():
    seen = {}

    class Square(tl.autograd.Function):
        @staticmethod
        @tl.amp.custom_fwd(device_type="cpu", cast_inputs=tl.float32)
        def forward(ctx, a):
            seen["fwd"] = (a.dtype, tl.is_autocast_enabled("cpu"))
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        @tl.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = tl.is_autocast_enabled("cpu")
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = f32(3).to(tl.bfloat16).requires_grad_(True)
    with autocast("cpu"):
        y = Square.apply(x)
    assert seen["fwd"] == (tl.float32, False) and y.dtype == tl.float32
    y.sum().backward()
    assert seen["bwd"] is True and x.grad.dtype == tl.bfloat16


class Quadratic:
    """A one-parameter problem whose gradient we choose: loss = sum(w * g)."""

    def __init__(self, lib):
        self.lib = lib
        self.w = lib.nn.Parameter(lib.ones(3))
        self.opt = lib.optim.SGD([self.w], lr=0.1)

    def step(self, scaler, g):
        self.opt.zero_grad()
        loss = (self.w * self.lib.tensor(g, dtype=self.lib.float32)).sum()
        scaler.scale(loss).backward()
        scaler.step(self.opt)
        scaler.update()
        return scaler.get_scale()


GRADS = [[1.0, 2.0, 3.0], [float("inf"), 1.0, 1.0], [1.0, 1.0, 1.0], [float("nan"), 0, 0], [0.5, 0.5, 0.5],
         [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


def test_grad_scaler_skips_overflowing_steps_and_updates_the_scale():
    scaler = GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    q = Quadratic(tl)
    scales = [q.step(scaler, g) for g in GRADS]
    assert scales == [1024.0, 512.0, 512.0, 256.0, 256.0, 512.0, 512.0]
    # the two overflowing steps were skipped: w moved by lr * (sum of the finite gradients), unscaled
    expected = 1 - 0.1 * np.sum([g for g in GRADS if np.isfinite(g).all()], axis=0)
    np.testing.assert_allclose(q.w.detach().numpy(), expected, rtol=1e-6)
    sd = scaler.state_dict()
    assert sd == {"scale": 512.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2,
                  "_growth_tracker": 1}
    other = GradScaler("cpu")
    other.load_state_dict(sd)
    assert other.get_scale() == 512.0 and other._get_growth_tracker() == 1
    assert pickle.loads(pickle.dumps(scaler)).get_scale() == 512.0


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_fused_unscale_and_inf_check(dtype):
    # GradScaler.unscale_'s kernel: every gradient times inv_scale in the op-math type, found_inf set when any
    # element anywhere is inf or NaN (left as it was otherwise), in large tensors (several threads' chunks).
    dt = getattr(tl, dtype)
    rng = np.random.default_rng(3)
    inv = tl.tensor([1 / 1024], dtype=tl.float32)
    for bad in (None, float("inf"), float("-inf"), float("nan")):
        base = [rng.standard_normal(n) * 1000 for n in (100003, 7, 1)]
        if bad is not None:
            base[0][77777] = bad
        grads = [tl.tensor(b).to(dt) for b in base]
        expected = [(g.float() * inv).to(dt) if dtype == "bfloat16" else g * inv.to(dt) for g in grads]
        found = tl.zeros((), dtype=tl.float32)
        tl._C._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
        assert found.item() == (0.0 if bad is None else 1.0)
        for g, e in zip(grads, expected):
            np.testing.assert_array_equal(g.float().numpy(), e.float().numpy())
    found = tl.ones(1)  # a flag already set stays set
    tl._C._amp_foreach_non_finite_check_and_unscale_([tl.ones(3, dtype=dt)], found, inv)
    assert found.item() == 1.0


def test_fused_unscale_errors_and_gradscaler_fallback():
    fn = tl._C._amp_foreach_non_finite_check_and_unscale_
    inv, found = tl.tensor([0.5]), tl.zeros(1)
    with pytest.raises(RuntimeError, match="found_inf must be a one-element float32 tensor"):
        fn([tl.ones(2)], tl.zeros(2), inv)
    with pytest.raises(RuntimeError, match="inv_scale must be a one-element float32 tensor"):
        fn([tl.ones(2)], found, tl.tensor([0.5], dtype=tl.float64))
    with pytest.raises(RuntimeError, match="contiguous"):
        fn([tl.ones(2, 3).t()], found, inv)
    with pytest.raises(TypeError):
        fn([tl.ones(2), None], found, inv)
    # GradScaler: a non-contiguous gradient takes the op path; the result is the same
    scaler = GradScaler("cpu", init_scale=4.0)
    w = tl.ones(3, 2, requires_grad=True)
    opt = tl.optim.SGD([w], lr=0.1)
    scaler.scale(w.sum()).backward()
    w.grad = tl.tensor([[4.0, 8.0, float("inf")], [0.0, 4.0, 8.0]]).t()
    scaler.unscale_(opt)
    assert not w.grad.is_contiguous()
    assert w.grad.tolist()[0] == [1.0, 0.0] and w.grad.tolist()[1] == [2.0, 1.0]
    scaler.step(opt)  # skipped: an inf
    assert w.tolist() == [[1.0, 1.0]] * 3


def test_fused_unscale_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    base = [rng.standard_normal(5000).astype(np.float32) * 300 for _ in range(3)]
    base[1][9] = np.inf
    for arrays in (base[:1], base):
        ours, theirs = [tl.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]
        f1, f2 = tl.zeros(()), torch.zeros(())
        tl._C._amp_foreach_non_finite_check_and_unscale_(ours, f1, tl.tensor(1 / 3.0))
        torch._amp_foreach_non_finite_check_and_unscale_(theirs, f2, torch.tensor(1 / 3.0))
        assert f1.item() == f2.item()
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_grad_scaler_errors_and_disabled():
    scaler = GradScaler("cpu")
    q = Quadratic(tl)
    loss = (q.w * 2).sum()
    scaler.scale(loss).backward()
    scaler.unscale_(q.opt)
    np.testing.assert_allclose(q.w.grad.numpy(), [2, 2, 2])  # unscaled in place
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(q.opt)
    scaler.step(q.opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(q.opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        GradScaler("cpu").step(q.opt, closure=lambda: 0)
    off = GradScaler("cpu", enabled=False)
    assert off.scale(loss) is loss and off.get_scale() == 1.0 and off.state_dict() == {}
    if not tl.cuda.is_available():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert not GradScaler("cuda").is_enabled()
        assert any("CUDA is not available" in str(x.message) for x in w)


def test_output_dtypes_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 4)).astype(np.float32), rng.standard_normal((4, 4)).astype(np.float32)
    img = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    cases = {
        "mm": lambda m, x, y, i: m.mm(x, y),
        "matmul": lambda m, x, y, i: x @ y,
        "linear": lambda m, x, y, i: m.nn.functional.linear(x, y),
        "conv2d": lambda m, x, y, i: m.nn.functional.conv2d(i, i[:, :, :3, :3].repeat(3, 1, 1, 1)),
        "relu": lambda m, x, y, i: m.relu(x),
        "softmax": lambda m, x, y, i: m.softmax(x, 1),
        "exp": lambda m, x, y, i: m.exp(x.to(m.bfloat16)),
        "mse_loss": lambda m, x, y, i: m.nn.functional.mse_loss(x.to(m.bfloat16), y.to(m.bfloat16)),
        "nll_loss": lambda m, x, y, i: m.nn.functional.nll_loss(x.to(m.bfloat16), m.tensor([0, 1, 2, 3])),
        "cross_entropy": lambda m, x, y, i: m.nn.functional.cross_entropy(x.to(m.bfloat16), m.tensor([0, 1, 2, 3])),
        "addmm": lambda m, x, y, i: m.addmm(x, x, y),
        "bmm": lambda m, x, y, i: m.bmm(x[None], y[None]),
        "sum": lambda m, x, y, i: (x.to(m.bfloat16)).sum(),
        "add_mixed": lambda m, x, y, i: x + y.to(m.bfloat16),
        "index_copy": lambda m, x, y, i: m.index_copy(x.to(m.bfloat16), 0, m.tensor([1]), y[:1]),
        "layer_norm": lambda m, x, y, i: m.nn.functional.layer_norm(x.to(m.bfloat16), (4,)),
        "mm_double": lambda m, x, y, i: m.mm(x.double(), y.double()),
        "vecdot": lambda m, x, y, i: m.linalg.vecdot(x, y),
        # ops with Tensor[] arguments: promoting natively (cat, stack, block_diag) or built on autocast ops
        # (multi_dot, chain_matmul and einsum on mm/bmm), they come out as PyTorch's autocast gives them
        "cat_mixed": lambda m, x, y, i: m.cat([x, y.to(m.bfloat16)]),
        "cat_lower": lambda m, x, y, i: m.cat([x.to(m.bfloat16), y.to(m.bfloat16)]),
        "stack_mixed": lambda m, x, y, i: m.stack([x.to(m.bfloat16), y]),
        "multi_dot": lambda m, x, y, i: m.linalg.multi_dot([x, y, x]),
        "einsum": lambda m, x, y, i: m.einsum("ij,jk->ik", x, y),
        "block_diag": lambda m, x, y, i: m.block_diag(x, y.to(m.bfloat16)),
        "broadcast_tensors": lambda m, x, y, i: m.broadcast_tensors(x, y.to(m.bfloat16))[1],
    }
    for name, fn in cases.items():
        with tl.autocast("cpu"):
            ours = fn(tl, tl.tensor(a), tl.tensor(b), tl.tensor(img))
        with torch.autocast("cpu"):
            theirs = fn(torch, torch.tensor(a), torch.tensor(b), torch.tensor(img))
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], name


def test_grad_scaler_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    ours, theirs = Quadratic(tl), Quadratic(torch)
    s1 = GradScaler("cpu", init_scale=64.0, growth_interval=2)
    s2 = torch.amp.GradScaler("cpu", init_scale=64.0, growth_interval=2)
    assert [ours.step(s1, g) for g in GRADS] == [theirs.step(s2, g) for g in GRADS]
    np.testing.assert_allclose(ours.w.detach().numpy(), theirs.w.detach().numpy(), rtol=1e-6)
    assert s1.state_dict() == s2.state_dict()
