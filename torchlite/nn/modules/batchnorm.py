"""Batch normalization (PyTorch's torch.nn.modules.batchnorm): BatchNorm1d/2d/3d, their Lazy forms and
SyncBatchNorm (which, with one process, normalizes exactly as BatchNorm)."""
from ... import _C, ones, tensor as _tensor, zeros
from ..._tensor import Tensor
from .. import functional as F
from ..parameter import UninitializedBuffer, UninitializedParameter
from .linear import LazyModuleMixin
from .module import Module
from .normalization import _init_affine, _reset_affine

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "SyncBatchNorm"]


class _NormBase(Module):
    """Common state of BatchNorm and InstanceNorm: the affine weight/bias and the running statistics."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _init_affine(self, self.affine, num_features, bias, device, dtype)
        if self.track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **kw))
            self.register_buffer("running_var", ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", _tensor(0, dtype=_C.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Sets running_mean to 0, running_var to 1 and num_batches_tracked to 0."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Resets the running statistics, weight to 1 and bias to 0."""
        self.reset_running_stats()
        _reset_affine(self, self.affine)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # State dicts from before num_batches_tracked existed: keep the module's own count (0).
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if isinstance(self.num_batches_tracked, Tensor)
                                   else _tensor(0, dtype=_C.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _BatchNorm(_NormBase):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)

    def _factor_and_mode(self):
        # The running-average factor (momentum, or 1/n for momentum=None) after counting this batch, and
        # whether batch statistics are used.
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        bn_training = True if self.training else (self.running_mean is None and self.running_var is None)
        return factor, bn_training

    def _batch_norm(self, input):
        # forward after the input checks.
        factor, bn_training = self._factor_and_mode()
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_buffers else None,
                            self.running_var if use_buffers else None, self.weight, self.bias, bn_training, factor,
                            self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        return self._batch_norm(input)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _tensor(0, dtype=_C.int64, device=device)

    def reset_parameters(self):
        """Initializes as the norm does, once the parameters are materialized."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def _infer_num_features(self, input):
        return input.shape[1]

    def initialize_parameters(self, input):
        """Infers num_features from the input's channel dim; materializes the parameters and running stats."""
        if self.has_uninitialized_params():
            self.num_features = self._infer_num_features(input)
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _check_dims(allowed, text):
    def check(self, input):
        if input.dim() not in allowed:
            raise ValueError(f"expected {text} input (got {input.dim()}D input)")

    return check


class BatchNorm1d(_BatchNorm):
    """Batch normalization over a (N, C) or (N, C, L) input: per channel, (x - mean) / sqrt(var + eps) *
    weight + bias with batch statistics in training (updating running_mean/running_var) and the running
    statistics in eval."""

    _check_input_dim = _check_dims((2, 3), "2D or 3D")


class BatchNorm2d(_BatchNorm):
    """Batch normalization over a (N, C, H, W) input (per channel; batch statistics in training, running
    statistics in eval)."""

    _check_input_dim = _check_dims((4,), "4D")


class BatchNorm3d(_BatchNorm):
    """Batch normalization over a (N, C, D, H, W) input (per channel; batch statistics in training, running
    statistics in eval)."""

    _check_input_dim = _check_dims((5,), "5D")


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose num_features is inferred from input.size(1) at the first forward."""

    cls_to_become = BatchNorm1d
    _check_input_dim = _check_dims((2, 3), "2D or 3D")


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose num_features is inferred from input.size(1) at the first forward."""

    cls_to_become = BatchNorm2d
    _check_input_dim = _check_dims((4,), "4D")


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose num_features is inferred from input.size(1) at the first forward."""

    cls_to_become = BatchNorm3d
    _check_input_dim = _check_dims((5,), "5D")


class SyncBatchNorm(_BatchNorm):
    """Batch normalization over (N, C, +) inputs; in training, the statistics are synchronized across the
    process group's ranks (torchlite.distributed), and on one process it normalizes as BatchNorm."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        from ..parallel._sync_batch_norm import sync_batch_norm_forward

        out = sync_batch_norm_forward(self, input)
        return self._batch_norm(input) if out is None else out

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Returns `module` with every BatchNorm*d layer in it replaced by a SyncBatchNorm sharing its
        parameters and running statistics (the module itself if it is none)."""
        from ...autograd.grad_mode import no_grad

        out = module
        if isinstance(module, _BatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group)
            if module.affine:
                with no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return out
