"""SparseAdam (PyTorch's torch.optim.SparseAdam): Adam for sparse gradients (nn.Embedding(sparse=True))."""
import math

from .. import _C
from .._sparse import _linear
from ..autograd.grad_mode import no_grad
from ._base import _call_closure, _check_hparams, _set_defaults, tl
from .optimizer import Optimizer, _to_scalar

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam over the rows a sparse gradient names: the moments and the parameter change only where the gradient
    (coalesced: duplicates summed) has values, with Adam's bias correction from the parameter's step count. The
    parameters must be dense and their gradients sparse (nn.Embedding(..., sparse=True)); the moments are dense
    tensors like the parameter."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_hparams(lr, betas=betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        sparse_params = []
        complex_params = []
        for index, group in enumerate(self.param_groups):
            for d_index, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse_params.append([index, d_index])
                if p.is_complex():
                    complex_params.append([index, d_index])
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors")
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             "parameters")

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_defaults(self, (), maximize=False)

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = _call_closure(closure)
        with no_grad():
            for group in self.param_groups:
                beta1, beta2 = (_to_scalar(b) for b in group["betas"])
                lr, eps, maximize = _to_scalar(group["lr"]), group["eps"], group.get("maximize", False)
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    if not grad.is_sparse:
                        raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam "
                                           "instead")
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = tl.zeros_like(p)
                        state["exp_avg_sq"] = tl.zeros_like(p)
                    state["step"] += 1
                    _update(p, grad, state["exp_avg"], state["exp_avg_sq"], state["step"], lr, beta1, beta2, eps,
                            maximize)
        return loss


def _update(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, maximize):
    """One parameter's step: over the rows of the coalesced gradient (its sparse dims flattened into one),
    old <- old + (1 - beta)(new - old) for both moments, then param -= step_size * m / (sqrt(v) + eps)."""
    grad = grad.coalesce()  # the update is not linear in the gradient: duplicates must be summed first
    indices, values, _ = _C._sparse_parts(grad)
    if values.numel() == 0:
        return
    if maximize:
        values = values.neg()
    sparse_dim = indices.shape[0]
    shape = tuple(param.shape)
    flat_shape = (math.prod(shape[:sparse_dim]),) + shape[sparse_dim:]
    rows = _linear(indices, shape)
    flat_param = _flat(param, flat_shape)
    flat_avg, flat_sq = _flat(exp_avg, flat_shape), _flat(exp_avg_sq, flat_shape)
    old_avg = flat_avg.index_select(0, rows)
    avg_update = (values - old_avg).mul_(1 - beta1)
    flat_avg.index_add_(0, rows, avg_update)
    old_sq = flat_sq.index_select(0, rows)
    sq_update = (values * values).sub_(old_sq).mul_(1 - beta2)
    flat_sq.index_add_(0, rows, sq_update)
    numer = avg_update.add_(old_avg)
    denom = sq_update.add_(old_sq).sqrt_().add_(eps)
    step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
    flat_param.index_add_(0, rows, numer.div_(denom).mul_(-step_size))


def _flat(t, flat_shape):
    """t viewed with its sparse dims as one (a view: the updates write t)."""
    if not t.is_contiguous():
        raise RuntimeError("SparseAdam: expected contiguous parameters and states (their rows are updated in place "
                           "through a view)")
    return t.view(flat_shape)
