"""Adam and AdamW (PyTorch's torch.optim.Adam / torch.optim.AdamW)."""
import math

from .. import _C
from ._base import (_call_closure, _check_hparams, _fusable, _init_state, _params_with_grad, _set_defaults,
                    _weight_decay, tl)
from .optimizer import Optimizer, _check_fused, _to_scalar, _use_grad_for_differentiable

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam: moment estimates of the gradient and its square with bias correction; optional AMSGrad,
    L2 (or, with decoupled_weight_decay=True, AdamW's decoupled) weight decay."""

    _sparse_grads_refused = "Adam does not support sparse gradients, please consider SparseAdam instead"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check_hparams(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_defaults(self, amsgrad=False, maximize=False, foreach=None, capturable=False, differentiable=False,
                      decoupled_weight_decay=False, fused=None)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = (_to_scalar(b) for b in group["betas"])
            lr = _to_scalar(group["lr"])
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            amsgrad = group["amsgrad"]
            on_device = group["capturable"] or bool(group["fused"])
            params, grads = _params_with_grad(group, self)
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    _init_state(state, p, on_device, "exp_avg", "exp_avg_sq")
                    if amsgrad:
                        state["max_exp_avg_sq"] = tl.zeros_like(p)
            states = [self.state[p] for p in params]
            exp_avgs = [s["exp_avg"] for s in states]
            exp_avg_sqs = [s["exp_avg_sq"] for s in states]
            max_sqs = [s["max_exp_avg_sq"] for s in states] if amsgrad else []
            steps = [s["step"] for s in states]
            if _fusable(group, params, grads, exp_avgs, exp_avg_sqs, *([max_sqs] if amsgrad else [])) and all(
                    t.device.type == "cpu" and t.numel() == 1 for t in steps):
                # One fused pass per parameter, the same math as the loop below.
                _C._fused_adam_(params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps, lr, beta1, beta2,
                                weight_decay, eps, amsgrad, group["maximize"], group["decoupled_weight_decay"])
                continue
            for p, grad in zip(params, grads):
                state = self.state[p]
                step_t = state["step"]
                exp_avg = state["exp_avg"]
                exp_avg_sq = state["exp_avg_sq"]
                if group["maximize"]:
                    grad = grad.neg()
                step_t.add_(1)
                grad = _weight_decay(p, grad, lr, weight_decay, group["decoupled_weight_decay"])
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                step = step_t.item()
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = math.sqrt(bias_correction2)
                if amsgrad:
                    max_sq = state["max_exp_avg_sq"]
                    tl.maximum(max_sq, exp_avg_sq, out=max_sq)
                    denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                else:
                    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                p.addcdiv_(exp_avg, denom, value=-step_size)
        return loss


class AdamW(Adam):
    """AdamW: Adam with weight decay applied to the parameters directly (decoupled from the gradient)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         foreach=foreach, maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
