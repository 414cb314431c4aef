"""torchlite.optim: the optimizers' updates against NumPy reimplementations and (when installed) PyTorch,
param groups, state_dict round trips, hooks, zero_grad, errors and repr."""
import copy
import math
import os
import pickle
import warnings

import numpy as np
import pytest

import torchlite as tl
import torchlite.optim as optim


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")


# ---------------------------------------------------------------------------------------------------
# NumPy reimplementations of the update rules (textbook forms), run on float64 with fixed gradients
# ---------------------------------------------------------------------------------------------------

def np_sgd(p, grads, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
    buf = None
    for g in grads:
        g = -g if maximize else g
        g = g + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    return p


def np_adam(p, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, maximize=False,
            decoupled=False):
    b1, b2 = betas
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vmax = np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = -g if maximize else g
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        vhat = (vmax if amsgrad else v) / (1 - b2 ** t)
        p = p - lr * (m / (1 - b1 ** t)) / (np.sqrt(vhat) + eps)
    return p


def np_rmsprop(p, grads, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False):
    sq = np.zeros_like(p)
    ga = np.zeros_like(p)
    buf = np.zeros_like(p)
    for g in grads:
        g = g + weight_decay * p
        sq = alpha * sq + (1 - alpha) * g * g
        if centered:
            ga = alpha * ga + (1 - alpha) * g
            avg = np.sqrt(sq - ga * ga) + eps
        else:
            avg = np.sqrt(sq) + eps
        if momentum > 0:
            buf = momentum * buf + g / avg
            p = p - lr * buf
        else:
            p = p - lr * g / avg
    return p


def np_adagrad(p, grads, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10):
    s = np.full_like(p, initial_accumulator_value)
    for t, g in enumerate(grads, 1):
        g = g + weight_decay * p
        s = s + g * g
        p = p - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(s) + eps)
    return p


def np_adadelta(p, grads, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0):
    sq = np.zeros_like(p)
    acc = np.zeros_like(p)
    for g in grads:
        g = g + weight_decay * p
        sq = rho * sq + (1 - rho) * g * g
        delta = np.sqrt(acc + eps) / np.sqrt(sq + eps) * g
        acc = rho * acc + (1 - rho) * delta * delta
        p = p - lr * delta
    return p


def np_adamax(p, grads, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0):
    b1, b2 = betas
    m = np.zeros_like(p)
    u = np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = g + weight_decay * p
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g) + eps)
        p = p - lr / (1 - b1 ** t) * m / u
    return p


def np_nadam(p, grads, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
             decoupled=False):
    b1, b2 = betas
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    mu_prod = np.float32(1.0)  # PyTorch keeps the product of the mu's in a float32 tensor
    for t, g in enumerate(grads, 1):
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        mu_prod = np.float32(mu_prod * np.float32(mu))
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        denom = np.sqrt(v / (1 - b2 ** t)) + eps
        p = p - lr * (1 - mu) / (1 - float(mu_prod)) * g / denom
        p = p - lr * mu_next / (1 - float(mu_prod) * mu_next) * m / denom
    return p


def np_radam(p, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled=False):
    b1, b2 = betas
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    rho_inf = 2 / (1 - b2) - 1
    for t, g in enumerate(grads, 1):
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1 ** t)
        rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho_t > 5:
            r = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            p = p - lr * mhat * r * math.sqrt(1 - b2 ** t) / (np.sqrt(v) + eps)
        else:
            p = p - lr * mhat
    return p


def np_asgd(p, grads, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0):
    eta = float(np.float32(lr))  # eta and mu are float32 tensors in PyTorch's state
    mu = 1.0
    ax = np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = g + weight_decay * p
        p = p * (1 - lambd * eta) - eta * g
        ax = ax + (p - ax) * mu if mu != 1 else p.copy()
        eta = float(np.float32(lr / (1 + lambd * lr * t) ** alpha))
        mu = float(np.float32(1 / max(1, t - t0)))
    return p, ax


