"""Samples, NumPy references and error cases for the normalizations (layer, group and batch norm kernels and
their backward ops, layer_norm, group_norm, native_batch_norm, batch_norm, instance_norm, rms_norm); part
of torchlite.testing's op database."""
import numpy as np

import torchlite as tl

from .. import _helpers as h

EPS = 1e-5


def _t(shape, seed, domain=None):
    return h.make(shape, "float32", h.rng_for("norm", shape, seed), domain=domain)


def _normalize(x, red, eps):
    """(x - mean) / sqrt(var + eps) over the axes `red` (biased var), with the mean and 1 / sqrt(var + eps)."""
    mean = x.mean(axis=red, keepdims=True)
    rstd = 1.0 / np.sqrt(x.var(axis=red, keepdims=True) + eps)
    return (x - mean) * rstd, mean, rstd


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = y * np.reshape(weight, shape)
    if bias is not None:
        y = y + np.reshape(bias, shape)
    return y


def _backward(dy, x, mean, rstd, weight, red, w_shape, w_sum, mask, param_shape, bias_given=True):
    """The textbook gradients: dx = rstd (g - mean(g) - xh mean(g xh)) with g = dy * w, dw = sum(dy xh),
    db = sum(dy) (size 0 where output_mask leaves them out)."""
    xh = (x - mean) * rstd
    g = dy * (np.reshape(weight, w_shape) if weight is not None else 1.0)
    dx = rstd * (g - g.mean(axis=red, keepdims=True) - xh * (g * xh).mean(axis=red, keepdims=True))
    dw = (dy * xh).sum(axis=w_sum).reshape(param_shape)
    db = dy.sum(axis=w_sum).reshape(param_shape)
    empty = np.zeros((0,))
    return (dx if mask[0] else empty, dw if mask[1] and weight is not None else empty,
            db if mask[2] and bias_given else empty)


# ---------------------------------------------------------------- layer norm
def _layer_red(x, normalized_shape):
    return tuple(range(x.ndim - len(normalized_shape), x.ndim))


def _layer_norm_ref(input, normalized_shape, weight, bias, eps):
    y, mean, rstd = _normalize(input, _layer_red(input, normalized_shape), eps)
    return _affine(y, weight, bias, normalized_shape), mean, rstd


