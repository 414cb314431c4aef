"""Adadelta (PyTorch's torch.optim.Adadelta)."""
from ._base import _call_closure, _check_hparams, _fused_steps, _param_steps, _set_defaults
from .optimizer import Optimizer, _to_scalar, _use_grad_for_differentiable

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: steps scaled by the ratio of running RMS of past updates to running RMS of gradients."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_hparams(lr, rho=rho, eps=eps, weight_decay=weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_defaults(self, foreach=None, maximize=False, differentiable=False, capturable=False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
            scalars = (lr, rho, eps, weight_decay, group["maximize"])
            if _fused_steps(self, group, "adadelta", ("square_avg", "acc_delta"), lambda p, state: scalars,
                            "square_avg", "acc_delta"):
                continue
            for p, grad, state in _param_steps(self, group, "square_avg", "acc_delta"):
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_()
                delta.div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                p.add_(delta, alpha=-lr)
        return loss