def np_rprop(p, grads, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50)):
    prev = np.zeros_like(p)
    size = np.full_like(p, lr)
    for g in grads:
        s = np.sign(g * prev)
        factor = np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0))
        size = np.clip(size * factor, *step_sizes)
        g = np.where(s < 0, 0.0, g)
        p = p - np.sign(g) * size
        prev = g
    return p


NUMPY_CASES = [
    ("SGD", np_sgd, dict(lr=0.1)),
    ("SGD", np_sgd, dict(lr=0.1, momentum=0.9, weight_decay=0.1)),
    ("SGD", np_sgd, dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", np_sgd, dict(lr=0.1, momentum=0.5, dampening=0.3, maximize=True)),
    ("Adam", np_adam, dict(lr=0.1)),
    ("Adam", np_adam, dict(lr=0.1, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("AdamW", lambda p, g, **kw: np_adam(p, g, decoupled=True, **kw), dict(lr=0.1, weight_decay=0.1)),
    ("AdamW", lambda p, g, **kw: np_adam(p, g, decoupled=True, weight_decay=0.01, **kw), dict(lr=0.1, amsgrad=True)),
    ("RMSprop", np_rmsprop, dict(lr=0.01)),
    ("RMSprop", np_rmsprop, dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("Adagrad", np_adagrad, dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2)),
    ("Adadelta", np_adadelta, dict(lr=0.5, rho=0.8, weight_decay=0.1)),
    ("Adamax", np_adamax, dict(lr=0.1, weight_decay=0.1)),
    ("NAdam", np_nadam, dict(lr=0.1)),
    ("NAdam", lambda p, g, **kw: np_nadam(p, g, decoupled=True, **kw), dict(lr=0.1, weight_decay=0.1,
                                                                               decoupled_weight_decay=True)),
    ("RAdam", np_radam, dict(lr=0.1)),
    ("RAdam", lambda p, g, **kw: np_radam(p, g, decoupled=True, **kw), dict(lr=0.1, weight_decay=0.1,
                                                                               decoupled_weight_decay=True)),
    ("ASGD", lambda p, g, **kw: np_asgd(p, g, **kw)[0], dict(lr=0.05, t0=3, lambd=0.01, weight_decay=0.1)),
    ("Rprop", np_rprop, dict(lr=0.05)),
    ("Rprop", np_rprop, dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.1))),
]


def _fixed_grads(n=12, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for _ in range(n)]


@pytest.mark.parametrize("name,ref,kwargs", NUMPY_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(NUMPY_CASES)])
def test_update_matches_numpy(name, ref, kwargs):
    grads = _fixed_grads()
    p0 = np.random.default_rng(1).standard_normal((3, 4))
    p = tl.nn.Parameter(tl.tensor(p0, dtype=tl.float64))
    opt = getattr(optim, name)([p], **kwargs)
    for g in grads:
        p.grad = tl.tensor(g, dtype=tl.float64)
        opt.step()
    kw = {k: v for k, v in kwargs.items() if k != "decoupled_weight_decay"}
    expected = ref(p0.copy(), grads, **kw)
    np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-11, atol=1e-12)


def test_asgd_average_matches_numpy():
    grads = _fixed_grads(8)
    p0 = np.random.default_rng(2).standard_normal((3, 4))
    p = tl.nn.Parameter(tl.tensor(p0, dtype=tl.float64))
    opt = optim.ASGD([p], lr=0.05, t0=3, lambd=0.01)
    for g in grads:
        p.grad = tl.tensor(g, dtype=tl.float64)
        opt.step()
    _, ax = np_asgd(p0.copy(), grads, lr=0.05, t0=3, lambd=0.01)
    np.testing.assert_allclose(opt.state[p]["ax"].numpy(), ax, rtol=1e-11, atol=1e-12)


