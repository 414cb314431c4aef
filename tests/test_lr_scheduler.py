"""torchlite.optim.lr_scheduler and swa_utils: every scheduler's learning-rate sequence against closed forms
and (when installed) PyTorch, state_dict round trips, resuming, warnings and errors."""
import math
import pickle
import warnings
from bisect import bisect_right

import numpy as np
import pytest

import torchlite as tl
import torchlite.optim as optim

lr_scheduler = optim.lr_scheduler
swa_utils = optim.swa_utils

N = 30


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")


def _cos_anneal(start, end, pct):
    return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)


def _cawr(e, base, t0, tmult, eta_min):
    t_i, t_cur = t0, e
    while t_cur >= t_i:
        t_cur -= t_i
        t_i *= tmult
    return eta_min + (base - eta_min) * (1 + math.cos(math.pi * t_cur / t_i)) / 2


def _cyclic(e, base, top, up, down, scale=lambda c, e: 1.0):
    total = up + down
    cycle = math.floor(1 + e / total)
    x = 1 + e / total - cycle
    ratio = up / total
    s = x / ratio if x <= ratio else (x - 1) / (ratio - 1)
    return base + (top - base) * s * scale(cycle, e)


def _one_cycle(e, max_lr, total, pct=0.3, div=25.0, final_div=1e4):
    initial = max_lr / div
    end1 = pct * total - 1
    if e <= end1:
        return _cos_anneal(initial, max_lr, e / end1)
    return _cos_anneal(max_lr, initial / final_div, (e - end1) / (total - 1 - end1))


def _swalr(e, lr0, swa, anneal):
    t = max(0, min(1, e / max(1, anneal)))
    alpha = (1 - math.cos(math.pi * t)) / 2
    return swa * alpha + lr0 * (1 - alpha)


# (name, factory(lr_scheduler module, optimizer), closed form of epoch e for base lr 0.1, optimizer kind)
CASES = [
    ("LambdaLR", lambda m, o: m.LambdaLR(o, lambda e: 0.95 ** e + 0.01 * e), lambda e: 0.1 * (0.95 ** e + 0.01 * e)),
    ("MultiplicativeLR", lambda m, o: m.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 1.0),
     lambda e: 0.1 * 0.9 ** ((e + 1) // 2)),
    ("StepLR", lambda m, o: m.StepLR(o, step_size=4, gamma=0.5), lambda e: 0.1 * 0.5 ** (e // 4)),
    ("MultiStepLR", lambda m, o: m.MultiStepLR(o, milestones=[3, 8, 8, 20], gamma=0.3),
     lambda e: 0.1 * 0.3 ** bisect_right([3, 8, 8, 20], e)),
    ("ConstantLR", lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=7), lambda e: 0.1 * (0.25 if e < 7 else 1)),
    ("LinearLR", lambda m, o: m.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=10),
     lambda e: 0.1 * (0.2 + 0.7 * min(10, e) / 10)),
    ("LinearLR-down", lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=6),
     lambda e: 0.1 * (1.0 - 0.9 * min(6, e) / 6)),
    ("ExponentialLR", lambda m, o: m.ExponentialLR(o, gamma=0.9), lambda e: 0.1 * 0.9 ** e),
    ("PolynomialLR", lambda m, o: m.PolynomialLR(o, total_iters=20, power=2.0),
     lambda e: 0.1 * (1 - min(20, e) / 20) ** 2),
    ("CosineAnnealingLR", lambda m, o: m.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
     lambda e: 0.001 + 0.099 * (1 + math.cos(math.pi * e / 10)) / 2),
    ("CosineAnnealingWarmRestarts", lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
     lambda e: _cawr(e, 0.1, 3, 2, 0.01)),
    ("CosineAnnealingWarmRestarts-1", lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=7),
     lambda e: _cawr(e, 0.1, 7, 1, 0.0)),
    ("CyclicLR", lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4, step_size_down=6),
     lambda e: _cyclic(e, 0.01, 0.1, 4, 6)),
    ("CyclicLR-triangular2", lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="triangular2"),
     lambda e: _cyclic(e, 0.01, 0.1, 3, 3, lambda c, e: 1 / 2.0 ** (c - 1))),
    ("CyclicLR-exp_range", lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=5, mode="exp_range", gamma=0.95),
     lambda e: _cyclic(e, 0.01, 0.1, 5, 5, lambda c, e: 0.95 ** e)),
    ("OneCycleLR", lambda m, o: m.OneCycleLR(o, max_lr=0.1, total_steps=N + 1), lambda e: _one_cycle(e, 0.1, N + 1)),
    ("OneCycleLR-linear-3phase", lambda m, o: m.OneCycleLR(o, max_lr=0.2, epochs=4, steps_per_epoch=8,
                                                           anneal_strategy="linear", three_phase=True), None),
    ("SequentialLR", lambda m, o: m.SequentialLR(o, [m.LinearLR(o, start_factor=0.5, total_iters=4),
                                                     m.ExponentialLR(o, gamma=0.9)], milestones=[5]),
     lambda e: 0.1 * (0.5 + 0.5 * min(4, e) / 4) if e < 5 else 0.1 * 0.9 ** (e - 5)),
    ("ChainedScheduler", lambda m, o: m.ChainedScheduler([m.ConstantLR(o, factor=0.5, total_iters=4),
                                                          m.ExponentialLR(o, gamma=0.9)]),
     lambda e: 0.1 * 0.9 ** e * (0.5 if e < 4 else 1.0)),
    ("SWALR", lambda m, o: m.SWALR(o, swa_lr=0.02, anneal_epochs=7), lambda e: _swalr(e, 0.1, 0.02, 7)),
    ("SWALR-linear", lambda m, o: m.SWALR(o, swa_lr=[0.05], anneal_epochs=0, anneal_strategy="linear"),
     lambda e: 0.05),
]


