"""Averaged stochastic gradient descent (PyTorch's torch.optim.ASGD)."""
from ._base import _call_closure, _check_hparams, _fused_steps, _param_steps, _set_defaults, tl
from .optimizer import Optimizer, _get_scalar_dtype, _to_scalar, _use_grad_for_differentiable

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD: SGD with a decaying step size eta, keeping a running average `ax` of the iterates
    (averaging starts at step t0)."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_hparams(lr, weight_decay=weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_defaults(self, ("step", "eta", "mu"), foreach=None, maximize=False, differentiable=False,
                      capturable=False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            lambd, alpha, t0, weight_decay = group["lambd"], group["alpha"], group["t0"], group["weight_decay"]

            def init(state, p, grad):
                state["eta"] = tl.tensor(lr, dtype=_get_scalar_dtype(), device=p.device)
                state["mu"] = tl.ones((), dtype=_get_scalar_dtype(), device=p.device)
                state["ax"] = tl.zeros_like(p)

            def scalars(p, state):
                step, eta, mu = state["step"].item(), state["eta"], state["mu"]
                values = (eta.item(), mu.item(), lambd, weight_decay, group["maximize"])
                eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))  # for the next step, as the loop below
                mu.fill_(1 / max(1, step - t0))
                return values

            if _fused_steps(self, group, "asgd", ("ax",), scalars, init=init):
                continue
            for p, grad, state in _param_steps(self, group, init=init):
                step_t, eta, mu, ax = state["step"], state["eta"], state["mu"], state["ax"]
                step = step_t.item()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                eta_value = eta.item()
                p.mul_(1 - lambd * eta_value)
                p.add_(grad, alpha=-eta_value)
                mu_value = mu.item()
                if mu_value != 1:
                    ax.add_(p.sub(ax).mul_(mu_value))
                else:
                    ax.copy_(p)
                eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
                mu.fill_(1 / max(1, step - t0))
        return loss
