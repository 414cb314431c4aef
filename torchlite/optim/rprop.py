"""Resilient backpropagation (PyTorch's torch.optim.Rprop)."""
from ._base import _call_closure, _check_hparams, _fused_steps, _param_steps, _set_defaults, tl
from .optimizer import Optimizer, _to_scalar, _use_grad_for_differentiable

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop: per-coordinate step sizes grown by etaplus while the gradient keeps its sign and shrunk by
    etaminus when it flips; only the gradient's sign is used."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_hparams(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
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
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            lr = _to_scalar(group["lr"])

            def init(state, p, grad):
                state["step_size"] = tl.full_like(grad, lr)

            scalars = (etaminus, etaplus, step_size_min, step_size_max, group["maximize"])
            if _fused_steps(self, group, "rprop", ("prev", "step_size"), lambda p, state: scalars, "prev", init=init):
                continue
            for p, grad, state in _param_steps(self, group, "prev", init=init):
                prev, step_size = state["prev"], state["step_size"]
                sign = grad.mul(prev).sign()
                positive, negative, zero = sign.gt(0), sign.lt(0), sign.eq(0)
                sign.masked_fill_(positive, etaplus).masked_fill_(negative, etaminus).masked_fill_(zero, 1)
                step_size.mul_(sign).clamp_(step_size_min, step_size_max)
                grad = grad.clone()
                grad.masked_fill_(sign.eq(etaminus), 0)
                p.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