class _ns:
    # the schedulers of an optim module (torchlite's or PyTorch's): lr_scheduler's and SWALR
    def __init__(self, optmod):
        self.optmod = optmod

    def __getattr__(self, name):
        if name == "SWALR":
            return self.optmod.swa_utils.SWALR
        return getattr(self.optmod.lr_scheduler, name)


def _sequence(lib, optmod, factory, n=N):
    p = lib.nn.Parameter(lib.zeros(2))
    opt = optmod.SGD([p], lr=0.1, momentum=0.9)
    mod = _ns(optmod)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = factory(mod, opt)
        lrs = [opt.param_groups[0]["lr"]]
        moms = [opt.param_groups[0]["momentum"]]
        for _ in range(n):
            opt.step()
            sched.step()
            lrs.append(opt.param_groups[0]["lr"])
            moms.append(opt.param_groups[0]["momentum"])
    return lrs, moms, sched, opt


@pytest.mark.parametrize("name,factory,closed", CASES, ids=[c[0] for c in CASES])
def test_sequence_matches_closed_form(name, factory, closed):
    lrs, _, sched, _ = _sequence(tl, optim, factory)
    assert sched.get_last_lr() == [lrs[-1]]
    if closed is None:
        pytest.skip("compared with PyTorch only")
    expected = [closed(e) for e in range(len(lrs))]
    np.testing.assert_allclose(lrs, expected, rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("name,factory,closed", CASES, ids=[c[0] for c in CASES])
def test_sequence_against_pytorch(name, factory, closed):
    torch = _torch()
    lrs, moms, sched, _ = _sequence(tl, optim, factory)
    tlrs, tmoms, tsched, _ = _sequence(torch, torch.optim, factory)
    np.testing.assert_allclose(lrs, tlrs, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(moms, tmoms, rtol=1e-12, atol=1e-15)
    sd, tsd = sched.state_dict(), tsched.state_dict()
    assert list(sd) == list(tsd)


def test_cyclic_and_one_cycle_momentum():
    lrs, moms, _, _ = _sequence(tl, optim, CASES[12][1])
    # momentum moves against the lr: max_momentum at base_lr, base_momentum at max_lr
    for lr, m in zip(lrs, moms):
        assert abs((lr - 0.01) / 0.09 - (0.9 - m) / 0.1) < 1e-12
    p = tl.nn.Parameter(tl.zeros(2))
    adam = optim.Adam([p], lr=0.1, betas=(0.9, 0.99))
    sched = lr_scheduler.OneCycleLR(adam, max_lr=0.1, total_steps=10)
    assert adam.param_groups[0]["betas"] == (0.95, 0.99)
    for _ in range(3):
        adam.step()
        sched.step()
    assert 0.85 <= adam.param_groups[0]["betas"][0] < 0.95
    for _ in range(7):
        adam.step()
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 11 times. The specified number of total steps is 10"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sched.step()


def test_reduce_lr_on_plateau():
    metrics = [1.0, 0.9, 0.9, 0.95, 0.91, 0.89, 0.9, 0.9, 0.9, 0.9, 0.8, 0.85, 0.85, 0.85, 0.85, 0.85, 0.85]

    def run(lib, optmod):
        p = lib.nn.Parameter(lib.zeros(2))
        opt = optmod.SGD([{"params": [p]}, {"params": [lib.nn.Parameter(lib.zeros(1))], "lr": 0.01}], lr=0.1)
        sched = optmod.lr_scheduler.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1, min_lr=[0.02, 0.0],
                                                      threshold=0.05)
        out = []
        for m in metrics:
            opt.step()
            sched.step(m)
            out.append([g["lr"] for g in opt.param_groups])
        return out, sched

    out, sched = run(tl, optim)
    # by hand: best 1.0 (epoch 1), 0.9 improves by > 5% (epoch 2); 4 bad epochs reach patience 2 at epoch 5
    # (lr halves, cooldown 1), 0.8 is a new best, then 0.85s reduce again
    expected, lr, best, bad, cool = [], [0.1, 0.01], math.inf, 0, 0
    for m in metrics:
        if m < best * (1 - 0.05):
            best, bad = m, 0
        else:
            bad += 1
        if cool > 0:
            cool, bad = cool - 1, 0
        if bad > 2:
            lr = [max(x * 0.5, lo) if x - max(x * 0.5, lo) > 1e-8 else x for x, lo in zip(lr, [0.02, 0.0])]
            cool, bad = 1, 0
        expected.append(list(lr))
    assert out == expected
    assert out[-1][0] == 0.02 and sched.get_last_lr() == out[-1]  # reduced three times, held at min_lr
    assert out[5] == [0.05, 0.005]
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    tout, tsched = run(torch, torch.optim)
    assert out == tout
    assert list(sched.state_dict()) == list(tsched.state_dict())


def test_reduce_lr_on_plateau_errors_and_modes():
    p = tl.nn.Parameter(tl.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    with pytest.raises(ValueError, match=r"Factor should be < 1.0."):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode bogus is unknown!"):
        lr_scheduler.ReduceLROnPlateau(opt, mode="bogus")
    with pytest.raises(ValueError, match="threshold mode bogus is unknown!"):
        lr_scheduler.ReduceLROnPlateau(opt, threshold_mode="bogus")
    with pytest.raises(ValueError, match="expected 1 min_lrs, got 2"):
        lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0, 0])
    sched = lr_scheduler.ReduceLROnPlateau(opt, mode="max", threshold_mode="abs", threshold=0.1, patience=0)
    sched.step(1.0)
    sched.step(1.05)  # not better by 0.1 in max/abs mode
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    sched.step(tl.tensor(2.0))
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)


