"""NAdam (PyTorch's torch.optim.NAdam)."""
from ._base import (_call_closure, _check_hparams, _decay_scalars, _fused_steps, _param_steps, _set_defaults,
                    _weight_decay, tl)
from .optimizer import Optimizer, _get_scalar_dtype, _to_scalar, _use_grad_for_differentiable

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum (Dozat's momentum schedule with `momentum_decay`)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_hparams(lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_defaults(self, ("step", "mu_product"), maximize=False, foreach=None, capturable=False,
                      differentiable=False, decoupled_weight_decay=False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay, momentum_decay = group["eps"], group["weight_decay"], group["momentum_decay"]

            def init(state, p, grad):
                if group["capturable"]:
                    state["mu_product"] = tl.ones((), dtype=_get_scalar_dtype(), device=p.device)
                else:
                    state["mu_product"] = tl.tensor(1.0, dtype=_get_scalar_dtype())
                state["exp_avg"] = tl.zeros_like(p)
                state["exp_avg_sq"] = tl.zeros_like(p)

            decay = _decay_scalars(lr, weight_decay, group["decoupled_weight_decay"])

            def scalars(p, state):
                step = state["step"].item()
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product = state["mu_product"].mul_(mu).item()
                return (*decay, beta1, beta2, 1 - beta2 ** step, eps, -lr * (1.0 - mu) / (1.0 - mu_product),
                        (-lr * mu_next) / (1.0 - mu_product * mu_next), group["maximize"])

            if _fused_steps(self, group, "nadam", ("exp_avg", "exp_avg_sq"), scalars, init=init):
                continue
            for p, grad, state in _param_steps(self, group, init=init):
                step_t, mu_product = state["step"], state["mu_product"]
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                step = step_t.item()
                bias_correction2 = 1 - beta2 ** step
                grad = _weight_decay(p, grad, lr, weight_decay, group["decoupled_weight_decay"])
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

