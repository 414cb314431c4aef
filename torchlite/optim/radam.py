"""RAdam (PyTorch's torch.optim.RAdam)."""
from ._base import (_call_closure, _check_hparams, _decay_scalars, _fused_steps, _param_steps, _set_defaults,
                    _weight_decay)
from .optimizer import Optimizer, _to_scalar, _use_grad_for_differentiable

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam: Adam whose adaptive step is rectified by the variance of the adaptive learning rate (plain
    momentum SGD while that variance is intractable)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_hparams(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_defaults(self, foreach=None, maximize=False, differentiable=False, decoupled_weight_decay=False,
                      capturable=False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            decay = _decay_scalars(lr, weight_decay, group["decoupled_weight_decay"])

            def scalars(p, state):
                step = state["step"].item()
                bias_correction2 = 1 - beta2 ** step
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                rect = -1.0  # no rectification
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                return (*decay, beta1, beta2, lr, 1 - beta1 ** step, bias_correction2 ** 0.5, eps, rect,
                        group["maximize"])

            if _fused_steps(self, group, "radam", ("exp_avg", "exp_avg_sq"), scalars, "exp_avg", "exp_avg_sq"):
                continue
            for p, grad, state in _param_steps(self, group, "exp_avg", "exp_avg_sq"):
                step_t, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
                step = step_t.item()
                grad = _weight_decay(p, grad, lr, weight_decay, group["decoupled_weight_decay"])
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                corrected = exp_avg / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
                    p.add_(corrected * lr * adaptive_lr * rect, alpha=-1.0)
                else:
                    p.add_(corrected * lr, alpha=-1.0)
        return loss