@pytest.mark.parametrize("index", [2, 5, 9, 10, 13, 15, 17, 18, 19])
def test_state_dict_round_trip(index):
    name, factory, _ = CASES[index]
    full, _, _, _ = _sequence(tl, optim, factory, n=20)
    lrs, _, sched, opt = _sequence(tl, optim, factory, n=8)
    saved = pickle.loads(pickle.dumps(sched.state_dict()))
    p = tl.nn.Parameter(tl.zeros(2))
    opt2 = optim.SGD([p], lr=0.1, momentum=0.9)
    opt2.load_state_dict(opt.state_dict())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched2 = factory(_ns(optim), opt2)
        sched2.load_state_dict(saved)
        for group, lr in zip(opt2.param_groups, sched.get_last_lr()):
            group["lr"] = lr
        resumed = list(lrs)
        for _ in range(12):
            opt2.step()
            sched2.step()
            resumed.append(opt2.param_groups[0]["lr"])
    np.testing.assert_allclose(resumed, full, rtol=1e-12)


def test_resume_with_last_epoch():
    p = tl.nn.Parameter(tl.zeros(2))
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\] when resuming"):
        lr_scheduler.StepLR(opt, 3, last_epoch=4)
    opt.param_groups[0]["initial_lr"] = 0.2
    sched = lr_scheduler.StepLR(opt, 3, last_epoch=1)  # the initial step lands on epoch 2
    assert sched.last_epoch == 2 and sched.base_lrs == [0.2]
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.01)
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    for index in range(len(CASES)):
        if CASES[index][0].startswith(("Sequential", "Chained", "SWALR", "OneCycle", "Lambda")):
            continue
        seqs = []
        for lib, optmod in ((tl, optim), (torch, torch.optim)):
            q = lib.nn.Parameter(lib.zeros(2))
            o = optmod.SGD([q], lr=0.1, momentum=0.9)
            o.param_groups[0]["initial_lr"] = 0.2
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # resume at last_epoch=5, the scheduler built with the same arguments
                s = _with_last_epoch(CASES[index][1], _ns(optmod), o, 5)
                out = [o.param_groups[0]["lr"]]
                for _ in range(6):
                    o.step()
                    s.step()
                    out.append(o.param_groups[0]["lr"])
            seqs.append(out)
        np.testing.assert_allclose(seqs[0], seqs[1], rtol=1e-12, err_msg=CASES[index][0])


