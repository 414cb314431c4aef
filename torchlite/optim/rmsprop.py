"""RMSprop (PyTorch's torch.optim.RMSprop)."""
from .. import _C
from ._base import _call_closure, _check_hparams, _fusable, _init_state, _param_steps, _params_with_grad, _set_defaults
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
            params, grads = _params_with_grad(group)
            for p in params:  # _param_steps' state preamble, run first: the fusable check reads the states
                if len(self.state[p]) == 0:
                    _init_state(self.state[p], p, group["capturable"], *zero_keys)
            states = [self.state[p] for p in params]
            square_avgs = [s["square_avg"] for s in states]
            grad_avgs = [s["grad_avg"] for s in states] if centered else []
            bufs = [s["momentum_buffer"] for s in states] if momentum > 0 else []
            if params and _fusable(group, params, grads, square_avgs, *[b for b in (grad_avgs, bufs) if b]):
                # One fused pass per parameter, the same math as the loop below.
                for s in states:
                    s["step"].add_(1)
                _C._fused_rmsprop_(params, grads, square_avgs, grad_avgs, bufs, lr, alpha, eps, weight_decay,
                                   momentum, centered, group["maximize"])
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