def test_state_layout_and_step_dtype():
    p = tl.nn.Parameter(tl.zeros(3, dtype=tl.float64))
    p.grad = tl.ones(3, dtype=tl.float64)
    opt = optim.Adam([p], amsgrad=True)
    opt.step()
    state = opt.state[p]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert state["step"].dtype == tl.float32 and state["step"].dim() == 0 and state["step"].item() == 1.0
    assert state["exp_avg"].dtype == tl.float64
    sgd = optim.SGD([p], lr=0.1)
    sgd.step()
    assert len(sgd.state) == 0  # no momentum: no state
    ada = optim.Adagrad([p], initial_accumulator_value=0.5)
    assert ada.state[p]["sum"].tolist() == [0.5, 0.5, 0.5]  # Adagrad's state is made eagerly


def test_params_without_grad_are_skipped():
    a = tl.nn.Parameter(tl.ones(2))
    b = tl.nn.Parameter(tl.ones(2))
    a.grad = tl.ones(2)
    opt = optim.Adam([a, b], lr=0.1)
    opt.step()
    assert b.tolist() == [1.0, 1.0] and b not in opt.state
    assert a.tolist() != [1.0, 1.0]


# ---------------------------------------------------------------------------------------------------
# LBFGS
# ---------------------------------------------------------------------------------------------------

def _quadratic_problem(lib, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((5, 5))
    a = a @ a.T / 5 + np.eye(5)
    b = rng.standard_normal(5)
    return a, b


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_solves_quadratic(line_search):
    a, b = _quadratic_problem(np)
    x = tl.nn.Parameter(tl.zeros(5, dtype=tl.float64))
    at, bt = tl.tensor(a), tl.tensor(b)
    opt = optim.LBFGS([x], lr=1, max_iter=50, line_search_fn=line_search, tolerance_grad=1e-12,
                      tolerance_change=1e-14)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x * at.matmul(x)).sum() - (bt * x).sum()
        loss.backward()
        return loss

    first = opt.step(closure)
    assert isinstance(first, tl.Tensor) and first.item() == 0.0
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(a, b), rtol=1e-6, atol=1e-6)
    state = opt.state[x]
    assert state["n_iter"] >= 1 and state["func_evals"] >= state["n_iter"]