def _with_last_epoch(factory, module, opt, last_epoch):
    # call the factory with a module whose scheduler classes default to the given last_epoch
    class _Module:
        def __getattr__(self, name):
            cls = getattr(module, name)
            return lambda *a, **k: cls(*a, last_epoch=last_epoch, **k)

    return factory(_Module(), opt)


def test_warnings():
    p = tl.nn.Parameter(tl.zeros(2))
    opt = optim.SGD([p], lr=0.1)
    sched = lr_scheduler.StepLR(opt, 3)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()  # only once
        opt2 = optim.SGD([p], lr=0.1)
        sched2 = lr_scheduler.ExponentialLR(opt2, 0.5)
        opt2.step()
        sched2.step()
        assert sched2.get_last_lr() == [0.05]
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        sched.step(6)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.001)  # the closed form at epoch 6
    opt3 = optim.SGD([p], lr=0.1)
    sched3 = lr_scheduler.StepLR(opt3, 3)
    opt3.step = lambda: None
    with pytest.warns(UserWarning, match="Seems like `optimizer.step\\(\\)` has been overridden"):
        sched3.step()


def test_scheduler_errors():
    p = tl.nn.Parameter(tl.zeros(2))
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.StepLR([], 3)
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1, lambda e: 1])
    with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between 0 and 1."):
        lr_scheduler.ConstantLR(opt, factor=2)
    with pytest.raises(ValueError, match="Starting multiplicative factor expected to be greater than 0"):
        lr_scheduler.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="Ending multiplicative factor expected to be between 0 and 1."):
        lr_scheduler.LinearLR(opt, end_factor=2)
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="Expected integer T_mult >= 1, but got 0"):
        lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0)
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        lr_scheduler.CyclicLR(opt, 0.01, 0.1, mode="bogus")
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1 with `cycle_momentum` option"):
        lr_scheduler.CyclicLR(optim.Adagrad([p]), 0.01, 0.1)
    with pytest.raises(ValueError, match="base_lr must have the same length as optimizer.param_groups. base_lr has "
                                         "2 values, param_groups has 1."):
        lr_scheduler.CyclicLR(opt, [0.01, 0.02], 0.1, cycle_momentum=False)
    with pytest.raises(ValueError, match="You must define either total_steps OR \\(epochs AND steps_per_epoch\\)"):
        lr_scheduler.OneCycleLR(opt, 0.1)
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 0"):
        lr_scheduler.OneCycleLR(opt, 0.1, total_steps=0)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start, but got 2"):
        lr_scheduler.OneCycleLR(opt, 0.1, total_steps=5, pct_start=2)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got x"):
        lr_scheduler.OneCycleLR(opt, 0.1, total_steps=5, anneal_strategy="x")
    with pytest.raises(ValueError, match="SequentialLR expects at least one scheduler, but got no scheduler."):
        lr_scheduler.SequentialLR(opt, [], [])
    with pytest.raises(ValueError, match="Sequential Schedulers expects number of schedulers provided to be one more"):
        lr_scheduler.SequentialLR(opt, [lr_scheduler.StepLR(opt, 2)], [3])
    with pytest.raises(ValueError, match="SequentialLR does not support `ReduceLROnPlateau` scheduler"):
        lr_scheduler.SequentialLR(opt, [lr_scheduler.ReduceLROnPlateau(opt)], [])
    other = optim.SGD([tl.nn.Parameter(tl.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="ChainedScheduler expects all schedulers to belong to the same optimizer"):
        lr_scheduler.ChainedScheduler([lr_scheduler.StepLR(opt, 2), lr_scheduler.StepLR(other, 2)])
    with pytest.raises(ValueError, match="anneal_strategy must by one of 'cos' or 'linear', instead got x"):
        swa_utils.SWALR(opt, 0.01, anneal_strategy="x")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
        swa_utils.SWALR(opt, 0.01, anneal_epochs=-1)
    assert issubclass(lr_scheduler._LRScheduler, lr_scheduler.LRScheduler)
    assert isinstance(lr_scheduler.ReduceLROnPlateau(opt), lr_scheduler.LRScheduler)


def test_lambda_state_dict_saves_callable_objects():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, e):
            return self.rate ** e

    p = tl.nn.Parameter(tl.zeros(2))
    opt = optim.SGD([p], lr=1.0)
    fn = Decay()
    sched = lr_scheduler.LambdaLR(opt, [fn])
    fn.rate = 0.25
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"rate": 0.25}]
    assert lr_scheduler.LambdaLR(opt, lambda e: 1.0).state_dict()["lr_lambdas"] == [None]
    fresh = Decay()
    sched2 = lr_scheduler.LambdaLR(opt, fresh)
    sched2.load_state_dict(sd)
    assert fresh.rate == 0.25


