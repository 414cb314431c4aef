"""NAdam (PyTorch's torch.optim.NAdam)."""
from ._base import _call_closure, _params_with_grad, _step_state_to_tensor, tl
from .optimizer import (Optimizer, _check_betas, _check_lr, _get_scalar_dtype, _step_tensor, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum (Dozat's momentum schedule with `momentum_decay`)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
        _step_state_to_tensor(self)
        _step_state_to_tensor(self, "mu_product")

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay, momentum_decay = group["eps"], group["weight_decay"], group["momentum_decay"]
            params, grads = _params_with_grad(group)
            for p, grad in zip(params, grads):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor(p, group["capturable"])
                    if group["capturable"]:
                        state["mu_product"] = tl.ones((), dtype=_get_scalar_dtype(), device=p.device)
                    else:
                        state["mu_product"] = tl.tensor(1.0, dtype=_get_scalar_dtype())
                    state["exp_avg"] = tl.zeros_like(p)
                    state["exp_avg_sq"] = tl.zeros_like(p)
                step_t, mu_product = state["step"], state["mu_product"]
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                if group["maximize"]:
                    grad = grad.neg()
                step_t.add_(1)
                step = step_t.item()
                bias_correction2 = 1 - beta2 ** step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product.mul_(mu)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt_()
                mu_product_value = mu_product.item()
                mu_product_next = mu_product_value * mu_next
                denom.add_(eps)
                p.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product_value)))
                p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
        return loss

