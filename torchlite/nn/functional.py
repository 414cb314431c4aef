"""Neural-network functions (PyTorch's torch.nn.functional).

The schema's ops with `python_module: nn.functional` come from the generated bindings (`_C._nn`). The
functions below add what PyTorch's torch.nn.functional adds in Python, with its signatures and argument
names: the `inplace=False` argument of the activations and of dropout (which then write the input), the
`*_` functions, softmax's deprecated implicit dim, dropout's ValueError for a bad p, and the losses'
reduction strings (with the deprecated size_average and reduce arguments). The functions PyTorch itself
writes in Python (the channel and alpha dropouts, rrelu, gumbel_softmax, embedding_bag, the pooling and
resampling front ends, lp and fractional max pooling, max_unpool, affine_grid and grid_sample, ctc_loss and
the other Python-only losses) are written here with torchlite ops, so autograd and every device come from
those ops.
"""
from .. import _C
from .._namespace import export
from ..autograd.function import Function as _Function

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


def _adaptive_size(input, output_size, d):
    """output_size as d ints: one int for every dim, and None keeping the input's size there."""
    if isinstance(output_size, int):
        return [output_size] * d
    sizes = list(output_size)
    if len(sizes) == 1 and d > 1:
        sizes = sizes * d
    return [input.shape[input.dim() - d + j] if v is None else v for j, v in enumerate(sizes)]


def adaptive_avg_pool1d(input, output_size):
    """Averages of output_size boxes that split the last dim (floor(o n / m) to ceil((o + 1) n / m))."""
    return _fn.adaptive_avg_pool1d(input, _adaptive_size(input, output_size, 1))


def adaptive_avg_pool2d(input, output_size):
    """Averages of the boxes that split the last 2 dims into output_size (None keeps a dim's size)."""
    return _nn.adaptive_avg_pool2d(input, _adaptive_size(input, output_size, 2))


def adaptive_avg_pool3d(input, output_size):
    """Averages of the boxes that split the last 3 dims into output_size (None keeps a dim's size)."""
    return _nn.adaptive_avg_pool3d(input, _adaptive_size(input, output_size, 3))


