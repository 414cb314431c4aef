"""Adagrad (PyTorch's torch.optim.Adagrad)."""
from ._base import _call_closure, _check_hparams, _fused_steps, _params_with_grad, _set_defaults, tl
from .optimizer import Optimizer, _check_fused, _get_scalar_dtype, _to_scalar, _use_grad_for_differentiable

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: per-coordinate steps scaled by the root of the sum of squared past gradients."""

    _takes_sparse_grads = True  # nn.Embedding(sparse=True)'s gradients, densified

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_hparams(lr, lr_decay=lr_decay, weight_decay=weight_decay,
                       initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)
        # Adagrad's state is made eagerly, as PyTorch's.
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                if group["fused"]:
                    state["step"] = tl.zeros((), dtype=_get_scalar_dtype(), device=p.device)
                else:
                    state["step"] = tl.tensor(0.0, dtype=_get_scalar_dtype())
                state["sum"] = tl.full_like(p, group["initial_accumulator_value"])

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_defaults(self, foreach=None, maximize=False, differentiable=False, fused=None)

    def share_memory(self):
        """Moves the accumulators to shared memory (Tensor.share_memory_), for processes that train together."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            lr_decay, weight_decay, eps = group["lr_decay"], group["weight_decay"], group["eps"]
            if weight_decay != 0 and any(p.grad is not None and p.grad.is_sparse for p in group["params"]):
                raise RuntimeError("weight_decay option is not compatible with sparse gradients")
            if _fused_steps(self, group, "adagrad", ("sum",), lambda p, state: (
                    lr / (1 + (state["step"].item() - 1) * lr_decay), weight_decay, eps, group["maximize"])):
                continue
            for p, grad in zip(*_params_with_grad(group, self)):
                state = self.state[p]
                step_t = state["step"]
                state_sum = state["sum"]
                if group["maximize"]:
                    grad = grad.neg()
                step_t.add_(1)
                step = step_t.item()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                clr = lr / (1 + (step - 1) * lr_decay)
                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                p.addcdiv_(grad, std, value=-clr)
        return loss
