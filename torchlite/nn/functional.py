"""Neural-network functions (PyTorch's torch.nn.functional).

The schema's ops with `python_module: nn.functional` come from the generated bindings (`_C._nn`). The
functions below add what PyTorch's torch.nn.functional adds in Python, with its signatures and argument
names: the `inplace=False` argument of the activations and of dropout (which then write the input), the
`*_` functions, softmax's deprecated implicit dim, dropout's ValueError for a bad p, and the losses'
reduction strings (with the deprecated size_average and reduce arguments).
"""
from .. import _C
from .._namespace import export

export(globals(), _C._nn)
del export

_nn = _C._nn  # the generated nn.functional ops
_fn = _C._functions  # the generated top-level ops


def _check_inplace(name, inplace):
    if not isinstance(inplace, bool):
        raise TypeError(f"{name}(): argument 'inplace' must be bool, not {type(inplace).__name__}")
    return inplace


# ------------------------------------------------------------------ activations
def threshold(input, threshold, value, inplace=False):
    """Each element of `input` greater than `threshold` (or NaN), else `value`."""
    if _check_inplace("threshold", inplace):
        return input.threshold_(threshold, value)
    return _fn.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """In-place version of threshold()."""
    return input.threshold_(threshold, value)


def relu(input, inplace=False):
    """max(x, 0) of each element."""
    return input.relu_() if _check_inplace("relu", inplace) else _fn.relu(input)


def relu_(input):
    """In-place version of relu()."""
    return input.relu_()


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Each element clamped into [min_val, max_val]."""
    if _check_inplace("hardtanh", inplace):
        return input.hardtanh_(min_val, max_val)
    return _nn.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place version of hardtanh()."""
    return input.hardtanh_(min_val, max_val)


def relu6(input, inplace=False):
    """min(max(x, 0), 6) of each element."""
    return input.hardtanh_(0.0, 6.0) if _check_inplace("relu6", inplace) else _nn.relu6(input)


def elu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha * (e^x - 1)."""
    return input.elu_(alpha) if _check_inplace("elu", inplace) else _nn.elu(input, alpha)


def elu_(input, alpha=1.0):
    """In-place version of elu()."""
    return input.elu_(alpha)


def selu(input, inplace=False):
    """scale * elu(x, alpha), alpha = 1.6732632423543772, scale = 1.0507009873554805."""
    return input.selu_() if _check_inplace("selu", inplace) else _fn.selu(input)


def selu_(input):
    """In-place version of selu()."""
    return input.selu_()


def celu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha * (e^(x / alpha) - 1)."""
    return input.celu_(alpha) if _check_inplace("celu", inplace) else _fn.celu(input, alpha)