def test_lbfgs_errors():
    a = tl.nn.Parameter(tl.zeros(2))
    b = tl.nn.Parameter(tl.zeros(2))
    with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options \(parameter groups\)"):
        optim.LBFGS([{"params": [a]}, {"params": [b]}])
    assert optim.LBFGS([a], max_iter=8).defaults["max_eval"] == 10
    opt = optim.LBFGS([a], line_search_fn="bogus")

    def closure():
        opt.zero_grad()
        loss = ((a - 1) ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


# ---------------------------------------------------------------------------------------------------
# The Optimizer base: groups, state_dict, hooks, zero_grad, errors, repr
# ---------------------------------------------------------------------------------------------------

def test_param_groups_defaults_and_add_param_group():
    a, b, c = (tl.nn.Parameter(tl.zeros(2)) for _ in range(3))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert list(opt.param_groups[0]) == ["params", "lr", "momentum", "dampening", "weight_decay", "nesterov",
                                         "maximize", "foreach", "differentiable", "fused"]
    assert opt.param_groups[1]["params"] == [b] or opt.param_groups[1]["params"][0] is b
    opt.add_param_group({"params": [c], "momentum": 0.0})
    assert opt.param_groups[2]["momentum"] == 0.0 and opt.param_groups[2]["lr"] == 0.1
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict, but got list"):
        opt.add_param_group([a])
    with pytest.raises(TypeError, match="optimizer parameters need to be organized in ordered collections"):
        opt.add_param_group({"params": {tl.nn.Parameter(tl.zeros(1))}})
    named = optim.SGD([("w", a), ("b", b)])
    assert named.param_groups[0]["param_names"] == ["w", "b"]
    with pytest.raises(ValueError, match="Some param names are missing"):
        optim.SGD([("w", a), b])
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([a, a])


def test_constructor_errors():
    p = tl.nn.Parameter(tl.zeros(2))
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an iterable of Tensors "
                                        "or dicts, but got torchlite.FloatTensor"):
        optim.SGD(p)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.Adam([])
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
        optim.SGD([1])
    leaf = tl.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([leaf * 2])
    cases = [
        (optim.SGD, dict(lr=-1), ValueError, "Invalid learning rate: -1"),
        (optim.SGD, dict(momentum=-1), ValueError, "Invalid momentum value: -1"),
        (optim.SGD, dict(weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
        (optim.SGD, dict(nesterov=True), ValueError, "Nesterov momentum requires a momentum and zero dampening"),
        (optim.SGD, dict(momentum=0.9, dampening=0.1, nesterov=True), ValueError, "Nesterov momentum requires"),
        (optim.SGD, dict(fused=True, foreach=True), RuntimeError, "`fused` and `foreach` cannot be `True` together."),
        (optim.Adam, dict(fused=True, differentiable=True), RuntimeError, "`fused` does not support `differentiable`"),
        (optim.Adam, dict(eps=-1), ValueError, "Invalid epsilon value: -1"),
        (optim.Adam, dict(betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0: 1.0"),
        (optim.AdamW, dict(betas=(0.9, -1)), ValueError, "Invalid beta parameter at index 1: -1"),
        (optim.Adam, dict(lr=tl.tensor([0.1, 0.2])), ValueError, "Tensor lr must be 1-element"),
        (optim.RMSprop, dict(alpha=-1), ValueError, "Invalid alpha value: -1"),
        (optim.RMSprop, dict(momentum=-1), ValueError, "Invalid momentum value: -1"),
        (optim.Adagrad, dict(lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
        (optim.Adagrad, dict(initial_accumulator_value=-1), ValueError,
         "Invalid initial_accumulator_value value: -1"),
        (optim.Adadelta, dict(rho=2), ValueError, "Invalid rho value: 2"),
        (optim.Adamax, dict(betas=(0.9, 1)), ValueError, "Invalid beta parameter at index 1: 1"),
        (optim.NAdam, dict(momentum_decay=-1), ValueError, "Invalid momentum_decay value: -1"),
        (optim.RAdam, dict(weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
        (optim.ASGD, dict(lr=-1), ValueError, "Invalid learning rate: -1"),
        (optim.Rprop, dict(etas=(1.5, 1.2)), ValueError, "Invalid eta values: 1.5, 1.2"),
        (optim.LBFGS, dict(lr=-1), ValueError, "Invalid learning rate: -1"),
    ]
    for cls, kwargs, exc, message in cases:
        with pytest.raises(exc) as info:
            cls([p], **kwargs)
        assert str(info.value).startswith(message), (cls, kwargs, str(info.value))


def test_defaults_as_pytorch():
    p = tl.nn.Parameter(tl.zeros(2))
    expected = {
        "SGD": dict(lr=0.001, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False, foreach=None,
                    differentiable=False, fused=None),
        "AdamW": dict(lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.01, amsgrad=False, maximize=False,
                      foreach=None, capturable=False, differentiable=False, fused=None, decoupled_weight_decay=True),
        "RMSprop": dict(lr=0.01, momentum=0, alpha=0.99, eps=1e-08, centered=False, weight_decay=0, capturable=False,
                        foreach=None, maximize=False, differentiable=False),
        "Rprop": dict(lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-06, 50), foreach=None, maximize=False,
                      differentiable=False, capturable=False),
        "LBFGS": dict(lr=1, max_iter=20, max_eval=25, tolerance_grad=1e-07, tolerance_change=1e-09,
                      history_size=100, line_search_fn=None),
    }
    for name, defaults in expected.items():
        got = getattr(optim, name)([p]).defaults
        assert list(got.items()) == list(defaults.items()), name


def test_repr():
    p = tl.nn.Parameter(tl.zeros(2))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": [tl.nn.Parameter(tl.zeros(1))], "lr": 0.01})
    assert repr(opt) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
        "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0.9\n    nesterov: False\n"
        "    weight_decay: 0\n\nParameter Group 1\n    dampening: 0\n    differentiable: False\n"
        "    foreach: None\n    fused: None\n    lr: 0.01\n    maximize: False\n    momentum: 0.9\n"
        "    nesterov: False\n    weight_decay: 0\n)")


def test_zero_grad():
    p = tl.nn.Parameter(tl.ones(2))
    opt = optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_closure_and_step_hooks():
    p = tl.nn.Parameter(tl.tensor([1.0, 2.0]))
    opt = optim.SGD([p], lr=0.5)
    calls = []

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt)))
    h2 = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", p.tolist())))
    loss = opt.step(closure)
    assert loss.item() == 5.0 and p.tolist() == [0.0, 0.0]
    assert calls == [("pre", True), ("post", [0.0, 0.0])]
    h1.remove()
    h2.remove()
    opt.step(closure)
    assert len(calls) == 2
    # a pre hook may replace the arguments
    p.data.copy_(tl.tensor([1.0, 1.0]))
    opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": closure}))
    opt.step()
    assert p.tolist() == [0.0, 0.0]
    bad = optim.SGD([p], lr=0.5)
    bad.register_step_pre_hook(lambda o, args, kwargs: 3)
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        bad.step()
    gh = optim.optimizer.register_optimizer_step_post_hook(lambda o, a, k: calls.append("global"))
    bad2 = optim.Adam([p])
    bad2.step()
    gh.remove()
    bad2.step()
    assert calls.count("global") == 1


def _train(opt_factory, params_np, grads, start=0, stop=None, opt=None):
    params = [tl.nn.Parameter(tl.tensor(x, dtype=tl.float64)) for x in params_np] if opt is None else None
    if opt is None:
        opt = opt_factory(params)
    params = [p for g in opt.param_groups for p in g["params"]]
    for gs in grads[start:stop]:
        for p, g in zip(params, gs):
            p.grad = tl.tensor(g, dtype=tl.float64)
        opt.step()
    return opt, params


ROUND_TRIP = [
    lambda ps: optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.05}], lr=0.1, momentum=0.9),
    lambda ps: optim.Adam(ps, lr=0.1, amsgrad=True),
    lambda ps: optim.AdamW([{"params": ps[:1]}, {"params": ps[1:], "weight_decay": 0.5}], lr=0.1),
    lambda ps: optim.RMSprop(ps, centered=True, momentum=0.5),
    lambda ps: optim.Adagrad(ps, lr_decay=0.1),
    lambda ps: optim.Adadelta(ps),
    lambda ps: optim.Adamax(ps),
    lambda ps: optim.NAdam(ps),
    lambda ps: optim.RAdam(ps),
    lambda ps: optim.ASGD(ps, t0=2),
    lambda ps: optim.Rprop(ps),
]


