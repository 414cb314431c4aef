"""RMSprop (PyTorch's torch.optim.RMSprop)."""
from ._base import _call_closure, _params_with_grad, _step_state_to_tensor, tl
from .optimizer import Optimizer, _check_lr, _step_tensor, _to_scalar, _use_grad_for_differentiable

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop: divides the gradient by a running root mean square; optionally centered, with momentum."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
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
            alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
            weight_decay, centered = group["weight_decay"], group["centered"]
            params, grads = _params_with_grad(group)
            for p, grad in zip(params, grads):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor(p, group["capturable"])
                    state["square_avg"] = tl.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = tl.zeros_like(p)
                    if centered:
                        state["grad_avg"] = tl.zeros_like(p)
                if group["maximize"]:
                    grad = grad.neg()
                state["step"].add_(1)
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