def celu_(input, alpha=1.0):
    """In-place version of celu()."""
    return input.celu_(alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else negative_slope * x."""
    if _check_inplace("leaky_relu", inplace):
        return input.leaky_relu_(negative_slope)
    return _nn.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place version of leaky_relu()."""
    return input.leaky_relu_(negative_slope)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    return input.hardswish_() if _check_inplace("hardswish", inplace) else _nn.hardswish(input)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    return input.hardsigmoid_() if _check_inplace("hardsigmoid", inplace) else _nn.hardsigmoid(input)


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    return input.silu_() if _check_inplace("silu", inplace) else _nn.silu(input)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    return input.mish_() if _check_inplace("mish", inplace) else _nn.mish(input)


def logsigmoid(input):
    """log(1 / (1 + e^-x)), computed without overflow."""
    return _nn.log_sigmoid(input)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    return _fn.hardshrink(input, lambd)


def sigmoid(input):
    """1 / (1 + e^-x)."""
    return _fn.sigmoid(input)


def tanh(input):
    """tanh(x)."""
    return _fn.tanh(input)


# ------------------------------------------------------------------ softmax
def _softmax_dim(name, ndim, stacklevel):
    """PyTorch's legacy choice when dim is None (deprecated, with its warning): 0 for 0-, 1- and 3-dim
    inputs, else 1."""
    import warnings

    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim (in dtype when given)."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return _fn.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along dim, computed stably (in dtype when given)."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _fn.log_softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim (in dtype when given)."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return _fn.softmax(-input if dtype is None else -input.to(dtype), dim)


# ------------------------------------------------------------------ dropout
def dropout(input, p=0.5, training=True, inplace=False):
    """In training, zeroes each element with probability p and scales the rest by 1 / (1 - p)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    result = _fn.dropout(input, p, training)
    if _check_inplace("dropout", inplace) and result is not input:
        return input.copy_(result)
    return result


# ------------------------------------------------------------------ convolution
# PyTorch's F.conv* are its torch.conv* builtins: the schema's ops (padding an int, a tuple, 'same' or
# 'valid'; an unbatched input gets a batch of one).
conv1d = _fn.conv1d
conv2d = _fn.conv2d
conv3d = _fn.conv3d
conv_transpose1d = _fn.conv_transpose1d
conv_transpose2d = _fn.conv_transpose2d
conv_transpose3d = _fn.conv_transpose3d


# ------------------------------------------------------------------ pooling
def _pool_stride(stride):
    """None (PyTorch's default): the kernel size, which the ops take as an empty stride."""
    return () if stride is None else stride


def _max_pool(name, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    with_indices = getattr(_fn, f"{name}_with_indices", None) or getattr(_nn, f"{name}_with_indices")
    values, indices = with_indices(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)
    return (values, indices) if return_indices else values


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window along the last dim (with the flat index of each when return_indices)."""
    return _max_pool("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window over the last 2 dims (with the flat index of each when return_indices)."""
    return _max_pool("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window over the last 3 dims (with the flat index of each when return_indices)."""
    return _max_pool("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The average of each window along the last dim."""
    return _fn.avg_pool1d(input, kernel_size, _pool_stride(stride), padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The average of each window over the last 2 dims (divided by divisor_override when given)."""
    return _nn.avg_pool2d(input, kernel_size, _pool_stride(stride), padding, ceil_mode, count_include_pad,
                          divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The average of each window over the last 3 dims (divided by divisor_override when given)."""
    return _nn.avg_pool3d(input, kernel_size, _pool_stride(stride), padding, ceil_mode, count_include_pad,
                          divisor_override)


# ------------------------------------------------------------------ padding
def pad(input, pad, mode="constant", value=None):
    """Pads the trailing dims (pad: (before, after) pairs from the last dim backwards; negative crops).
    mode 'constant' fills with value (0 when None) over any number of dims; 'reflect', 'replicate' and
    'circular' pad 1 to 3 trailing dims of a batched or unbatched input."""
    return _nn.pad(input, pad, mode, value)


# ------------------------------------------------------------------ normalization
def _prod(values):
    n = 1
    for v in values:
        n *= v
    return n


def _verify_batch_size(size):
    if _prod(size[:1] + size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    """Normalizes each channel of an (N, C, *) input: by the batch's statistics when training (and then moves
    running_mean and running_var, when given, by momentum), else by the running statistics."""
    if training:
        _verify_batch_size(list(input.shape))
    return _fn.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    """Normalizes each channel of each image of an (N, C, *) input over its positions."""
    if use_input_stats and _prod(list(input.shape)[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
    return _fn.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Normalizes over the trailing normalized_shape, then scales by weight and shifts by bias."""
    return _fn.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalizes each group of num_groups groups of channels of each image of an (N, C, *) input."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    shape = list(input.shape)
    _verify_batch_size([shape[0] * shape[1] // num_groups, num_groups] + shape[2:])
    return _fn.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps) over the trailing normalized_shape, times weight."""
    return _fn.rms_norm(input, normalized_shape, weight, eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divides each element by (k + alpha * the mean of the squares over `size` neighbouring channels)^beta
    (the window zero-padded: size // 2 channels before, (size - 1) // 2 after)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    shape = list(input.shape)
    squares = (input * input).reshape(shape[0], 1, shape[1], -1)  # channels as a spatial dim of one plane
    squares = pad(squares, (0, 0, size // 2, (size - 1) // 2))
    window_mean = _nn.avg_pool2d(squares, (size, 1), (1, 1)).reshape(shape)
    return input / (window_mean * alpha + k) ** beta


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p over dim, eps)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _fn.div(input, denom, out=out)


# ------------------------------------------------------------------ losses
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _legacy_reduction(size_average, reduce):
    """The reduction the deprecated size_average/reduce arguments ask for (None counts as True), with
    PyTorch's warning."""
    import warnings

    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  stacklevel=3)
    return reduction


def _reduction_enum(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """The negative log-likelihood of target's classes under the log-probabilities `input` (N, C, ...)."""
    return _nn.nll_loss_nd(input, target, weight, _reduction_enum(size_average, reduce, reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """nll_loss(log_softmax(input, class dim), target) for class indices; -sum(weight * target * log_softmax)
    for class probabilities; label_smoothing mixes in the uniform distribution."""
    return _nn.cross_entropy_loss(input, target, weight, _reduction_enum(size_average, reduce, reduction),
                                  ignore_index, label_smoothing)