@pytest.mark.parametrize("factory", ROUND_TRIP, ids=range(len(ROUND_TRIP)))
def test_state_dict_round_trip(factory):
    rng = np.random.default_rng(3)
    params_np = [rng.standard_normal((2, 3)), rng.standard_normal(4)]
    grads = [[rng.standard_normal((2, 3)), rng.standard_normal(4)] for _ in range(8)]
    whole, whole_params = _train(factory, params_np, grads)
    first, _ = _train(factory, params_np, grads, stop=4)
    saved = pickle.loads(pickle.dumps(first.state_dict()))
    # a fresh optimizer on parameters at the interrupted values
    resumed_params = [tl.nn.Parameter(p.detach().clone()) for g in first.param_groups for p in g["params"]]
    resumed = factory(resumed_params)
    resumed.load_state_dict(saved)
    _train(None, None, grads, start=4, opt=resumed)
    # NAdam's mu_product and ASGD's eta and mu are float32 tensors, cast to the parameters' dtype on load
    # (as PyTorch does): those runs agree to rounding only.
    float32_state = any(k in ("mu_product", "eta") for s in saved["state"].values() for k in s)
    for a, b in zip(whole_params, resumed_params):
        if float32_state:
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-7)
        else:
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    if float32_state:
        assert all(v.dtype == tl.float64 for s in resumed.state.values() for k, v in s.items() if k != "step")
    sd = first.state_dict()
    assert list(sd) == ["state", "param_groups"]
    assert [g["params"] for g in sd["param_groups"]] in ([[0, 1]], [[0], [1]])