def _layer_norm_backward_ref(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    red = _layer_red(input, normalized_shape)
    w_sum = tuple(range(input.ndim - len(normalized_shape)))
    return _backward(grad_out, input, mean, rstd, weight, red, normalized_shape, w_sum, output_mask,
                     normalized_shape)


def _layer_stats(a):
    return dict(zip(("mean", "rstd"), tl.native_layer_norm(a["input"], a["normalized_shape"], None, None, EPS)[1:]))


def _layer_backward_sample():
    x = _t((3, 4, 5), 1)
    return dict({"grad_out": _t((3, 4, 5), 2), "input": x, "normalized_shape": (4, 5), "weight": _t((4, 5), 3),
                 "bias": _t((4, 5), 4), "output_mask": (True, True, True)},
                **_layer_stats({"input": x, "normalized_shape": (4, 5)}))


# ---------------------------------------------------------------- group norm
def _group_view(x, group):
    n, c = x.shape[:2]
    return x.reshape(n, group, c // group, -1)


def _group_norm_ref(input, weight, bias, N, C, HxW, group, eps):
    y, mean, rstd = _normalize(_group_view(input, group), (2, 3), eps)
    y = _affine(y, weight, bias, (1, group, C // group, 1))
    return y.reshape(input.shape), mean.reshape(N, group), rstd.reshape(N, group)


def _group_norm_backward_ref(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    x = _group_view(input, group)
    grads = _backward(_group_view(grad_out, group), x, mean.reshape(N, group, 1, 1), rstd.reshape(N, group, 1, 1),
                      weight, (2, 3), (1, group, C // group, 1), (0, 3), output_mask, (C,))
    return (grads[0].reshape(input.shape) if output_mask[0] else grads[0],) + grads[1:]


def _group_stats(a):
    x = a["input"]
    n, c = x.shape[0], x.shape[1]
    stats = tl.native_group_norm(x, None, None, n, c, x.numel() // (n * c), a["group"], EPS)
    return {"mean": stats[1], "rstd": stats[2]}


def _group_backward_sample():
    x = _t((2, 6, 3, 2), 5)
    return dict({"grad_out": _t((2, 6, 3, 2), 6), "input": x, "weight": _t((6,), 7), "N": 2, "C": 6, "HxW": 6,
                 "group": 3, "output_mask": (True, True, True)}, **_group_stats({"input": x, "group": 3}))


# ---------------------------------------------------------------- batch norm
def _channel_view(x):
    return x.reshape(x.shape[0], x.shape[1], -1)


def _batch_training_ref(input, weight, bias, eps):
    x = _channel_view(input)
    y, mean, rstd = _normalize(x, (0, 2), eps)
    y = _affine(y, weight, bias, (1, -1, 1)).reshape(input.shape)
    return y, mean.reshape(-1), rstd.reshape(-1), x.var(axis=(0, 2))


def _batch_backward_ref(grad_output, input, weight, mean, invstd, output_mask):
    c = input.shape[1]
    grads = _backward(_channel_view(grad_output), _channel_view(input), mean.reshape(1, c, 1),
                      invstd.reshape(1, c, 1), weight, (0, 2), (1, c, 1), (0, 2), output_mask, (c,))
    return (grads[0].reshape(input.shape) if output_mask[0] else grads[0],) + grads[1:]


def _batch_stats(a):
    return dict(zip(("mean", "invstd"), tl._batch_norm_training(a["input"], None, None, EPS)[1:3]))


def _batch_backward_sample():
    x = _t((4, 3, 5), 8)
    return dict({"grad_output": _t((4, 3, 5), 9), "input": x, "weight": _t((3,), 10),
                 "output_mask": (True, True, True)}, **_batch_stats({"input": x}))


def _batch_eval_ref(input, weight, bias, running_mean, running_var, training, momentum, eps):
    shape = (1, -1) + (1,) * (input.ndim - 2)
    y = (input - running_mean.reshape(shape)) / np.sqrt(running_var.reshape(shape) + eps)
    return _affine(y, weight, bias, shape), np.zeros((0,)), np.zeros((0,))


def _rms_norm_ref(input, normalized_shape, weight, eps):
    red = _layer_red(input, normalized_shape)
    y = input / np.sqrt((input * input).mean(axis=red, keepdims=True) + eps)
    return y * weight if weight is not None else y


def numpy_cases():
    """Full overload name -> (sample, NumPy reference of the sample's arguments as float64 arrays)."""
    return {
        "native_layer_norm": (
            lambda: {"input": _t((2, 3, 4), 0), "normalized_shape": (3, 4), "weight": _t((3, 4), 11),
                     "bias": _t((3, 4), 12), "eps": EPS},
            _layer_norm_ref),
        "native_layer_norm_backward": (_layer_backward_sample, _layer_norm_backward_ref),
        "native_group_norm": (
            lambda: {"input": _t((2, 4, 3, 2), 13), "weight": _t((4,), 14), "bias": _t((4,), 15), "N": 2, "C": 4,
                     "HxW": 6, "group": 2, "eps": EPS},
            _group_norm_ref),
        "native_group_norm_backward": (_group_backward_sample, _group_norm_backward_ref),
        "_batch_norm_training": (
            lambda: {"input": _t((4, 3, 2, 3), 16), "weight": _t((3,), 17), "bias": _t((3,), 18), "eps": EPS},
            _batch_training_ref),
        "_batch_norm_backward": (_batch_backward_sample, _batch_backward_ref),
        "layer_norm": (
            lambda: {"input": _t((3, 5), 19), "normalized_shape": (5,), "weight": _t((5,), 20), "eps": 1e-3},
            lambda input, normalized_shape, weight, eps: _layer_norm_ref(input, normalized_shape, weight, None,
                                                                          eps)[0]),
        "group_norm": (
            lambda: {"input": _t((2, 6, 4), 21), "num_groups": 3, "bias": _t((6,), 22)},
            lambda input, num_groups, bias: _group_norm_ref(input, None, bias, 2, 6, 4, num_groups, EPS)[0]),
        "native_batch_norm": (
            lambda: {"input": _t((3, 4, 2, 2), 23), "weight": _t((4,), 24), "bias": _t((4,), 25),
                     "running_mean": _t((4,), 26), "running_var": _t((4,), 27, domain=(0.5, 2.0)),
                     "training": False, "momentum": 0.1, "eps": EPS},
            _batch_eval_ref),
        "batch_norm": (
            lambda: {"input": _t((5, 2, 3), 28), "weight": _t((2,), 29), "bias": None, "running_mean": None,
                     "running_var": None, "training": True, "momentum": 0.1, "eps": EPS, "cudnn_enabled": False},
            lambda input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled:
                _batch_training_ref(input, weight, None, eps)[0]),
        "instance_norm": (
            lambda: {"input": _t((2, 3, 5), 30), "weight": _t((3,), 31), "bias": _t((3,), 32), "running_mean": None,
                     "running_var": None, "use_input_stats": True, "momentum": 0.1, "eps": EPS,
                     "cudnn_enabled": False},
            lambda input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled:
                _affine(_normalize(input, (2,), eps)[0], weight, bias, (1, -1, 1))),
        "rms_norm": (
            lambda: {"input": _t((2, 3, 4), 33), "normalized_shape": (3, 4), "weight": _t((3, 4), 34), "eps": 1e-6},
            _rms_norm_ref),
    }


DERIVED_ARGS = {
    "native_layer_norm_backward": _layer_stats,
    "native_group_norm_backward": _group_stats,
    "_batch_norm_backward": _batch_stats,
}

# Sums in float32.
TOLERANCES = {name: {"float32": (1e-5, 1e-5)}
              for name in ("native_layer_norm", "native_layer_norm_backward", "native_group_norm",
                           "native_group_norm_backward", "_batch_norm_training", "_batch_norm_backward", "layer_norm",
                           "group_norm", "native_batch_norm", "batch_norm", "instance_norm", "rms_norm")}

# (code, exception type, substrings of the message), run in a subprocess. Messages checked against
# PyTorch 2.13.
ERRORS = [
    ("tl.nn.functional.layer_norm(tl.ones(2, 3), (4,))", "RuntimeError",
     ["Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"]),
    ("tl.nn.functional.layer_norm(tl.ones(2, 3), (3,), tl.ones(4))", "RuntimeError",
     ["Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and "
      "normalized_shape = [3]"]),
    ("tl.nn.functional.layer_norm(tl.ones(2, 3), ())", "RuntimeError",
     ["Expected normalized_shape to be at least 1-dimensional"]),
    ("tl.nn.functional.layer_norm(tl.ones(2, 3, dtype=tl.int64), (3,))", "NotImplementedError",
     ['"LayerNormKernelImpl" not implemented for \'Long\'']),
    ("tl.nn.functional.group_norm(tl.ones(2, 6, 3), 4)", "RuntimeError",
     ["Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 6, 3] and "
      "num_groups=4"]),
    ("tl.nn.functional.group_norm(tl.ones(2, 6, 3), 3, tl.ones(5))", "RuntimeError",
     ["Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape "
      "[5] and input of shape [2, 6, 3]"]),
    ("tl.nn.functional.batch_norm(tl.ones(1, 3), None, None, training=True)", "ValueError",
     ["Expected more than 1 value per channel when training, got input size"]),
    ("tl.nn.functional.batch_norm(tl.ones(2, 3), None, None)", "RuntimeError",
     ["running_mean must be defined in evaluation mode"]),
    ("tl.nn.functional.batch_norm(tl.ones(2, 3), tl.zeros(4), tl.ones(4))", "RuntimeError",
     ["running_mean should contain 3 elements not 4"]),
    ("tl.nn.functional.batch_norm(tl.ones(2, 3), tl.zeros(3), tl.ones(3), weight=tl.ones(4), training=True)",
     "RuntimeError", ["weight should contain 3 elements not 4"]),
    ("tl.nn.functional.batch_norm(tl.ones(2, 3, dtype=tl.int64), tl.zeros(3), tl.ones(3), training=True)",
     "NotImplementedError", ['"batch_norm" not implemented for \'Long\'']),
    ("tl.nn.functional.instance_norm(tl.ones(2, 3, 1))", "ValueError",
     ["Expected more than 1 spatial element when training, got input size"]),
    ("tl.nn.functional.local_response_norm(tl.ones(2, 3), 2)", "ValueError",
     ["Expected 3D or higher dimensionality input (got 2 dimensions)"]),
    ("tl.nn.functional.rms_norm(tl.ones(2, 3), (4,))", "RuntimeError",
     ["Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"]),
]
