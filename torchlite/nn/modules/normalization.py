"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm and CrossMapLRN2d (PyTorch's
torch.nn.modules.normalization)."""
import numbers

from ... import empty, tensor as _tensor
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["LocalResponseNorm", "CrossMapLRN2d", "LayerNorm", "GroupNorm", "RMSNorm"]


class LocalResponseNorm(Module):
    """Local response normalization across channels: x / (k + alpha/size * sum of x^2 over `size`
    neighbouring channels)^beta."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _cross_map_windows(channels, size):
    """The 0/1 channel-mixing matrices of PyTorch's legacy CrossMapLRN2d, forward and backward.

    Forward: the running channel sum PyTorch keeps gives channel c the squares of [0, min(c + pre - 1, C - 1)]
    for c <= pre, and of channel 0 plus [c - pre + 1, min(c + pre - 1, C - 1)] after (channel 0 is never
    taken out of the running sum). Backward: PyTorch's hand-written gradient sums the ratios of channels
    [c - post, c - post + size - 1], which is not the exact gradient of that forward; it is reproduced as is."""
    pre = int((size - 1) / 2 + 1)
    post = int(size - (size - 1) / 2)
    fwd, bwd = [], []
    for c in range(channels):
        hi = min(c + pre - 1, channels - 1) if c > 0 else min(pre, channels) - 1
        lo = 0 if c <= pre else c - pre + 1
        row = [1.0 if lo <= j <= hi else 0.0 for j in range(channels)]
        if c > pre:
            row[0] = 1.0
        fwd.append(row)
        bwd.append([1.0 if c - post <= j <= c - post + size - 1 else 0.0 for j in range(channels)])
    return fwd, bwd


def _make_cross_map_lrn():
    from ...autograd.function import Function

    class CrossMapLRN2dFunction(Function):
        @staticmethod
        def forward(ctx, input, size, alpha, beta, k):
            n, c, h, w = input.shape
            fwd, bwd = _cross_map_windows(c, size)
            fwd = _tensor(fwd, dtype=input.dtype, device=input.device)
            sums = fwd.matmul((input * input).reshape(n, c, h * w)).reshape(n, c, h, w)
            scale = sums * (alpha / size) + k
            output = input * scale.pow(-beta)
            ctx.save_for_backward(input, output, scale)
            ctx.bwd = _tensor(bwd, dtype=input.dtype, device=input.device)
            ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, output, scale = ctx.saved_tensors
            n, c, h, w = input.shape
            ratio = (grad_output * output / scale).reshape(n, c, h * w)
            accum = ctx.bwd.matmul(ratio).reshape(n, c, h, w)
            grad = scale.pow(-ctx.beta) * grad_output - (2 * ctx.alpha * ctx.beta / ctx.size) * input * accum
            return grad, None, None, None, None

    return CrossMapLRN2dFunction


_cross_map_lrn = []


class CrossMapLRN2d(Module):
    """PyTorch's legacy cross-channel local response normalization of a 4-D (N, C, H, W) input (its exact
    channel windows and hand-written gradient)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        if not _cross_map_lrn:
            _cross_map_lrn.append(_make_cross_map_lrn())
        return _cross_map_lrn[0].apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _shape_tuple(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


def _init_affine(module, affine, shape, bias, device, dtype):
    """Register the affine `weight` and `bias` (bias=False: None) of `shape`, left for reset_parameters to
    fill, when `affine`; both None otherwise."""
    if affine:
        module.weight = Parameter(empty(shape, device=device, dtype=dtype))
        if bias:
            module.bias = Parameter(empty(shape, device=device, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module, affine):
    """When `affine`: weight to 1, and bias (when there is one) to 0."""
    if affine:
        init.ones_(module.weight)
        if module.bias is not None:
            init.zeros_(module.bias)


class LayerNorm(Module):
    """Layer normalization over the trailing `normalized_shape` dims: (x - mean) / sqrt(var + eps), times
    weight plus bias when elementwise_affine (weight starts at 1, bias at 0)."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _init_affine(self, self.elementwise_affine, self.normalized_shape, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Sets weight to 1 and bias to 0."""
        _reset_affine(self, self.elementwise_affine)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Group normalization: the channels of an (N, C, *) input are split into num_groups groups, each
    normalized over its channels and the spatial dims; per-channel weight (1) and bias (0) when affine."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _init_affine(self, self.affine, num_channels, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Sets weight to 1 and bias to 0."""
        _reset_affine(self, self.affine)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing `normalized_shape` dims: x / sqrt(mean(x^2) + eps),
    times weight (starts at 1) when elementwise_affine; eps=None uses the dtype's machine epsilon."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Sets weight to 1."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
