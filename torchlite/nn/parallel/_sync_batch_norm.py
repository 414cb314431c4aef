"""SyncBatchNorm's statistics across processes.

In training, with a process group of more than one rank, the per-channel mean and (biased) variance are those
of the whole global batch: each rank's channel sums and element count are all-reduced, then the sums of squared
deviations from the global mean (two passes: as stable as one process's BatchNorm). The all-reduce is an autograd
function whose backward all-reduces the gradient, so the gradients are those of BatchNorm on the concatenated
batch (once DDP averages them). The running statistics move with the global mean and the unbiased global
variance, identically on every rank.

nn.SyncBatchNorm.forward calls `sync_batch_norm_forward(self, input)` and falls back to single-process batch
norm when it returns None (eval, no process group, or a group of one rank).
"""
from ... import distributed as dist
from ...autograd import Function
from ...autograd.grad_mode import no_grad

__all__ = ["sync_batch_norm_forward", "all_reduce_sum"]


class _AllReduceSum(Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        out = x.clone()
        dist.all_reduce(out, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous().clone()
        dist.all_reduce(grad, group=ctx.group)
        return grad, None


def all_reduce_sum(x, group=None):
    """The sum of `x` over the group's ranks, differentiable (the gradient is all-reduced in backward)."""
    return _AllReduceSum.apply(x, group)


def _group_of(module):
    pg = getattr(module, "process_group", None)
    return pg if pg is not None else dist.GroupMember.WORLD


def needs_sync(module):
    """Whether module's forward must synchronize statistics: training, and a process group of several ranks."""
    if not module.training or not dist.is_initialized():
        return False
    pg = _group_of(module)
    if pg is dist.GroupMember.NON_GROUP_MEMBER:
        return False
    return dist.get_world_size(pg) > 1


def sync_batch_norm_forward(module, input):  # noqa: A002  (PyTorch's name)
    """SyncBatchNorm's forward with statistics over every rank of module.process_group (the default group when
    None); None when no synchronization is needed (the caller then runs single-process batch norm)."""
    if not needs_sync(module):
        return None
    from ... import cat, tensor

    group = _group_of(module)
    factor, _ = module._factor_and_mode()
    c = input.shape[1]
    dims = [0] + list(range(2, input.dim()))
    shape = [1, c] + [1] * (input.dim() - 2)
    count = input.numel() // c
    sums = all_reduce_sum(cat([input.sum(dims), tensor([float(count)], dtype=input.dtype)]), group)
    n = float(sums[c].item())
    if n <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(input.shape)}")
    mean = sums[:c] / n
    centered = input - mean.reshape(shape)
    var = all_reduce_sum((centered * centered).sum(dims), group) / n
    out = centered * (var + module.eps).rsqrt().reshape(shape)
    if module.weight is not None:
        out = out * module.weight.reshape(shape)
    if module.bias is not None:
        out = out + module.bias.reshape(shape)
    if module.track_running_stats and module.running_mean is not None:
        with no_grad():
            module.running_mean.mul_(1 - factor).add_(mean.detach().to(module.running_mean.dtype), alpha=factor)
            unbiased = var.detach() * (n / (n - 1))
            module.running_var.mul_(1 - factor).add_(unbiased.to(module.running_var.dtype), alpha=factor)
    return out