class _Affine(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = tl.nn.Parameter(tl.tensor([1.0, 2.0], dtype=tl.float64))
        self.register_buffer("count", tl.tensor([0.0], dtype=tl.float64))

    def forward(self, x):
        return x * self.w


def test_averaged_model():
    model = _Affine()
    swa = swa_utils.AveragedModel(model)
    assert swa.n_averaged.item() == 0 and swa.n_averaged.dtype == tl.int64
    values = [[1.0, 2.0], [3.0, 0.0], [2.0, 7.0]]
    for i, v in enumerate(values):
        with tl.no_grad():
            model.w.copy_(tl.tensor(v, dtype=tl.float64))
            model.count.fill_(i)
        swa.update_parameters(model)
    np.testing.assert_allclose(swa.module.w.detach().numpy(), np.mean(values, axis=0), rtol=1e-14)
    assert swa.module.count.tolist() == [2.0]  # buffers copied, not averaged
    assert swa.n_averaged.item() == 3
    assert swa(tl.ones(2, dtype=tl.float64)).tolist() == swa.module.w.tolist()
    ema = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9), use_buffers=True)
    ema2 = swa_utils.AveragedModel(model, avg_fn=swa_utils.get_ema_avg_fn(0.9))
    expected = np.array(values[-1])
    for v in values:
        with tl.no_grad():
            model.w.copy_(tl.tensor(v, dtype=tl.float64))
        ema.update_parameters(model)
        ema2.update_parameters(model)
        expected = 0.9 * expected + 0.1 * np.array(v) if v is not values[0] else np.array(v)
    np.testing.assert_allclose(ema.module.w.detach().numpy(), expected, rtol=1e-14)
    np.testing.assert_allclose(ema2.module.w.detach().numpy(), expected, rtol=1e-14)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        swa_utils.AveragedModel(model, avg_fn=swa_utils.get_swa_avg_fn(), multi_avg_fn=swa_utils.get_swa_multi_avg_fn())


def test_update_bn():
    if not hasattr(tl.nn, "BatchNorm1d"):
        pytest.skip("torchlite.nn.BatchNorm1d is not available")
    bn = tl.nn.BatchNorm1d(3, momentum=0.3)
    rng = np.random.default_rng(0)
    batches = [tl.tensor(rng.standard_normal((4, 3)) * 2 + 1, dtype=tl.float32) for _ in range(3)]
    bn.eval()
    swa_utils.update_bn([(b, 0) for b in batches], bn)
    data = np.concatenate([b.numpy() for b in batches])
    np.testing.assert_allclose(bn.running_mean.numpy(), data.mean(0), rtol=1e-5, atol=1e-6)
    # the cumulative average of the per-batch unbiased variances
    var = np.mean([b.numpy().var(0, ddof=1) for b in batches], axis=0)
    np.testing.assert_allclose(bn.running_var.numpy(), var, rtol=1e-5)
    assert bn.momentum == 0.3 and not bn.training
