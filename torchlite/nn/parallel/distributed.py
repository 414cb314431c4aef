"""DistributedDataParallel: data-parallel training over torchlite.distributed.

At construction the parameters and buffers of rank 0 are broadcast to every rank. In backward, each
parameter's post-accumulate-grad hook marks it ready; the parameters are grouped in buckets (reverse
registration order, about bucket_cap_mb each, the first one 1 MiB, one dtype per bucket), and a bucket whose
parameters are all ready is copied into one flat buffer, divided by the world size on the way (so that the sum
is the average), and all-reduced asynchronously (MPI_Iallreduce) while
backward goes on computing the earlier layers' gradients. Buckets start in the same order on every rank.
torchlite's autograd engine has no end-of-backward callback: the reducer waits for every bucket in the hook that
makes the last bucket ready (the last gradient of the model: the rest of backward computes no parameter
gradient) and writes the averaged gradients back into .grad.
"""
import contextlib

from ... import distributed as dist
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024
_DEFAULT_BUCKET_MB = 25


def _tensors_in(obj):
    from ..._tensor import Tensor

    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors_in(o)


def _reachable_params(outputs):
    """The ids of the leaf tensors (parameters) reachable from the outputs' autograd graphs."""
    seen = set()
    found = set()
    stack = [t.grad_fn for t in _tensors_in(outputs) if t.grad_fn is not None]
    for t in _tensors_in(outputs):
        if t.grad_fn is None and t.requires_grad:
            found.add(id(t))
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        var = getattr(node, "variable", None)
        if var is not None:
            found.add(id(var))
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    return found


class _Bucket:
    def __init__(self, params, index):
        from ... import zeros

        self.params = params
        self.index = index
        self.sizes = [p.numel() for p in params]
        self.offsets = []
        off = 0
        for n in self.sizes:
            self.offsets.append(off)
            off += n
        self.buffer = zeros(off, dtype=params[0].dtype)
        self.pending = len(params)
        self.work = None

    def view(self, i):
        p = self.params[i]
        return self.buffer[self.offsets[i]:self.offsets[i] + self.sizes[i]].view(p.shape)


