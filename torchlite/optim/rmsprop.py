"""RMSprop (PyTorch's torch.optim.RMSprop)."""
from ._base import _call_closure, _check_hparams, _fused_steps, _param_steps, _set_defaults
from .optimizer import Optimizer, _to_scalar, _use_grad_for_differentiable

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop: divides the gradient by a running root mean square; optionally centered, with momentum."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_hparams(lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_defaults(self, momentum=0, centered=False, foreach=None, maximize=False, differentiable=False,
                      capturable=False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
            weight_decay, centered = group["weight_decay"], group["centered"]
            zero_keys = ["square_avg"]
            if momentum > 0:
                zero_keys.append("momentum_buffer")
            if centered:
                zero_keys.append("grad_avg")
            keys = ("square_avg", "grad_avg" if centered else None, "momentum_buffer" if momentum > 0 else None)
            scalars = (lr, alpha, eps, weight_decay, momentum, group["maximize"])
            if _fused_steps(self, group, "rmsprop", keys, lambda p, state: scalars, *zero_keys):
                continue
            for p, grad, state in _param_steps(self, group, *zero_keys):
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg = state["square_avg"]
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if centered:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    p.addcdiv_(grad, avg, value=-lr)
        return loss