def _adaptive_max(fn, input, output_size, d, return_indices):
    values, indices = fn(input, _adaptive_size(input, output_size, d))
    return (values, indices) if return_indices else values


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Maxima of output_size boxes that split the last dim (with their flat indices when return_indices)."""
    return _adaptive_max(_fn.adaptive_max_pool1d, input, output_size, 1, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Maxima of the boxes that split the last 2 dims into output_size (None keeps a dim's size)."""
    return _adaptive_max(_nn.adaptive_max_pool2d, input, output_size, 2, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Maxima of the boxes that split the last 3 dims into output_size (None keeps a dim's size)."""
    return _adaptive_max(_nn.adaptive_max_pool3d, input, output_size, 3, return_indices)


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


def _warn_target_size(input, target):
    if target.size() != input.size():
        import warnings

        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def _weighted(errors, weight, input, reduction):
    """A per-element error times weight (input's size), reduced; 'mean' divides by the sum of the weights."""
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _pointwise_loss(name, input, target, size_average, reduce, reduction, weight, error, *extra):
    """mse_loss, l1_loss and huber_loss: the schema op, or the weighted error when weight is given."""
    _warn_target_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    input, target = _fn.broadcast_tensors([input, target])
    if weight is not None:
        return _weighted(error(input, target), weight, input, reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return getattr(_nn, name)(input, target, _REDUCTIONS[reduction], *extra)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The squared error (input - target)^2, reduced (weighted: 'mean' divides by the weights' sum)."""
    return _pointwise_loss("mse_loss", input, target, size_average, reduce, reduction, weight,
                           lambda x, y: (x - y) ** 2)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The absolute error |input - target|, reduced (weighted: 'mean' divides by the weights' sum)."""
    return _pointwise_loss("l1_loss", input, target, size_average, reduce, reduction, weight,
                           lambda x, y: (x - y).abs())


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 z^2 / beta where z = |input - target| < beta, else z - 0.5 beta; reduced."""
    _warn_target_size(input, target)
    input, target = _fn.broadcast_tensors([input, target])
    return _nn.smooth_l1_loss(input, target, _reduction_enum(size_average, reduce, reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 z^2 where z = |input - target| < delta, else delta (z - 0.5 delta); reduced."""
    def error(x, y):
        return _nn.huber_loss(x, y, 0, delta)

    return _pointwise_loss("huber_loss", input, target, None, None, reduction, weight, error, delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-weight (target log(input) + (1 - target) log(1 - input)) for probabilities in [0, 1], reduced."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(input.shape)
    return _nn.binary_cross_entropy(input, target, weight, enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of sigmoid(input), computed stably from the logits; pos_weight weighs the
    positive targets."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return _fn.binary_cross_entropy_with_logits(input, target, weight, pos_weight, enum)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """The KL divergence of target from the log-probabilities input, pointwise, reduced; 'batchmean' divides
    the sum by the batch size (the mathematical KL divergence)."""
    import warnings

    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction == "batchmean":
        total = _fn.kl_div(input, target, _REDUCTIONS["sum"], log_target=log_target)
        return total / input.size()[0] if input.dim() != 0 else total
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _fn.kl_div(input, target, _REDUCTIONS[reduction], log_target=log_target)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-08, reduce=None,
                     reduction="mean"):
    """The negative log-likelihood of target under Poisson(rate input) (exp(input) with log_input)."""
    enum = _reduction_enum(size_average, reduce, reduction)
    return _fn.poisson_nll_loss(input, target, log_input, full, eps, enum)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-06, reduction="mean"):
    """The negative log-likelihood of target under Normal(input, var): 0.5 (log(max(var, eps)) +
    (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) when full), reduced."""
    import math

    from .. import tensor as _tensor

    if not hasattr(var, "dim"):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _tensor(float(var), dtype=input.dtype).expand(input.shape)
    if var.size() != input.size():
        if input.size()[:-1] == var.size():  # a homoscedastic var of one less dim
            var = var.unsqueeze(-1)
        elif input.size()[:-1] == var.size()[:-1] and var.size()[-1] == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    from .. import no_grad

    var = var.clone()
    with no_grad():  # clamped for stability; the gradient flows as if it were not
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1, reduced."""
    return _fn.hinge_embedding_loss(input, target, margin, _reduction_enum(size_average, reduce, reduction))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target (input1 - input2) + margin), reduced."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _fn.margin_ranking_loss(input1, input2, target, margin, enum)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target input)), reduced."""
    return _nn.soft_margin_loss(input, target, _reduction_enum(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-mean over classes of target log(sigmoid(input)) + (1 - target) log(sigmoid(-input)) (times weight),
    reduced over the batch."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=input.dim() - 1) / input.size(-1)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The multi-class hinge loss of each row against its class, over the classes, reduced."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _nn.multi_margin_loss(input, target, p, margin, weight, enum)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1, reduced."""
    return _fn.cosine_embedding_loss(input1, input2, target, margin, _reduction_enum(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the pairwise p-distance, reduced."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss: expected margin to be greater than 0, got {margin} instead")
    return _fn.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, enum)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """triplet_margin_loss with any distance function (pairwise_distance by default)."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         "instead")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = _fn.minimum(d_neg, distance(positive, negative))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


pairwise_distance = _fn.pairwise_distance
cosine_similarity = _fn.cosine_similarity


# ------------------------------------------------------------------ resampling
_INTERPOLATING = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Resamples the spatial dims of an (N, C, d1, ...) input to `size`, or by `scale_factor`: mode
    'nearest', 'nearest-exact', 'linear' (3-D input), 'bilinear' / 'bicubic' (4-D), 'trilinear' (5-D)."""
    import math

    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scale_factors = None
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input with "
                                 f"spatial dimensions of {spatial} and output size of {size}. Please provide input "
                                 "tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            output_size = [int(s) for s in size]
        else:
            output_size = [int(size)] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {spatial} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * dim
        output_size = [int(math.floor(float(n) * s)) for n, s in zip(spatial, scale_factors)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        scale_factors = None  # the sizes alone set the scale
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor "
                         "as input")
    if antialias:
        return _antialiased_resample(input, output_size, mode == "bicubic", bool(align_corners), scale_factors)
    if mode == "area" and input.dim() in (3, 4, 5):
        return _fn._adaptive_avg_pool(input, output_size)
    if mode in _INTERPOLATING and input.dim() in (3, 4, 5) and input.dim() != _INTERPOLATING[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_INTERPOLATING[mode]}D input")
    if mode not in ("nearest", "nearest-exact", *_INTERPOLATING) or input.dim() not in (3, 4, 5):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  "the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                                  f"(got {mode})")
    kernel_mode = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    return _fn._upsample(input, output_size, kernel_mode, bool(align_corners), scale_factors or [])


def _antialias_weights(n_in, n_out, align_corners, scale_factor, cubic):
    """The (n_out, n_in) matrix of interpolate(antialias=True) along one dim, as PyTorch computes it: output i is
    centred at scale * (i + 0.5) in input coordinates; when downsampling (scale > 1) the filter (triangle, or the
    cubic with a = -0.5) is stretched by the scale, so each output averages all the inputs it covers; the weights
    of a row are normalized to sum to 1."""
    import numpy as np

    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        scale = 1.0 / scale_factor if scale_factor else n_in / n_out
    support = (2.0 if cubic else 1.0) * (scale if scale >= 1.0 else 1.0)
    inv = 1.0 / scale if scale >= 1.0 else 1.0

    def kernel(t):
        t = np.abs(t)
        if cubic:
            a = -0.5
            return np.where(t < 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                            np.where(t < 2, (((t - 5) * t + 8) * t - 4) * a, 0.0))
        return np.where(t < 1, 1.0 - t, 0.0)

    w = np.zeros((n_out, n_in))
    for i in range(n_out):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        row = kernel((np.arange(lo, hi) - center + 0.5) * inv)
        total = row.sum()
        w[i, lo:hi] = row / total if total != 0 else row
    return w


def _antialiased_resample(input, output_size, cubic, align_corners, scale_factors):
    """interpolate(..., antialias=True) for a 4-D float input: separable, so one weight matrix per spatial dim,
    applied as two matrix products (differentiable through matmul)."""
    if input.dtype not in (_C.float32, _C.float64):
        raise NotImplementedError(f"interpolate: antialias=True is not implemented for {input.dtype} input "
                                  "(float32 and float64 only, as PyTorch's float kernels)")
    from .._creation import tensor

    rows, cols = (tensor(_antialias_weights(n, o, align_corners, scale_factors[d] if scale_factors else None,
                                                cubic), dtype=input.dtype, device=input.device)
                  for d, (n, o) in enumerate(zip(input.shape[2:], output_size)))
    return _fn.matmul(_fn.matmul(rows, input), cols.t())


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """interpolate (deprecated in PyTorch in its favour; the same result)."""
    import warnings

    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """interpolate(..., mode='nearest') (deprecated in PyTorch)."""
    import warnings

    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """interpolate(..., mode='bilinear', align_corners=True) (deprecated in PyTorch)."""
    import warnings

    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ------------------------------------------------------------------ more dropout, activations and layers
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_mask(input, p, batched):
    """A 0/1 mask over whole channels: one draw per (N, C) (per C when not batched), broadcast over the rest."""
    lead = 2 if batched else 1
    shape = list(input.shape[:lead]) + [1] * (input.dim() - lead)
    return _fn.bernoulli(_fn.full(shape, 1.0 - p, dtype=input.dtype, device=input.device))


def _feature_dropout(input, p, training, inplace, batched):
    """Whole channels zeroed with probability p (the rest scaled by 1 / (1 - p)): one draw per (N, C) of an
    (N, C, *) input, per C of an unbatched (C, *) one. Like PyTorch's feature dropout it returns the input when
    not training, when p is 0 or when the input is empty, zeroes everything when p is 1, and else needs at
    least 2 dims (counting the batch dim an unbatched input gets)."""
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    if input.dim() + (0 if batched else 1) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    mask = _feature_mask(input, p, batched) * (1.0 / (1.0 - p))
    return input.mul_(mask) if inplace else input * mask


def _dropout_nd_rank_warning(name, ndim, spatial):
    import warnings

    warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an error in "
                  f"a future release. To retain the behavior and silence this warning, please use dropout instead. "
                  f"Note that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial "
                  f"dimensions, a channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or "
                  f"{spatial + 2}D inputs).", stacklevel=3)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, L) or (C, L) input with probability p, scaling the rest by 1 / (1 - p);
    any other rank is an error."""
    _check_p(p)
    _check_inplace("dropout1d", inplace)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, input.dim() == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, H, W) input with probability p. As in PyTorch, a 3-D input is taken
    as (N, C, L) (with a warning), and other ranks than 3 and 4 warn and are taken as (N, C, *)."""
    import warnings

    _check_p(p)
    _check_inplace("dropout2d", inplace)
    ndim = input.dim()
    if ndim not in (3, 4):
        _dropout_nd_rank_warning("dropout2d", ndim, 2)
    if ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This "
                      "behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, D, H, W) or (C, D, H, W) input with probability p. As in PyTorch,
    other ranks warn and are taken as unbatched (C, *)."""
    _check_p(p)
    _check_inplace("dropout3d", inplace)
    ndim = input.dim()
    if ndim not in (4, 5):
        _dropout_nd_rank_warning("dropout3d", ndim, 3)
    return _feature_dropout(input, p, training, inplace, ndim == 5)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _alpha_dropout(input, p, training, inplace, mask):
    """Dropped elements become SELU's negative saturation, then an affine map keeps mean 0 and variance 1."""
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    alpha = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha * alpha)) ** -0.5
    b = -a * alpha * p
    keep = mask(input)
    out = (input * keep + alpha * (1 - keep)) * a + b
    return input.copy_(out) if inplace else out


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: keeps the inputs' mean and variance."""
    _check_p(p)
    _check_inplace("alpha_dropout", inplace)
    return _alpha_dropout(input, p, training, inplace,
                          lambda x: _fn.bernoulli(_fn.full(list(x.shape), 1.0 - p, dtype=x.dtype, device=x.device)))


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout over whole channels of an (N, C, ...) input."""
    _check_p(p)
    _check_inplace("feature_alpha_dropout", inplace)
    if training and 0 < p < 1 and input.numel() != 0 and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _alpha_dropout(input, p, training, inplace, lambda x: _feature_mask(x, p, True))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """leaky_relu whose negative slope is drawn uniformly from [lower, upper] per element when training, else
    (lower + upper) / 2."""
    _check_inplace("rrelu", inplace)
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace=inplace)
    slopes = _fn.empty_like(input).uniform_(lower, upper)
    out = _fn.where(input >= 0, input, input * slopes)
    return input.copy_(out) if inplace else out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """rrelu in place."""
    return rrelu(input, lower, upper, training, inplace=True)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + Gumbel noise) / tau) along dim; hard: the one-hot of its argmax, with the soft
    sample's gradient (straight-through)."""
    gumbels = -_fn.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _fn.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """The rows of weight that input's indices name; no gradient reaches row padding_idx; with max_norm, the
    rows named are first renormalized in place to at most that norm."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        from .. import no_grad, unique

        with no_grad():
            rows = unique(input.reshape(-1))
            norms = weight[rows].norm(norm_type, dim=1, keepdim=True)
            scale = _fn.where(norms > max_norm, max_norm / (norms + 1e-7), _fn.ones_like(norms))
            weight[rows] = weight[rows] * scale
    return _fn.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def prelu(input, weight):
    """x where x > 0, else weight * x; weight has one value or one per channel (dim 1; an input of fewer than 2
    dims has one channel)."""
    if weight.dim() <= 1:
        if input.dim() == 0 and weight.numel() != 1:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if weight.numel() != 1 and weight.numel() != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
        if input.dim() < 2:  # one channel: the core op takes dim 0 as channels, so give it a scalar weight
            out = _fn.prelu(input.reshape(-1), weight.reshape(-1)[:1])
            return out.reshape(input.shape)
    return _fn.prelu(input, weight)


pixel_shuffle = _fn.pixel_shuffle
pixel_unshuffle = _fn.pixel_unshuffle
bilinear = _fn.bilinear


# ------------------------------------------------------------------ unfold / fold
def _tuple(v, d):
    """An int argument as d values (a tuple or list as it is)."""
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * d


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of an (N, C, H, W) or (C, H, W) input as columns: (N, C kh kw, L)."""
    return _nn.im2col(input, _tuple(kernel_size, 2), _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums the sliding blocks (N, C kh kw, L) back into an (N, C, *output_size) image (unfold's adjoint)."""
    return _nn.col2im(input, _tuple(output_size, 2), _tuple(kernel_size, 2), _tuple(dilation, 2), _tuple(padding, 2),
                      _tuple(stride, 2))


# ------------------------------------------------------------------ unpooling and power-average pooling
def _unpool(name, input, indices, kernel_size, stride, padding, output_size, d):
    kernel, pad = _tuple(kernel_size, d), _tuple(padding, d)
    step = kernel if stride is None else _tuple(stride, d)
    default = [(input.shape[input.dim() - d + j] - 1) * step[j] - 2 * pad[j] + kernel[j] for j in range(d)]
    if output_size is None:
        size = default
    else:
        size = list(output_size)[-d:]
        if len(size) != d:
            raise ValueError(f"{name}: output_size must have {d} or {d + 2} elements, got {len(list(output_size))}")
        for j in range(d):
            if not default[j] - step[j] < size[j] < default[j] + step[j]:
                raise ValueError(f"invalid output_size \"{output_size}\" (dim {j} must be between "
                                 f"{default[j] - step[j]} and {default[j] + step[j]})")
    lead = list(input.shape[:input.dim() - d])
    plane = 1
    for s in size:
        plane *= s
    flat_values = input.reshape(lead + [-1])
    flat_indices = indices.reshape(lead + [-1])
    if flat_indices.numel() and (int(flat_indices.min()) < 0 or int(flat_indices.max()) >= plane):
        raise RuntimeError(f"Found an invalid max index: {int(flat_indices.max())} (output volumes are of size "
                           f"{'x'.join(str(s) for s in size)}")
    out = _fn.zeros(lead + [plane], dtype=input.dtype, device=input.device)
    return out.scatter(input.dim() - d, flat_indices, flat_values).reshape(lead + size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Max pooling's partial inverse: each value put back at its index, zeros elsewhere."""
    return _unpool("max_unpool1d", input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Max pooling's partial inverse over 2 dims: each value put back at its index, zeros elsewhere."""
    return _unpool("max_unpool2d", input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Max pooling's partial inverse over 3 dims: each value put back at its index, zeros elsewhere."""
    return _unpool("max_unpool3d", input, indices, kernel_size, stride, padding, output_size, 3)


def _lp_pool(avg_pool, input, norm_type, kernel_size, stride, ceil_mode, d):
    kernel = _tuple(kernel_size, d)
    out = avg_pool(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    count = 1
    for k in kernel:
        count *= k
    return (out.sign() * relu(out.abs())).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window along the last dim: (sum of x^p)^(1/p)."""
    return _lp_pool(avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window over the last 2 dims: (sum of x^p)^(1/p)."""
    return _lp_pool(avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window over the last 3 dims: (sum of x^p)^(1/p)."""
    return _lp_pool(avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode, 3)


pdist = _fn.pdist


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sum, mean or max of the embedding rows of each bag: the rows of a 2-D input, or the slices of a 1-D
    input that offsets start (the last offset ending the input when include_last_offset). Entries equal to
    padding_idx are left out of their bag; an empty bag gives zeros."""
    from .. import arange, tensor

    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type "
                             f"{type(offsets).__module__}.{type(offsets).__name__}")
        lengths = [input.shape[1]] * input.shape[0]
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = [int(v) for v in offsets.tolist()]
        ends = starts[1:] + [input.shape[0]] if not include_last_offset else starts[1:]
        if include_last_offset:
            starts = starts[:-1]
        lengths = [e - s for s, e in zip(starts, ends)]
        if any(n < 0 for n in lengths) or (starts and (starts[0] != 0 or max(ends) > input.shape[0])):
            raise ValueError("embedding_bag: offsets must start at 0, be non-decreasing and stay within the input")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    flat = input.reshape(-1)
    rows = embedding(flat, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1).to(rows.dtype)
    n_bags = len(lengths)
    bag = arange(n_bags, device=input.device).repeat_interleave(tensor(lengths, device=input.device)) \
        if n_bags else arange(0, device=input.device)
    keep = _fn.ones_like(flat, dtype=rows.dtype)
    if padding_idx is not None:
        pad = padding_idx if padding_idx >= 0 else weight.shape[0] + padding_idx
        keep = (flat != pad).to(rows.dtype)
        rows = rows * keep.reshape(-1, 1)
    out = _fn.zeros(n_bags, weight.shape[1], dtype=rows.dtype, device=rows.device)
    if mode == "max":
        counts = _fn.zeros(n_bags, dtype=rows.dtype, device=rows.device).index_add(0, bag, keep)
        picked = rows if padding_idx is None else _fn.where(keep.reshape(-1, 1) > 0, rows, float("-inf"))
        index = bag.reshape(-1, 1).expand(-1, weight.shape[1])
        out = out.scatter_reduce(0, index, picked, "amax", include_self=False)
        return _fn.where((counts > 0).reshape(-1, 1), out, 0.0)
    out = out.index_add(0, bag, rows)
    if mode == "mean":
        counts = _fn.zeros(n_bags, dtype=rows.dtype, device=rows.device).index_add(0, bag, keep)
        out = out / counts.clamp_min(1).reshape(-1, 1)
    return out


# ------------------------------------------------------------------ spatial transformers
def _warn_align_corners(align_corners):
    if align_corners is None:
        import warnings

        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=3)
        return False
    return align_corners


def _base_coords(n, align_corners, like):
    """The normalized coordinates of n pixel centres in [-1, 1] (of the pixels' corners without align_corners)."""
    from .. import linspace

    steps = linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)
    return steps if align_corners or n <= 1 else steps * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps theta (N, 2, 3) (or (N, 3, 4)) for
    an output of `size`, in grid_sample's normalized coordinates."""
    from .. import stack

    align_corners = _warn_align_corners(align_corners)
    size = list(size)
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {tuple(size)}.")
    d = len(size) - 2
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if list(theta.shape) != [size[0], d, d + 1]:
        raise ValueError(f"Expected a batch of {d}D affine matrices of shape Nx{d}x{d + 1} for size {tuple(size)}. "
                         f"Got {tuple(theta.shape)}.")
    spatial = size[2:]  # (D,) H, W
    axes = [_base_coords(n, align_corners, theta) for n in reversed(spatial)]  # x, y (, z)
    shape = spatial + [1]
    coords = []
    for j, a in enumerate(axes):  # coordinate j (x first) varies along spatial dim d - 1 - j
        view = [1] * d
        view[d - 1 - j] = spatial[d - 1 - j]
        coords.append(a.reshape(view).expand(spatial))
    coords.append(_fn.ones_like(coords[0]))
    base = stack(coords, -1).reshape(-1, d + 1)  # (points, x y (z) 1)
    return (base @ theta.transpose(1, 2)).reshape([size[0]] + shape[:-1] + [d])


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = _fn.fmod(coord, span)
    flips = (coord / span).floor()
    return _fn.where(_fn.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _source_coord(coord, n, padding_mode, align_corners):
    """grid_sample's pixel coordinate of normalized coordinates along a dim of n pixels."""
    c = (coord + 1) / 2 * (n - 1) if align_corners else ((coord + 1) * n - 1) / 2
    if padding_mode == "border":
        c = c.clamp(0, n - 1)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (n - 1)) if align_corners else _reflect(c, -1, 2 * n - 1)
        c = c.clamp(0, n - 1)
    return c


def _cubic_coefficients(t):
    """The four weights of the taps at floor - 1 .. floor + 2 for fraction t (PyTorch's cubic convolution,
    A = -0.75)."""
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _bounded_tap(coord, n, padding_mode, align_corners):
    """A bicubic tap's integer pixel coordinate after the padding mode (zeros: as it is; the tap reads 0 outside)."""
    if padding_mode == "border":
        return coord.clamp(0, n - 1)
    if padding_mode == "reflection":
        c = _reflect(coord, 0, 2 * (n - 1)) if align_corners else _reflect(coord, -1, 2 * n - 1)
        return c.clamp(0, n - 1)
    return coord


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples an (N, C, H, W) input at the normalized (x, y) positions of grid (N, Ho, Wo, 2), or an (N, C, D, H, W)
    input at the (x, y, z) positions of grid (N, Do, Ho, Wo, 3): bilinear (trilinear for 5-D), nearest or bicubic
    (4-D); outside the input zeros, the border or the reflection. Written with gather, so both the input and the
    grid get gradients."""
    import itertools

    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _warn_align_corners(align_corners)
    d = input.dim() - 2
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if grid.shape[-1] != d:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {d} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError("grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    n, c = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])  # (D,) H, W
    out_spatial = list(grid.shape[1:-1])
    flat = input.reshape(n, c, -1)
    strides = [1] * d
    for k in range(d - 2, -1, -1):
        strides[k] = strides[k + 1] * sizes[k + 1]

    def tap(idx):  # the input at integer pixel idx (one coordinate per spatial dim, in dim order), 0 outside
        inside = None
        linear = 0
        for k, (i, size) in enumerate(zip(idx, sizes)):
            ok = (i >= 0) & (i <= size - 1)
            inside = ok if inside is None else inside & ok
            linear = linear + i.clamp(0, size - 1) * strides[k]
        values = flat.gather(2, linear.to(_C.int64).unsqueeze(1).expand(n, c, linear.shape[1]))
        return values * inside.unsqueeze(1).to(values.dtype)

    # grid coordinate j (x first) indexes spatial dim d - 1 - j
    if mode == "bicubic":
        raw = [grid[..., d - 1 - k].reshape(n, -1) for k in range(d)]
        raw = [(r + 1) / 2 * (size - 1) if align_corners else ((r + 1) * size - 1) / 2 for r, size in zip(raw, sizes)]
        floors = [r.floor().detach() for r in raw]
        weights = [[w.unsqueeze(1) for w in _cubic_coefficients(r - f)] for r, f in zip(raw, floors)]
        out = None
        for j, i in itertools.product(range(4), range(4)):
            idx = [_bounded_tap(floors[0] + (j - 1), sizes[0], padding_mode, align_corners),
                   _bounded_tap(floors[1] + (i - 1), sizes[1], padding_mode, align_corners)]
            term = tap(idx) * weights[0][j] * weights[1][i]
            out = term if out is None else out + term
    else:
        coords = [_source_coord(grid[..., d - 1 - k], size, padding_mode, align_corners).reshape(n, -1)
                  for k, size in enumerate(sizes)]
        if mode == "nearest":  # (the grid gets a zero gradient, as in PyTorch)
            out = tap([x.round().detach() for x in coords])
            for x in coords:
                out = out + ((x - x.detach()) * 0).unsqueeze(1)
        else:  # bilinear, trilinear: the 2^d corners
            lows = [x.floor().detach() for x in coords]
            highs = [(x - lo).unsqueeze(1) for x, lo in zip(coords, lows)]
            out = None
            for corner in itertools.product((0, 1), repeat=d):
                w = None
                for bit, hi in zip(corner, highs):
                    f = hi if bit else 1 - hi
                    w = f if w is None else w * f
                term = tap([lo + bit for lo, bit in zip(lows, corner)]) * w
                out = term if out is None else out + term
    return out.reshape([n, c] + out_spatial)


# ------------------------------------------------------------------ the top-level names of PyTorch's dropouts
def _top_alpha_dropout(input, p, train):
    """torchlite.alpha_dropout(input, p, train): F.alpha_dropout without inplace."""
    return alpha_dropout(input, p, train)


def _top_feature_alpha_dropout(input, p, train):
    """torchlite.feature_alpha_dropout(input, p, train): F.feature_alpha_dropout without inplace."""
    return feature_alpha_dropout(input, p, train)


def _top_feature_dropout(input, p, train):
    """torchlite.feature_dropout(input, p, train): whole channels (dim 1) dropped with probability p."""
    _check_p(p)
    return _feature_dropout(input, p, train, False, True)


def _top_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """torchlite.rrelu(input, lower, upper, training): F.rrelu without inplace."""
    if generator is not None:
        raise NotImplementedError("rrelu: a generator is not supported yet; seed with torchlite.manual_seed")
    return rrelu(input, lower, upper, training)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each sample x with target classes J (target's entries before the first -1): the sum over j in J and
    i not in J of max(0, 1 - (x[j] - x[i])), over the number of classes; reduced over the batch."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if target.dtype != _C.int64:
        raise RuntimeError(f"multilabel_margin_loss: expected target of dtype int64, got {target.dtype}")
    if input.dim() > 2 or target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {tuple(target.shape)} for input of size {tuple(input.shape)}")
    x = input.reshape(1, -1) if input.dim() <= 1 else input
    t = target.reshape(1, -1) if input.dim() <= 1 else target
    n_classes = x.shape[1]
    if t.numel() and (int(t.max()) >= n_classes or int(t.min()) < -1):
        raise RuntimeError(f"multilabel_margin_loss: target values must be in [-1, {n_classes}), got "
                           f"[{int(t.min())}, {int(t.max())}]")
    valid = (t != -1).to(x.dtype).cumprod(1)  # the entries before the first -1
    is_target = (_nn.one_hot(t.clamp_min(0), n_classes).to(x.dtype) * valid.unsqueeze(-1)).amax(1) \
        if n_classes else _fn.zeros_like(x)
    margins = (1 - (x.unsqueeze(2) - x.unsqueeze(1))).clamp_min(0)  # [n, j, i]: 1 - (x[j] - x[i])
    pairs = is_target.unsqueeze(2) * (1 - is_target).unsqueeze(1)
    loss = (margins * pairs).sum((1, 2)) / n_classes
    if input.dim() <= 1:
        loss = loss.reshape(())
    if enum == 0:
        return loss
    return loss.sum() if enum == 2 else loss.mean()


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The Connectionist Temporal Classification loss: -log of the total probability of the alignments of each
    target with its input (log_probs (T, N, C) or (T, C); targets (N, S) padded or concatenated), by the
    forward recursion over the targets with blanks between, in log space; 'mean' divides each loss by its
    target length first."""
    from .. import arange, logsumexp, stack, tensor

    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    T, N, C = lp.shape
    in_len = [int(v) for v in (input_lengths.reshape(-1).tolist() if hasattr(input_lengths, "tolist")
                               else [input_lengths] if isinstance(input_lengths, int) else input_lengths)]
    tg_len = [int(v) for v in (target_lengths.reshape(-1).tolist() if hasattr(target_lengths, "tolist")
                               else [target_lengths] if isinstance(target_lengths, int) else target_lengths)]
    if len(in_len) != N or len(tg_len) != N:
        raise RuntimeError(f"ctc_loss: expected input_lengths and target_lengths of size {N}, got {len(in_len)} and "
                           f"{len(tg_len)}")
    for n in range(N):
        if not 0 <= in_len[n] <= T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {in_len[n]} "
                               f"(while checking arguments for ctc_loss_cpu)")
    # The labels of each sample, padded to S.
    if targets.dim() == 2:
        rows = [targets[n, :tg_len[n]].tolist() for n in range(N)]
    elif unbatched:
        rows = [targets.reshape(-1)[:tg_len[0]].tolist()]
    else:
        flat, rows, at = targets.reshape(-1).tolist(), [], 0
        for n in range(N):
            rows.append(flat[at:at + tg_len[n]])
            at += tg_len[n]
    S = max([len(r) for r in rows] + [0])
    L = 2 * S + 1
    ext = [[blank] * L for _ in range(N)]  # blank, label, blank, label, ..., blank
    for n, r in enumerate(rows):
        for j, c in enumerate(r):
            ext[n][2 * j + 1] = int(c)
    ext_t = tensor(ext, device=lp.device)
    # May state s also come from s - 2 (a label differing from the label two before)?
    skip = [[s >= 2 and ext[n][s] != blank and ext[n][s] != ext[n][s - 2] for s in range(L)] for n in range(N)]
    big_neg = tensor(-1e30, dtype=lp.dtype, device=lp.device)  # log 0, finite so that gradients stay finite
    allowed_skip = tensor(skip, device=lp.device)
    emit = lp.gather(2, ext_t.unsqueeze(0).expand(T, N, L))  # (T, N, L): log p of each state's label
    s_idx = arange(L, device=lp.device).unsqueeze(0)
    alpha = _fn.where(s_idx < 2, emit[0], big_neg)
    finals = [None] * N
    for t in range(T):
        if t > 0:
            prev1 = _fn.cat([big_neg.expand(N, 1), alpha[:, :-1]], 1)
            prev2 = _fn.where(allowed_skip, _fn.cat([big_neg.expand(N, 2), alpha[:, :-2]], 1), big_neg)
            alpha = logsumexp(stack([alpha, prev1, prev2], 0), 0) + emit[t]
        for n in range(N):
            if in_len[n] == t + 1:
                end = 2 * len(rows[n])
                finals[n] = -logsumexp(alpha[n, max(end - 1, 0):end + 1], 0) if end > 0 else -alpha[n, 0]
    for n in range(N):  # an empty input: probability 1 for an empty target, else 0
        if finals[n] is None:
            finals[n] = big_neg * 0 if tg_len[n] == 0 else -big_neg
    losses = stack(finals, 0)
    # PyTorch's gradient for log_probs is exp(log_probs) - posterior (the logits' gradient when log_probs are a
    # log_softmax, which gives the same gradient to those logits): a term of value 0 adds the exp(log_probs).
    steps = (arange(T, device=lp.device).unsqueeze(1) < tensor(in_len, device=lp.device).unsqueeze(0)).to(lp.dtype)
    e = lp.exp()
    losses = losses + ((e - e.detach()).sum(2) * steps).sum(0)
    impossible = losses > 1e29  # no alignment: PyTorch's inf
    losses = _fn.where(impossible, float("inf"), losses)
    if zero_infinity:
        losses = _fn.where(impossible, 0.0, losses)
    if unbatched:
        losses = losses.reshape(())
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    lengths = tensor(tg_len, dtype=losses.dtype, device=losses.device).clamp_min(1)
    return (losses / (lengths.reshape(()) if unbatched else lengths)).mean()


# ------------------------------------------------------------------ fractional max pooling
def _fractional_starts(sample, n_in, n_out, pool):
    """The window starts of one dim for each plane's sample u in [0, 1): floor((i + u) alpha) - floor(u alpha),
    alpha = (n_in - pool) / (n_out - 1), the last window ending the input (PyTorch's sequence, computed in the
    input's dtype)."""
    from .. import arange, tensor

    if n_out == 1:
        return _fn.full(list(sample.shape) + [1], n_in - pool, dtype=_C.int64, device=sample.device)
    alpha = tensor(float(n_in - pool), dtype=sample.dtype) / tensor(float(n_out - 1), dtype=sample.dtype)
    i = arange(n_out - 1, device=sample.device).to(sample.dtype)
    starts = ((i + sample.unsqueeze(-1)) * alpha).to(_C.int64) - (sample * alpha).to(_C.int64).unsqueeze(-1)
    last = _fn.full(list(sample.shape) + [1], n_in - pool, dtype=_C.int64, device=sample.device)
    return _fn.cat([starts, last], -1)


def _fractional_max_pool(name, input, kernel_size, output_size, output_ratio, return_indices, _random_samples, d):
    from .. import arange, rand

    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if input.dim() not in (d + 1, d + 2):
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor, but got: {list(input.shape)}")
    batched = input.dim() == d + 2
    x = input if batched else input.unsqueeze(0)
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    kernel = _tuple(kernel_size, d)
    if output_size is None:
        ratio = _tuple(output_ratio, d)
        if not all(0 < r < 1 for r in ratio):
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints, between 0 "
                             f"and 1, got {output_ratio}")
        output_size = [int(s * r) for s, r in zip(spatial, ratio)]
    out = list(_tuple(output_size, d))
    for j in range(d):
        if out[j] + kernel[j] - 1 > spatial[j]:
            raise RuntimeError(f"{name}(): pool size {kernel[j]} too large relative to input size {spatial[j]} and "
                               f"output size {out[j]}")
    samples = _random_samples if _random_samples is not None else rand(n, c, d, dtype=x.dtype, device=x.device)
    # PyTorch's order of the samples: (width, height) in 2-d, (time, height, width) in 3-d.
    order = [1, 0] if d == 2 else list(range(d))
    starts = [_fractional_starts(samples[:, :, order[j]], spatial[j], out[j], kernel[j]) for j in range(d)]
    # The flat input position of every (output position, window offset), dims interleaved as (o_0, .., k_0, ..).
    pos = None
    for j in range(d):
        coord = starts[j].unsqueeze(-1) + arange(kernel[j], device=x.device)  # (n, c, out_j, k_j)
        shape = [n, c] + [1] * (2 * d)
        shape[2 + j], shape[2 + d + j] = out[j], kernel[j]
        coord = coord.reshape(shape)
        pos = coord if pos is None else pos * spatial[j] + coord
    window = 1
    for k in kernel:
        window *= k
    pos = pos.expand([n, c] + out + list(kernel)).reshape(n, c, -1, window)
    flat = x.reshape(n, c, 1, -1).expand(n, c, pos.shape[2], x[0, 0].numel())
    values = flat.gather(3, pos)
    best = values.argmax(3, keepdim=True)
    indices = pos.gather(3, best).reshape([n, c] + out)
    result = x.reshape(n, c, -1).gather(2, indices.reshape(n, c, -1)).reshape([n, c] + out)
    if not batched:
        result, indices = result.squeeze(0), indices.squeeze(0)
    return (result, indices) if return_indices else result


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Max pooling over pseudo-random windows of the last 2 dims that yield output_size (or output_ratio of the
    input size); _random_samples (N, C, 2) in [0, 1) fixes the windows."""
    return _fractional_max_pool("fractional_max_pool2d", input, kernel_size, output_size, output_ratio,
                                return_indices, _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Max pooling over pseudo-random windows of the last 3 dims; _random_samples (N, C, 3) fixes them."""
    return _fractional_max_pool("fractional_max_pool3d", input, kernel_size, output_size, output_ratio,
                                return_indices, _random_samples, 3)


# ------------------------------------------------------------------ multi-head attention
def _none_or_dtype(input):
    """The dtype of a tensor, None for None."""
    from .._tensor import Tensor

    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask (True: masked out) as an additive float mask of target_type (-inf where masked); a float
    mask as it is. Warns when the other mask given has another dtype."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _C.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        import warnings

        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not is_float:
        mask = _fn.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the inputs of multi-head attention are batched (3-D query), checking the ranks of the others."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         "tensor")


def _in_projection_packed(q, k, v, w, b=None):
    """q, k and v projected by the three (E, E) blocks of w (3E, E) and of b (3E): one product when q, k and v
    are the same tensor, two when k and v are."""
    E = q.shape[-1]
    if k is v and q is k:
        proj = _nn.linear(q, w, b)
        return tuple(proj.unflatten(-1, (3, E)).unbind(-2))
    if k is v:
        kv = _nn.linear(k, w[E:], None if b is None else b[E:])
        k_proj, v_proj = kv.unflatten(-1, (2, E)).unbind(-2)
        return _nn.linear(q, w[:E], None if b is None else b[:E]), k_proj, v_proj
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return _nn.linear(q, w_q, b_q), _nn.linear(k, w_k, b_k), _nn.linear(v, w_v, b_v)


class _PackedHeads(_Function):
    """Self-attention's packed projection (L, N, 3E) as q, k and v in attention's layout, each (N, heads, L,
    head_dim) and contiguous, in one copy; the backward stacks their gradients back in one copy. (Through unbind
    and reshapes instead, each of the three gradients would be padded with zeros to the whole projection and the
    three added, and each of q, k, v copied twice.)"""

    @staticmethod
    def _split(proj, num_heads):
        L, N, E3 = proj.shape
        qkv = proj.reshape(L, N, 3, num_heads, E3 // 3 // num_heads).permute(2, 1, 3, 0, 4).contiguous()
        return qkv[0], qkv[1], qkv[2]

    @staticmethod
    def forward(ctx, proj, num_heads):
        ctx.shape = tuple(proj.shape)
        ctx.num_heads = num_heads
        return _PackedHeads._split(proj, num_heads)

    @staticmethod
    def backward(ctx, dq, dk, dv):
        L, N, E3 = ctx.shape
        like = next(g for g in (dq, dk, dv) if g is not None)
        grads = [g if g is not None else _fn.zeros_like(like) for g in (dq, dk, dv)]
        return _fn.stack(grads).permute(3, 1, 0, 2, 4).reshape(L, N, E3), None

    @staticmethod
    def jvp(ctx, t_proj, _):
        return _PackedHeads._split(t_proj, ctx.num_heads)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """q, k and v projected by their own weights (Eq, Eq), (Eq, Ek), (Eq, Ev) and biases."""
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {tuple(w.shape)}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {tuple(b.shape)}")
    return _nn.linear(q, w_q, b_q), _nn.linear(k, w_k, b_k), _nn.linear(v, w_v, b_v)


def _safe_attention(q, k, v, attn_mask, dropout_p):
    """softmax(q k^T / sqrt(d) + attn_mask) v where the rows whose mask is -inf throughout get weights 0 (as
    PyTorch's scaled_dot_product_attention gives them) instead of NaN."""
    scores = _fn.matmul(q * (1.0 / float(q.shape[-1])) ** 0.5, k.transpose(-2, -1)) + attn_mask
    dead = (attn_mask == float("-inf")).all(-1, keepdim=True)
    weights = _fn.where(dead, 0.0, scores).softmax(-1)
    weights = _fn.where(dead, 0.0, weights)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return _fn.matmul(weights, v)


def _attention(q, k, v, attn_mask, dropout_p, is_causal):
    """scaled_dot_product_attention, with PyTorch's zero output for the queries that every key is masked from."""
    if attn_mask is not None and bool((attn_mask == float("-inf")).all(-1).any()):
        return _safe_attention(q, k, v, attn_mask.expand(q.shape[:-1] + (k.shape[-2],)), dropout_p)
    return _nn.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention of query (L, N, E) over key (S, N, Ek) and value (S, N, Ev) (unbatched: no N):
    q, k and v projected (by in_proj_weight, or q/k/v_proj_weight when use_separate_proj_weight), split into
    num_heads heads, softmax(q k^T / sqrt(E / num_heads) + masks) v per head, the heads joined and projected by
    out_proj. Masks: key_padding_mask (N, S) and attn_mask (L, S) or (N * num_heads, L, S), bool (True: not
    attended) or float (added). Returns the output (L, N, E) and, when need_weights, the attention weights
    (N, L, S) averaged over the heads or (N, num_heads, L, S) per head (else None)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the causal hint stands for the mask: scaled_dot_product_attention applies it
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # Self-attention without extra keys and without weights to return: q, k and v go straight into the
    # attention's layout from one packed projection.
    packed_heads = (not use_separate_proj_weight and not need_weights and query is key and key is value
                    and in_proj_weight is not None and bias_k is None and bias_v is None and not add_zero_attn
                    and static_k is None and static_v is None)
    # the input projections
    if packed_heads:
        q, k, v = _PackedHeads.apply(_nn.linear(query, in_proj_weight, in_proj_bias), num_heads)
    elif not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    # a learned key and value appended to the sequence
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _fn.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _fn.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    # (N * num_heads, seq, head_dim)
    if packed_heads:
        q, k, v = (t.view(bsz * num_heads, tgt_len, head_dim) for t in (q, k, v))
    else:
        q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    for name, static in (("static_k", static_k), ("static_v", static_v)):
        if static is not None:
            if static.shape[0] != bsz * num_heads:
                raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got {static.shape[0]}")
            if static.shape[2] != head_dim:
                raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    if not packed_heads:
        k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k
        v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v

    # a zero key and value appended to the sequence
    if add_zero_attn:
        zeros = (bsz * num_heads, 1, head_dim)
        k = _fn.cat([k, _fn.zeros(zeros, dtype=k.dtype, device=k.device)], 1)
        v = _fn.cat([v, _fn.zeros(zeros, dtype=v.dtype, device=v.device)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        key_padding_mask = key_padding_mask.reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        scores = _fn.bmm(q * (1.0 / float(head_dim)) ** 0.5, k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = scores.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = _fn.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = _nn.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = _attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = _nn.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    if not is_batched:
        out = out.squeeze(1)
    return out, None