def test_load_state_dict_casts_and_checks():
    p = tl.nn.Parameter(tl.zeros(3, dtype=tl.float64))
    p.grad = tl.ones(3, dtype=tl.float64)
    opt = optim.Adam([p])
    opt.step()
    sd = copy.deepcopy(opt.state_dict())
    sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].float()
    q = tl.nn.Parameter(tl.zeros(3, dtype=tl.float64))
    other = optim.Adam([q])
    other.load_state_dict(sd)
    assert other.state[q]["exp_avg"].dtype == tl.float64  # cast to the parameter's dtype
    assert other.state[q]["step"].dtype == tl.float32  # 'step' is left alone
    assert other.param_groups[0]["params"][0] is q
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        optim.Adam([{"params": [q]}, {"params": [tl.nn.Parameter(tl.zeros(1))]}]).load_state_dict(sd)
    with pytest.raises(ValueError, match="loaded state dict contains a parameter group that doesn't match the size "
                                         "of optimizer's group"):
        optim.Adam([q, tl.nn.Parameter(tl.zeros(1))]).load_state_dict(sd)


def test_state_dict_hooks_and_deepcopy():
    p = tl.nn.Parameter(tl.zeros(2))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    seen = []
    opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append("load_pre"))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("load_post"))
    sd = opt.state_dict()
    assert sd["extra"] == 1 and seen == ["pre"]
    opt.load_state_dict(sd)
    assert seen == ["pre", "load_pre", "load_post"]
    clone = copy.deepcopy(opt)
    assert clone.param_groups[0]["lr"] == 0.1 and clone.param_groups[0]["params"][0] is not p


# ---------------------------------------------------------------------------------------------------
# Against PyTorch
# ---------------------------------------------------------------------------------------------------

TORCH_CASES = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.01, momentum=0.9, dampening=0.3, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.5, fused=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, maximize=True, decoupled_weight_decay=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, fused=True)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, amsgrad=True, weight_decay=0.3)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1, eps=1e-6)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1, betas=(0.8, 0.99))),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.9, 0.9))),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, t0=5, lambd=0.01, alpha=0.5, weight_decay=0.1)),
    ("Rprop", dict(lr=0.05)),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("LBFGS", dict(lr=1, max_iter=5)),
    ("LBFGS", dict(lr=0.5, max_iter=4, history_size=2)),
    ("LBFGS", dict(lr=1, max_iter=5, line_search_fn="strong_wolfe", history_size=3)),
]


def _run_lib(lib, optmod, name, kwargs, n=12):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 5))
    a = a @ a.T / 5 + np.eye(5)
    b = rng.standard_normal(5)
    x0, y0 = rng.standard_normal(5), rng.standard_normal((2, 3))
    p1 = lib.nn.Parameter(lib.tensor(x0, dtype=lib.float64))
    p2 = lib.nn.Parameter(lib.tensor(y0, dtype=lib.float64))
    at, bt = lib.tensor(a, dtype=lib.float64), lib.tensor(b, dtype=lib.float64)
    opt = getattr(optmod, name)([{"params": [p1]}, {"params": [p2]}] if name != "LBFGS" else [p1, p2], **kwargs)
    sign = -1.0 if kwargs.get("maximize") else 1.0

    def closure():
        opt.zero_grad()
        loss = 0.5 * (p1 * at.matmul(p1)).sum() - (bt * p1).sum() + 0.1 * (p2 ** 4).sum() + (p2 * p1[:3].sum()).sum()
        (sign * loss).backward()
        return loss

    for _ in range(n):
        if name == "LBFGS":
            opt.step(closure)
        else:
            closure()
            opt.step()
    return [p1.detach().numpy().copy(), p2.detach().numpy().copy()], opt


