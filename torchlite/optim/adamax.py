"""Adamax (PyTorch's torch.optim.Adamax)."""
from ._base import _call_closure, _check_hparams, _fused_steps, _param_steps, _set_defaults, tl
from .optimizer import Optimizer, _to_scalar, _use_grad_for_differentiable

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax: Adam with the second moment replaced by an exponentially weighted infinity norm."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_hparams(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
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
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            if _fused_steps(self, group, "adamax", ("exp_avg", "exp_inf"),
                            lambda p, state: (lr / (1 - beta1 ** state["step"].item()), beta1, beta2, eps,
                                              weight_decay, group["maximize"]), "exp_avg", "exp_inf"):
                continue
            for p, grad, state in _param_steps(self, group, "exp_avg", "exp_inf"):
                exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                tl.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
                clr = lr / (1 - beta1 ** step_t.item())
                p.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
