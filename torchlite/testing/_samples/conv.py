"""Samples, NumPy references and error cases for the convolutions (convolution, its backward, conv1d/2d/3d,
conv_transpose1d/2d/3d); part of torchlite.testing's op database."""
import itertools

import numpy as np

import torchlite as tl

from .. import _helpers as h


def _t(shape, seed):
    return h.make(shape, "float32", h.rng_for("conv", shape, seed))


def _conv_ref(input, weight, bias, stride, padding, dilation, groups):
    """Each output position the sum over its group's channels and the kernel of input * weight (float64)."""
    d = weight.ndim - 2
    stride, padding, dilation = (np.broadcast_to(v, (d,)) for v in (stride, padding, dilation))
    x = np.pad(input, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    n, c_out = x.shape[0], weight.shape[0]
    out_size = [(x.shape[2 + j] - dilation[j] * (weight.shape[2 + j] - 1) - 1) // stride[j] + 1 for j in range(d)]
    out = np.zeros((n, c_out, *out_size))
    cin_g, cout_g = weight.shape[1], c_out // groups
    for k in itertools.product(*[range(s) for s in weight.shape[2:]]):
        window = x[(slice(None), slice(None)) + tuple(
            slice(k[j] * dilation[j], k[j] * dilation[j] + (out_size[j] - 1) * stride[j] + 1, stride[j])
            for j in range(d))]
        for g in range(groups):
            w = weight[(slice(g * cout_g, (g + 1) * cout_g), slice(None)) + k]  # (cout_g, cin_g)
            out[:, g * cout_g:(g + 1) * cout_g] += np.einsum("nc...,oc->no...", window[:, g * cin_g:(g + 1) * cin_g], w)
    if bias is not None:
        out += bias.reshape((1, -1) + (1,) * d)
    return out


def _conv_transpose_ref(input, weight, bias, stride, padding, output_padding, groups, dilation):
    """Each input element spread over the output through the kernel, the padding then cropped (float64)."""
    d = weight.ndim - 2
    stride, padding, output_padding, dilation = (np.broadcast_to(v, (d,))
                                                 for v in (stride, padding, output_padding, dilation))
    n, c_in = input.shape[:2]
    cout_g = weight.shape[1]
    full = [(input.shape[2 + j] - 1) * stride[j] + dilation[j] * (weight.shape[2 + j] - 1) + 1 + output_padding[j]
            for j in range(d)]
    out = np.zeros((n, cout_g * groups, *full))
    cin_g = c_in // groups
    for k in itertools.product(*[range(s) for s in weight.shape[2:]]):
        target = (slice(None), slice(None)) + tuple(
            slice(k[j] * dilation[j], k[j] * dilation[j] + (input.shape[2 + j] - 1) * stride[j] + 1, stride[j])
            for j in range(d))
        for g in range(groups):
            w = weight[(slice(g * cin_g, (g + 1) * cin_g), slice(None)) + k]  # (cin_g, cout_g)
            part = np.einsum("nc...,co->no...", input[:, g * cin_g:(g + 1) * cin_g], w)
            out[:, g * cout_g:(g + 1) * cout_g][target] += part
    crop = (slice(None), slice(None)) + tuple(slice(padding[j], full[j] - padding[j]) for j in range(d))
    out = out[crop]
    if bias is not None:
        out += bias.reshape((1, -1) + (1,) * d)
    return out


def _convolution_ref(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    if transposed:
        return _conv_transpose_ref(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return _conv_ref(input, weight, bias, stride, padding, dilation, groups)


def _backward_ref(grad_output, input, weight, stride, padding, dilation, transposed, output_padding, groups,
                  output_mask):
    """The gradients as the Jacobian's transpose applied to grad_output: the convolution is linear in input
    and in weight, so each gradient's entry k is <grad_output, conv(e_k)>."""
    def basis_grads(shape, conv_of):
        g = np.zeros(shape)
        for idx in np.ndindex(*shape):
            e = np.zeros(shape)
            e[idx] = 1.0
            g[idx] = np.sum(grad_output * conv_of(e))
        return g

    conv = lambda x, w: _convolution_ref(x, w, None, stride, padding, dilation, transposed, output_padding, groups)
    gi = basis_grads(input.shape, lambda e: conv(e, weight)) if output_mask[0] else np.zeros(0)
    gw = basis_grads(weight.shape, lambda e: conv(input, e)) if output_mask[1] else np.zeros(0)
    gb = grad_output.sum(axis=(0,) + tuple(range(2, grad_output.ndim))) if output_mask[2] else np.zeros(0)
    return gi, gw, gb


def _unbatched(ref):
    def run(input, *args, **kwargs):
        return ref(input[None], *args, **kwargs)[0]
    return run


def _block_positions(h, w, kernel_size, dilation, padding, stride):
    """(block l, kernel offset kk) -> the image position (y, x) it reads, or None in the padding."""
    oh = (h + 2 * padding[0] - dilation[0] * (kernel_size[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kernel_size[1] - 1) - 1) // stride[1] + 1
    for l, (by, bx) in enumerate(itertools.product(range(oh), range(ow))):
        for kk, (ky, kx) in enumerate(itertools.product(range(kernel_size[0]), range(kernel_size[1]))):
            y = by * stride[0] - padding[0] + ky * dilation[0]
            x = bx * stride[1] - padding[1] + kx * dilation[1]
            yield l, kk, ((y, x) if 0 <= y < h and 0 <= x < w else None)


def _im2col_ref(self, kernel_size, dilation, padding, stride):
    k = kernel_size[0] * kernel_size[1]
    cols = {}
    for l, kk, pos in _block_positions(*self.shape[-2:], kernel_size, dilation, padding, stride):
        cols[(kk, l)] = self[..., pos[0], pos[1]] if pos else np.zeros(self.shape[:-2])
    n_l = max(l for _, l in cols) + 1
    out = np.stack([np.stack([cols[(kk, l)] for l in range(n_l)], -1) for kk in range(k)], -2)  # (..., C, K, L)
    return out.reshape(self.shape[:-3] + (self.shape[-3] * k, n_l))


def _col2im_ref(self, output_size, kernel_size, dilation, padding, stride):
    k = kernel_size[0] * kernel_size[1]
    cols = self.reshape(self.shape[:-2] + (self.shape[-2] // k, k, self.shape[-1]))
    out = np.zeros(self.shape[:-2] + (self.shape[-2] // k,) + tuple(output_size))
    for l, kk, pos in _block_positions(*output_size, kernel_size, dilation, padding, stride):
        if pos:
            out[..., pos[0], pos[1]] += cols[..., kk, l]
    return out


def numpy_cases():
    """Full overload name -> (sample, NumPy reference of the sample's arguments as float64 arrays)."""
    return {
        "im2col": (lambda: {"self": _t((2, 3, 5, 6), 30), "kernel_size": (2, 3), "dilation": (1, 2), "padding": (1, 0),
                            "stride": (2, 1)}, _im2col_ref),
        "col2im": (lambda: {"self": _t((12, 6), 31), "output_size": (4, 5), "kernel_size": (2, 3), "dilation": (1, 1),
                            "padding": (0, 1), "stride": (2, 2)}, _col2im_ref),
        "convolution": (
            lambda: {"input": _t((2, 4, 5, 4), 0), "weight": _t((6, 2, 3, 2), 1), "bias": _t((6,), 2),
                     "stride": (2, 1), "padding": (1, 0), "dilation": (1, 2), "transposed": False,
                     "output_padding": (0, 0), "groups": 2},
            _convolution_ref),
        "convolution_backward": (
            lambda: {"grad_output": _t((2, 4, 5, 3), 3), "input": _t((2, 2, 2, 3), 4), "weight": _t((2, 2, 2, 1), 5),
                     "stride": (2, 1), "padding": (0, 0), "dilation": (1, 1), "transposed": True,
                     "output_padding": (1, 0), "groups": 2, "output_mask": (True, True, True)},
            _backward_ref),
        "conv1d": (lambda: {"input": _t((2, 3, 7), 6), "weight": _t((4, 3, 3), 7), "bias": _t((4,), 8), "stride": 2,
                            "padding": 1},
                   lambda input, weight, bias, stride, padding: _conv_ref(input, weight, bias, stride, padding, 1, 1)),
        "conv2d": (lambda: {"input": _t((3, 5, 6), 9), "weight": _t((2, 3, 2, 3), 10), "dilation": (2, 1)},
                   lambda input, weight, dilation: _unbatched(_conv_ref)(input, weight, None, [1, 1], [0, 0], dilation, 1)),
        "conv3d": (lambda: {"input": _t((1, 2, 3, 4, 3), 11), "weight": _t((2, 1, 2, 2, 2), 12), "groups": 2,
                            "padding": (1, 0, 1)},
                   lambda input, weight, groups, padding: _conv_ref(input, weight, None, [1, 1, 1], padding, [1, 1, 1], 2)),
        "conv1d.padding": (lambda: {"input": _t((2, 2, 6), 13), "weight": _t((3, 2, 4), 14), "padding": "same"},
                           lambda input, weight, padding: _conv_ref(np.pad(input, [(0, 0), (0, 0), (1, 2)]), weight, None,
                                                                    [1], [0], [1], 1)),
        "conv2d.padding": (lambda: {"input": _t((1, 2, 5, 4), 15), "weight": _t((2, 2, 3, 3), 16), "padding": "same",
                                    "dilation": (1, 2)},
                           lambda input, weight, padding, dilation: _conv_ref(input, weight, None, [1, 1], [1, 2],
                                                                              dilation, 1)),
        "conv3d.padding": (lambda: {"input": _t((1, 1, 3, 3, 3), 17), "weight": _t((1, 1, 2, 2, 2), 18),
                                    "padding": "valid"},
                           lambda input, weight, padding: _conv_ref(input, weight, None, [1] * 3, [0] * 3, [1] * 3, 1)),
        "conv_transpose1d": (
            lambda: {"input": _t((2, 4, 5), 19), "weight": _t((4, 3, 3), 20), "bias": _t((6,), 21), "stride": 3,
                     "padding": 1, "output_padding": 2, "groups": 2},
            lambda input, weight, bias, stride, padding, output_padding, groups:
                _conv_transpose_ref(input, weight, bias, stride, padding, output_padding, groups, [1])),
        "conv_transpose2d.input": (
            lambda: {"input": _t((3, 4, 3), 22), "weight": _t((3, 2, 2, 3), 23), "stride": (2, 1), "dilation": (1, 2)},
            lambda input, weight, stride, dilation:
                _unbatched(_conv_transpose_ref)(input, weight, None, stride, [0, 0], [0, 0], 1, dilation)),
        "conv_transpose3d.input": (
            lambda: {"input": _t((1, 2, 2, 3, 2), 24), "weight": _t((2, 1, 2, 1, 2), 25), "padding": (1, 0, 0)},
            lambda input, weight, padding:
                _conv_transpose_ref(input, weight, None, [1] * 3, padding, [0] * 3, 1, [1] * 3)),
    }


# A str for padding is one of conv's overloads: another str is refused as PyTorch refuses it.
STRING_ARGS = {name: {"padding": "Invalid padding string"} for name in ("conv1d", "conv2d", "conv3d")}

# Sums of products in float32 against the float64 reference.
TOLERANCES = {name: {"float32": (1e-5, 1e-5)} for name in numpy_cases()}

# (code, exception type, substrings of the message), run in a subprocess. Messages checked against
# PyTorch 2.13.
ERRORS = [
    ("tl.nn.functional.conv2d(tl.ones(1, 4, 5, 5), tl.ones(4, 3, 3, 3))", "RuntimeError",
     ["Given groups=1, weight of size [4, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 channels, but got 4 "
      "channels instead"]),
    ("tl.nn.functional.conv2d(tl.ones(1, 3, 2, 2), tl.ones(4, 3, 3, 3))", "RuntimeError",
     ["Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than "
      "actual input size"]),
    ("tl.nn.functional.conv2d(tl.ones(3, 5), tl.ones(4, 3, 3, 3))", "RuntimeError",
     ["Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [3, 5]"]),
    ("tl.nn.functional.conv2d(tl.ones(1, 3, 5, 5), tl.ones(4, 3, 3, 3), stride=0)", "RuntimeError",
     ["non-positive stride is not supported"]),
    ("tl.nn.functional.conv2d(tl.ones(1, 3, 5, 5), tl.ones(4, 3, 3, 3), padding=-1)", "RuntimeError",
     ["negative padding is not supported"]),
    ("tl.nn.functional.conv2d(tl.ones(1, 3, 5, 5), tl.ones(4, 3, 3, 3), groups=0)", "RuntimeError",
     ["non-positive groups is not supported"]),
    ("tl.nn.functional.conv2d(tl.ones(1, 3, 5, 5), tl.ones(4, 3, 3, 3), padding='same', stride=2)", "RuntimeError",
     ["padding='same' is not supported for strided convolutions"]),
    ("tl.nn.functional.conv2d(tl.ones(1, 3, 5, 5), tl.ones(4, 3, 3, 3), padding='foo')", "RuntimeError",
     ["Invalid padding string: 'foo'"]),
    ("tl.nn.functional.conv2d(tl.ones(1, 3, 5, 5), tl.ones(4, 3, 3, 3), tl.ones(3))", "RuntimeError",
     ["Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias of size "
      "[3] instead"]),
    ("tl.nn.functional.conv2d(tl.ones(1, 3, 5, 5).double(), tl.ones(4, 3, 3, 3))", "RuntimeError",
     ["expected scalar type Double but found Float"]),
    ("tl.nn.functional.conv_transpose2d(tl.ones(1, 3, 5, 5), tl.ones(3, 4, 3, 3), output_padding=1)", "RuntimeError",
     ["output padding must be smaller than either stride or dilation"]),
]