def _structure(value):
    # the layout of a state_dict: keys, container types, tensor dtypes and shapes
    if isinstance(value, dict):
        return {k: _structure(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_structure(v) for v in value]
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return "tensor", str(value.dtype).split(".")[-1], tuple(value.shape)
    return type(value).__name__


@pytest.mark.parametrize("name,kwargs", TORCH_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(TORCH_CASES)])
def test_against_pytorch(name, kwargs):
    torch = _torch()
    mine, opt = _run_lib(tl, optim, name, kwargs)
    ref, topt = _run_lib(torch, torch.optim, name, kwargs)
    for a, b in zip(mine, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    if name == "LBFGS":  # the line search keeps its scalars as Python floats here, as 0-dim tensors in PyTorch
        assert list(sd["state"][0]) == list(tsd["state"][0])
    else:
        assert _structure(sd["state"]) == _structure(tsd["state"])
        for i in sd["state"]:
            for key, value in sd["state"][i].items():
                np.testing.assert_allclose(value.numpy(), tsd["state"][i][key].numpy(), rtol=1e-10, atol=1e-10)
    assert repr(opt) == repr(topt)


def test_defaults_against_pytorch():
    torch = _torch()
    for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD",
                 "Rprop", "LBFGS"]:
        mine = getattr(optim, name)([tl.nn.Parameter(tl.zeros(2))])
        ref = getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(2))])
        assert list(mine.defaults.items()) == list(ref.defaults.items()), name


def test_load_pytorch_layout_state_dict():
    # a state_dict saved by PyTorch (as plain numbers and arrays) loads and continues identically
    torch = _torch()
    rng = np.random.default_rng(5)
    x0 = rng.standard_normal(4)
    grads = [rng.standard_normal(4) for _ in range(6)]
    tp = torch.nn.Parameter(torch.tensor(x0))
    topt = torch.optim.Adam([tp], lr=0.1)
    for g in grads[:3]:
        tp.grad = torch.tensor(g)
        topt.step()
    tsd = topt.state_dict()
    sd = {"state": {k: {n: tl.tensor(v.numpy()) for n, v in s.items()} for k, s in tsd["state"].items()},
          "param_groups": copy.deepcopy(tsd["param_groups"])}
    p = tl.nn.Parameter(tl.tensor(tp.detach().numpy().copy()))
    opt = optim.Adam([p], lr=0.1)
    opt.load_state_dict(sd)
    for g in grads[3:]:
        tp.grad = torch.tensor(g)
        topt.step()
        p.grad = tl.tensor(g)
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-12)


def test_no_pytorch_import():
    # torchlite.optim works without PyTorch and never imports it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for mod in ("optimizer", "lr_scheduler", "swa_utils", "lbfgs", "adam"):
            src = open(os.path.join(list(optim.__path__)[0], mod + ".py")).read()
            assert "import torch\n" not in src and "from torch" not in src