class DistributedDataParallel(Module):
    """Wraps `module` for data-parallel training: gradients are averaged across the process group's ranks during
    backward (see the module's docstring). state_dict keys are the module's, prefixed with "module."."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, bucket_cap_mb_list=None, batched_grad_copy=False,
                 forward_sync_buffers=None):
        super().__init__()
        if process_group is not None and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        if device_ids is not None and any(d is not None for d in device_ids):
            raise ValueError("DistributedDataParallel with device_ids: torchlite's MPI backend trains CPU modules; "
                             "leave device_ids=None")
        if mixed_precision is not None:
            raise NotImplementedError("DistributedDataParallel: mixed_precision is not supported")
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that "
                               "requires a gradient.")
        self.module = module
        self.process_group = process_group if process_group is not None else dist.GroupMember.WORLD
        if self.process_group is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        self.dim = dim
        self.device_ids = device_ids
        self.output_device = output_device
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.forward_sync_buffers = self.broadcast_buffers if forward_sync_buffers is None else forward_sync_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((_DEFAULT_BUCKET_MB if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        # gradient traffic on its own communicator: never interleaved with the user's collectives
        self._comm_group = dist.distributed_c10d._clone_group(self.process_group)
        self._world = dist.get_world_size(self._comm_group)
        self._params = [p for p in module.parameters() if p.requires_grad]
        if init_sync:
            self._check_same_model()
            self._sync_module_states()
        self._build_buckets()
        self._expect_sync = False
        self._started = False
        self._unused = set()
        self._handles = [p.register_post_accumulate_grad_hook(self._make_hook(i)) for i, p in
                         enumerate(self._params)]

    # ----------------------------------------------------------------------------------------- setup
    def _check_same_model(self):
        shapes = [(tuple(p.shape), str(p.dtype)) for p in self._params]
        everyone = [None] * self._world
        dist.all_gather_object(everyone, shapes, group=self._comm_group)
        for r, s in enumerate(everyone):
            if s != shapes:
                raise RuntimeError(f"DDP expects same model across all ranks, but rank {dist.get_rank()} has "
                                   f"{len(shapes)} params, while rank {r} has inconsistent {len(s)} params (or "
                                   "shapes/dtypes).")

    def _sync_module_states(self, init_sync_buffers=True):
        with no_grad():
            for p in self.module.parameters():
                dist.broadcast(p.detach(), 0, group=self._comm_group)
            if init_sync_buffers:
                self._sync_buffers()

    def _sync_buffers(self):
        with no_grad():
            for b in self.module.buffers():
                dist.broadcast(b.detach(), 0, group=self._comm_group)

    def _build_buckets(self):
        order = list(range(len(self._params)))[::-1]  # backward produces the last layers' gradients first
        self._buckets = []
        self._where = {}
        current, size, cap = [], 0, min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap)
        dtype = None

        def close():
            nonlocal current, size, cap
            if current:
                b = _Bucket([self._params[i] for i in current], len(self._buckets))
                b.indices = list(current)
                for k, i in enumerate(current):
                    self._where[i] = (b, k)
                self._buckets.append(b)
            current, size = [], 0
            if self._buckets:
                cap = self.bucket_bytes_cap

        for i in order:
            p = self._params[i]
            nbytes = p.numel() * p.element_size()
            if current and (p.dtype != dtype or size + nbytes > cap):
                close()
            current.append(i)
            dtype = p.dtype
            size += nbytes
        close()

    # ----------------------------------------------------------------------------------------- forward
    def forward(self, *inputs, **kwargs):
        if self._started:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`torchlite.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function "
                "outputs participate in calculating loss.")
        if self.forward_sync_buffers and self._world > 1 and self.training and self.require_forward_param_sync:
            self._sync_buffers()
        out = self.module(*inputs, **kwargs)
        self._expect_sync = is_grad_enabled() and self.require_backward_grad_sync and self.training
        if self._expect_sync:
            for b in self._buckets:
                b.pending = len(b.params)
                b.work = None
            self._next_bucket = 0
            self._unused = set()
            if self.find_unused_parameters:
                used = _reachable_params(out)
                self._unused = {i for i, p in enumerate(self._params) if id(p) not in used}
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Within the context, backward accumulates gradients locally without all-reducing them; the first
        forward and backward after it reduces the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # ----------------------------------------------------------------------------------------- backward
    def _make_hook(self, index):
        def hook(param):
            if not self._expect_sync:
                return
            if not self._started:
                self._started = True
                for i in sorted(self._unused):  # never reached by this backward: ready now
                    self._mark_ready(i)
            if index not in self._unused:
                self._mark_ready(index)
            for b in self._buckets[:self._next_bucket]:  # drive MPI's progress on the buckets in flight
                if b.work is not None:
                    b.work.is_completed()
        return hook

    def _mark_ready(self, index):
        bucket, _ = self._where[index]
        bucket.pending -= 1
        if bucket.pending < 0:
            raise RuntimeError(f"DistributedDataParallel: parameter {index} was marked ready twice in one backward "
                               "(a reentrant backward or a parameter used in several graphs)")
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            self._launch(self._buckets[self._next_bucket])
            self._next_bucket += 1
        if self._next_bucket == len(self._buckets):
            self._finish()

    def _launch(self, bucket):
        # Each gradient is divided by the world size on its way into the bucket (as PyTorch's default
        # all-reduce hook divides before reducing): the sum of the buckets is then the average, without a pass
        # of its own over them.
        from ... import mul

        inv = 1.0 / self._world
        with no_grad():
            for k, p in enumerate(bucket.params):
                view = bucket.view(k)
                g = p.grad
                if g is None:
                    view.zero_()
                elif g.data_ptr() != view.data_ptr():
                    mul(g, inv, out=view)
                else:
                    view.mul_(inv)
        bucket.work = dist.all_reduce(bucket.buffer, group=self._comm_group, async_op=True)

    def _finish(self):
        """Waits for every bucket; writes the averaged gradients into .grad."""
        has = None
        if self.find_unused_parameters:
            from ... import _C, tensor

            local = tensor([0 if p.grad is None else 1 for p in self._params], dtype=_C.uint8)
            has = dist.all_reduce(local, op=dist.ReduceOp.MAX, group=self._comm_group, async_op=True)
        with no_grad():
            for b in self._buckets:
                b.work.wait()
            if has is not None:
                has.wait()
                globally_used = local.tolist()
            for b in self._buckets:
                for k, p in enumerate(b.params):
                    view = b.view(k)
                    if p.grad is None:
                        if has is not None and not globally_used[b.indices[k]]:
                            continue  # no rank has a gradient for it: stays None, as in PyTorch
                        p.grad = view if self.gradient_as_bucket_view else view.clone()
                    elif self.gradient_as_bucket_view and p.grad.data_ptr() != view.data_ptr():
                        p.grad = view
                    elif p.grad.data_ptr() != view.data_ptr():
                        p.grad.copy_(view)
        self._started = False
        self._expect_sync = False

    def extra_repr(self):
        return ""
