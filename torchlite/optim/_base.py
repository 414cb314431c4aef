"""Helpers shared by the optimizers: torchlite's namespace, lazily bound (torchlite imports optim last)."""
import importlib

from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad


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


def _params_with_grad(group):
    """The group's parameters that have a gradient, with their gradients."""
    params, grads = [], []
    for p in group["params"]:
        if p.grad is not None:
            params.append(p)
            grads.append(p.grad)
    return params, grads


def _step_state_to_tensor(optimizer, key="step"):
    """After loading an old state dict whose 'step' is a number: make it a 0-dim float tensor."""
    from .optimizer import _get_scalar_dtype

    for state in optimizer.state.values():
        if isinstance(state, dict) and key in state and not isinstance(state[key], Tensor):
            state[key] = tl.tensor(float(state[key]), dtype=_get_scalar_dtype())


def _fusable(group, params, grads, *states):
    """Whether the fused update kernels (torchlite._C._fused_adam_, _fused_sgd_) can run this group's step:
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