def test_fused_update_refuses_bad_operands():
    p = tl.zeros(3)
    with pytest.raises(ValueError, match="_fused_update_: unknown update 'nope'"):
        tl._C._fused_update_("nope", [[p], [p]], [[0.0]])
    with pytest.raises(ValueError, match=r"adagrad: expected 3 lists of tensors \(params, grads, states\), got 2"):
        tl._C._fused_update_("adagrad", [[p], [p]], [[0.0] * 4])
    with pytest.raises(ValueError, match="adagrad: expected lists of 1 tensors and 1 lists of 4 scalars"):
        tl._C._fused_update_("adagrad", [[p], [p], [p]], [[0.0] * 3])
    with pytest.raises(RuntimeError, match=r"grad must match its parameter's size \[3\]"):
        tl._C._fused_update_("adagrad", [[p], [tl.zeros(2)], [p]], [[0.0] * 4])
    assert p.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("make", [
    lambda ps: optim.AdamW(ps, lr=0.01, weight_decay=0.1, amsgrad=True),
    lambda ps: optim.Adam(ps, lr=0.01, weight_decay=0.1, maximize=True),
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.5, dampening=0.2),
    lambda ps: optim.SGD(ps, lr=0.1),
    lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5),
    lambda ps: optim.Adagrad(ps, lr=0.1, maximize=True),
    lambda ps: optim.RMSprop(ps, lr=0.01, weight_decay=0.1),
    lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=True, maximize=True),
    lambda ps: optim.RMSprop(ps, lr=0.01, alpha=0.9, centered=True),
    lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5),
    lambda ps: optim.Adadelta(ps, lr=0.5, weight_decay=0.1),
    lambda ps: optim.Adadelta(ps, rho=0.5, maximize=True),
    lambda ps: optim.Adamax(ps, lr=0.05, weight_decay=0.1),
    lambda ps: optim.Adamax(ps, lr=0.05, maximize=True),
    lambda ps: optim.NAdam(ps, lr=0.05, weight_decay=0.1),
    lambda ps: optim.NAdam(ps, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True),
    lambda ps: optim.RAdam(ps, lr=0.05, betas=(0.9, 0.9), weight_decay=0.1),  # rectified from step 8
    lambda ps: optim.RAdam(ps, lr=0.05, betas=(0.9, 0.9), weight_decay=0.1, decoupled_weight_decay=True),
    lambda ps: optim.ASGD(ps, lr=0.05, t0=3, weight_decay=0.1),
    lambda ps: optim.ASGD(ps, lr=0.05, lambd=0.1, alpha=0.5, maximize=True),
    lambda ps: optim.Rprop(ps, lr=0.05),
    lambda ps: optim.Rprop(ps, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.08), maximize=True),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_kernels_match_the_op_by_op_updates(make, dtype, monkeypatch):
    # Contiguous parameters take the fused kernels (torchlite._C._fused_adam_, _fused_sgd_, _fused_update_); a
    # transposed view of the same values takes the op-by-op loop. Both must give the same
    # parameters and states.
    calls = []
    for name in ("_fused_adam_", "_fused_sgd_", "_fused_update_"):
        kernel = getattr(tl._C, name)
        monkeypatch.setattr(tl._C, name, lambda *a, _k=kernel, **kw: calls.append(
            a[1][0][0] if isinstance(a[0], str) else a[0][0]) or _k(*a, **kw))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 4)).astype(dtype)
    fused = tl.nn.Parameter(tl.tensor(x))
    looped = tl.nn.Parameter(tl.tensor(np.ascontiguousarray(x.T)).t())
    assert not looped.is_contiguous()
    a, b = make([fused]), make([looped])
    for step in range(8):
        g = rng.standard_normal((6, 4)).astype(dtype)
        if step == 3:
            g[0, :2] = 0  # Rprop's zero products
        fused.grad = tl.tensor(g)
        looped.grad = tl.tensor(g)
        a.step()
        b.step()
    assert len(calls) == 8 and all(c is fused for c in calls), "the contiguous parameter took the fused kernel"
    tol = 1e-15 if dtype == "float64" else 2e-7
    np.testing.assert_allclose(fused.detach().numpy(), looped.detach().numpy(), rtol=tol, atol=tol)
    for key, value in a.state[fused].items():
        np.testing.assert_allclose(value.numpy(), b.state[looped][key].numpy(), rtol=tol, atol=tol, err_msg=key)
