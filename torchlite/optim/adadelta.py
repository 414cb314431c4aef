"""Adadelta (PyTorch's torch.optim.Adadelta)."""
from ._base import _call_closure, _params_with_grad, _step_state_to_tensor, tl
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _use_grad_for_differentiable

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: steps scaled by the ratio of running RMS of past updates to running RMS of gradients."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        _step_state_to_tensor(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
            params, grads = _params_with_grad(group)
            for p, grad in zip(params, grads):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor(p, group["capturable"])
                    state["square_avg"] = tl.zeros_like(p)
                    state["acc_delta"] = tl.zeros_like(p)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"].add_(1)
                if group["maximize"]:
                    grad = grad.neg()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_()
                delta.div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                p.add_(delta, alpha=-lr)
        return loss
