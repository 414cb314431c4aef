"""Stochastic gradient descent, optionally with momentum (PyTorch's torch.optim.SGD)."""
from .. import _C
from ._base import _call_closure, _fusable, _params_with_grad, _set_defaults
from .optimizer import Optimizer, _check_fused, _check_lr, _to_scalar, _use_grad_for_differentiable

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov momentum, weight decay."""

    _takes_sparse_grads = True  # nn.Embedding(sparse=True)'s gradients, densified

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_defaults(self, (), nesterov=False, maximize=False, foreach=None, differentiable=False, fused=False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            momentum = group["momentum"]
            dampening = group["dampening"]
            weight_decay = _to_scalar(group["weight_decay"])
            nesterov = group["nesterov"]
            maximize = group["maximize"]
            if group["fused"] and any(p.grad is not None and p.grad.is_sparse for p in group["params"]):
                raise RuntimeError("`_fused_sgd` does not support sparse gradients")
            params, grads = _params_with_grad(group, self)
            bufs = [self.state[p].get("momentum_buffer") for p in params] if momentum != 0 else []
            if _fusable(group, params, grads, *([bufs] if bufs else [])):
                # One fused pass per parameter, the same math as the loop below.
                new = _C._fused_sgd_(params, grads, bufs, lr, momentum, dampening, weight_decay, nesterov,
                                     maximize)
                if momentum != 0:
                    for p, buf in zip(params, new):
                        self.state[p]["momentum_buffer"] = buf
                continue
            for p, grad in zip(params, grads):
                if maximize:
                    grad = grad.neg()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = grad.detach().clone()
                        state["momentum_buffer"] = buf
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    if nesterov:
                        grad = grad.add(buf, alpha=momentum)
                    else:
                        grad = buf
                p.add_(grad, alpha=-lr)
        return loss
