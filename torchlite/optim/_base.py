"""Helpers shared by the optimizers: torchlite's namespace, lazily bound (torchlite imports optim last)."""
import importlib

from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from .optimizer import _check_betas, _check_lr, _get_scalar_dtype, _step_tensor


class _Lazy:
    # torchlite's top-level namespace, looked up at call time (zeros_like, maximum, ...).
    def __getattr__(self, name):
        return getattr(importlib.import_module("torchlite"), name)


tl = _Lazy()


def _call_closure(closure):
    """Evaluate `closure` with grad enabled (None when there is none)."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _check_hparams(lr, **hparams):
    """PyTorch's constructor checks with its messages, `lr` first, then `hparams` in the order given:
    `betas` each in [0, 1), `rho` in [0, 1], every other one non-negative ("Invalid epsilon value" for eps)."""
    _check_lr(lr)
    for name, value in hparams.items():
        if name == "betas":
            _check_betas(value)
        elif name == "rho":
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"Invalid rho value: {value}")
        elif not 0.0 <= value:
            raise ValueError(f"Invalid {'epsilon' if name == 'eps' else name} value: {value}")


def _set_defaults(optimizer, step_keys=("step",), **defaults):
    """`__setstate__`'s part after Optimizer's: give each param group the `defaults` (in the order given) that
    an older state lacks, then make each of `step_keys` that an old state dict holds as a number a tensor."""
    for group in optimizer.param_groups:
        for key, value in defaults.items():
            group.setdefault(key, value)
    for key in step_keys:
        _step_state_to_tensor(optimizer, key)


def _init_state(state, param, on_device, *zero_keys):
    """A parameter's state on its first step: a 0-dim `step` (on the parameter's device when `on_device`),
    then a zero tensor like `param` for each of `zero_keys`."""
    state["step"] = _step_tensor(param, on_device)
    for key in zero_keys:
        state[key] = tl.zeros_like(param)


def _param_steps(optimizer, group, *zero_keys, init=None):
    """(param, grad, state) for each parameter of `group` that has a gradient, after the preamble the
    per-parameter optimizers share: a state still empty gets `step` and `zero_keys` (_init_state, on the
    parameter's device when the group is capturable), then `init(state, param, grad)` when given; the
    gradient is negated under `maximize`, and `step` counted."""
    for p, grad in zip(*_params_with_grad(group, optimizer)):
        state = optimizer.state[p]
        if len(state) == 0:
            _init_state(state, p, group["capturable"], *zero_keys)
            if init is not None:
                init(state, p, grad)
        if group["maximize"]:
            grad = grad.neg()
        state["step"].add_(1)
        yield p, grad, state


def _fused_steps(optimizer, group, kind, state_keys, scalars, *zero_keys, init=None):
    """The fused form of a `_param_steps` loop (torchlite._C._fused_update_ `kind`, kernels/gpu/optim.inc). When the
    group's parameters with a gradient, their gradients and their states `state_keys` can take it (`_fusable`):
    makes empty states as `_param_steps` does, counts each step, takes each parameter's scalars from
    `scalars(param, state)` (called after its step is counted, in the order the kernel lists them), runs every
    parameter's update in one call and returns True. Otherwise returns False and the caller runs its loop.
    A None among `state_keys` is a state the kernel takes but this group has none of (RMSprop's grad_avg
    when not centered)."""
    params, grads = _params_with_grad(group, optimizer)
    if not params or group.get("differentiable"):
        return False
    for p, grad in zip(params, grads):
        state = optimizer.state[p]
        if len(state) == 0:
            _init_state(state, p, group["capturable"], *zero_keys)
            if init is not None:
                init(state, p, grad)
    states = [optimizer.state[p] for p in params]
    lists = [[state[k] if k is not None else None for state in states] for k in state_keys]
    if not _fusable(group, params, grads, *lists):
        return False
    values = []
    for p, state in zip(params, states):
        state["step"].add_(1)
        values.append([float(v) for v in scalars(p, state)])
    tl._C._fused_update_(kind, [params, grads, *lists], values)
    return True


def _decay_scalars(lr, weight_decay, decoupled):
    """The fused kernels' two weight-decay scalars (`_weight_decay`'s two forms): the factor a decoupled decay
    multiplies the parameter by (else 1), and an L2 decay's coefficient (else 0)."""
    if weight_decay == 0:
        return 1.0, 0.0
    return (1 - lr * weight_decay, 0.0) if decoupled else (1.0, weight_decay)


def _weight_decay(param, grad, lr, weight_decay, decoupled):
    """Apply weight decay: decoupled (AdamW's), shrink the parameter; else (L2), return grad + wd * param."""
    if weight_decay != 0:
        if decoupled:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    return grad


def _params_with_grad(group, optimizer):
    """The group's parameters that have a gradient, with their gradients. A sparse gradient (nn.Embedding(
    sparse=True)) is refused with PyTorch's message ("Adam does not support sparse gradients"), except by the
    optimizers that take them (SGD, Adagrad): they get it densified, whose update equals PyTorch's sparse one (a
    zero gradient row changes neither the parameter nor the state there)."""
    params, grads = [], []
    for p in group["params"]:
        grad = p.grad
        if grad is not None:
            if grad.is_sparse:
                if not optimizer._takes_sparse_grads:
                    raise RuntimeError(optimizer._sparse_grads_refused)
                grad = grad.to_dense()
            params.append(p)
            grads.append(grad)
    return params, grads


def _step_state_to_tensor(optimizer, key="step"):
    """After loading an old state dict whose 'step' is a number: make it a 0-dim float tensor."""
    for state in optimizer.state.values():
        if isinstance(state, dict) and key in state and not isinstance(state[key], Tensor):
            state[key] = tl.tensor(float(state[key]), dtype=_get_scalar_dtype())


def _fusable(group, params, grads, *states):
    """Whether the fused update kernels (torchlite._C._fused_adam_, _fused_sgd_, _fused_update_) can run this
    group's step:
    not differentiable, every parameter floating and contiguous, each gradient and state tensor of its
    parameter's size, dtype and device, contiguous, and each step a CPU tensor."""
    if group.get("differentiable"):
        return False
    for i, (p, g) in enumerate(zip(params, grads)):
        if not (p.dtype.is_floating_point and p.is_contiguous()):
            return False
        for t in (g,) + tuple(s[i] for s in states):
            if t is None:
                continue
            if not (t.is_contiguous() and t.dtype == p.dtype and t.device == p.device and t.shape == p.shape):
                return False
    return True
