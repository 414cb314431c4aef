"""Samples, NumPy references and error cases for pooling (max and average over 1 to 3 spatial dims, their
backward ops, and the max_pool*/avg_pool* names); part of torchlite.testing's op database."""
import itertools

import numpy as np

import torchlite as tl

from .. import _helpers as h


def _t(shape, seed):
    return h.make(shape, "float32", h.rng_for("pool", shape, seed))


def _k(v, d):
    """An int argument of a max_pool*d/avg_pool*d sample as its d values."""
    return tuple(np.broadcast_to(v, (d,)).tolist())


def _geometry(shape, kernel_size, stride, padding, dilation, ceil_mode):
    d = len(kernel_size)
    k, p, dil = (np.broadcast_to(v, (d,)) for v in (kernel_size, padding, dilation))
    s = k if len(np.atleast_1d(stride)) == 0 else np.broadcast_to(stride, (d,))
    sizes = shape[-d:]
    out = []
    for j in range(d):
        span = sizes[j] + 2 * p[j] - dil[j] * (k[j] - 1) - 1 + (s[j] - 1 if ceil_mode else 0)
        o = span // s[j] + 1
        if ceil_mode and (o - 1) * s[j] >= sizes[j] + p[j]:
            o -= 1
        out.append(int(o))
    return d, k, s, p, dil, sizes, out


def _windows(self, kernel_size, stride, padding, dilation, ceil_mode):
    """For each plane and output position: the flat in-plane positions of its window inside the input."""
    d, k, s, p, dil, sizes, out = _geometry(self.shape, kernel_size, stride, padding, dilation, ceil_mode)
    for o in itertools.product(*[range(n) for n in out]):
        positions = []
        for kk in itertools.product(*[range(n) for n in k]):
            x = [o[j] * s[j] - p[j] + kk[j] * dil[j] for j in range(d)]
            if all(0 <= x[j] < sizes[j] for j in range(d)):
                positions.append(int(np.ravel_multi_index(x, sizes)))
        yield o, positions
    return


def _max_pool_ref(self, kernel_size, stride, padding, dilation, ceil_mode):
    d, *_, out = _geometry(self.shape, kernel_size, stride, padding, dilation, ceil_mode)
    planes = self.reshape(-1, int(np.prod(self.shape[-d:])))
    values = np.zeros((planes.shape[0], *out))
    indices = np.zeros((planes.shape[0], *out), dtype=np.int64)
    for o, positions in _windows(self, kernel_size, stride, padding, dilation, ceil_mode):
        best = [positions[int(np.argmax(row[positions]))] for row in planes]  # no NaN in the samples
        values[(slice(None),) + o] = planes[np.arange(len(best)), best]
        indices[(slice(None),) + o] = best
    lead = self.shape[:-d]
    return values.reshape(lead + tuple(out)), indices.reshape(lead + tuple(out))


def _max_pool_backward_ref(grad_output, self, indices, kernel_size):
    d = len(kernel_size)
    grad = np.zeros((int(np.prod(self.shape[:-d])), int(np.prod(self.shape[-d:]))))
    g = grad_output.reshape(grad.shape[0], -1)
    idx = np.asarray(indices).astype(np.int64).reshape(grad.shape[0], -1)
    for plane in range(grad.shape[0]):
        np.add.at(grad[plane], idx[plane], g[plane])
    return grad.reshape(self.shape)


def _avg_divisors(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    d, k, s, p, _, sizes, out = _geometry(self.shape, kernel_size, stride, padding, 1, ceil_mode)
    for o, positions in _windows(self, kernel_size, stride, padding, 1, ceil_mode):
        size = 1
        for j in range(d):
            start = o[j] * s[j] - p[j]
            size *= min(start + k[j], sizes[j] + p[j]) - start
        divisor = divisor_override if divisor_override else (size if count_include_pad else len(positions))
        yield o, positions, divisor


def _avg_pool_ref(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=None):
    d, *_, out = _geometry(self.shape, kernel_size, stride, padding, 1, ceil_mode)
    planes = self.reshape(-1, int(np.prod(self.shape[-d:])))
    result = np.zeros((planes.shape[0], *out))
    for o, positions, divisor in _avg_divisors(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                               divisor_override):
        result[(slice(None),) + o] = planes[:, positions].sum(axis=1) / divisor
    return result.reshape(self.shape[:-d] + tuple(out))


def _avg_pool_backward_ref(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override):
    d = len(kernel_size)
    grad = np.zeros((int(np.prod(self.shape[:-d])), int(np.prod(self.shape[-d:]))))
    g = grad_output.reshape((grad.shape[0],) + grad_output.shape[-d:])
    for o, positions, divisor in _avg_divisors(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                               divisor_override):
        for pos in positions:
            grad[:, pos] += g[(slice(None),) + o] / divisor
    return grad.reshape(self.shape)


def _max_backward_sample():
    x = _t((2, 3, 5, 4), 2)
    _, indices = tl.nn.functional.max_pool2d(x, (2, 3), stride=1, padding=(1, 0), return_indices=True)
    return {"grad_output": _t(tuple(indices.shape), 3), "self": x, "indices": indices, "kernel_size": (2, 3)}


def _adaptive_boxes(shape, output_size):
    """For each output position of the last len(output_size) dims: its box of input slices."""
    d = len(output_size)
    sizes = shape[-d:]
    for o in itertools.product(*[range(m) for m in output_size]):
        yield o, tuple(slice(o[j] * sizes[j] // output_size[j], -(-(o[j] + 1) * sizes[j] // output_size[j]))
                       for j in range(d))


def _adaptive_avg_ref(self, output_size):
    out = np.zeros(self.shape[:-len(output_size)] + tuple(output_size))
    for o, box in _adaptive_boxes(self.shape, output_size):
        out[(Ellipsis,) + o] = self[(Ellipsis,) + box].reshape(self.shape[:-len(output_size)] + (-1,)).mean(-1)
    return out


def _adaptive_avg_backward_ref(grad_output, self, output_size):
    grad = np.zeros(self.shape)
    for o, box in _adaptive_boxes(self.shape, output_size):
        count = np.prod([b.stop - b.start for b in box])
        grad[(Ellipsis,) + box] += (grad_output[(Ellipsis,) + o] / count).reshape(
            grad_output.shape[:-len(output_size)] + (1,) * len(output_size))
    return grad


def _adaptive_max_ref(self, output_size):
    d = len(output_size)
    lead = self.shape[:-d]
    values, indices = np.zeros(lead + tuple(output_size)), np.zeros(lead + tuple(output_size), dtype=np.int64)
    flat = np.arange(int(np.prod(self.shape[-d:]))).reshape(self.shape[-d:])
    for o, box in _adaptive_boxes(self.shape, output_size):
        window = self[(Ellipsis,) + box].reshape(lead + (-1,))
        at = window.argmax(-1)
        values[(Ellipsis,) + o] = window.max(-1)
        indices[(Ellipsis,) + o] = flat[box].reshape(-1)[at]
    return values, indices


def numpy_cases():
    """Full overload name -> (sample, NumPy reference of the sample's arguments as float64 arrays)."""
    return {
        "_max_pool_with_indices": (
            lambda: {"self": _t((2, 3, 6, 5), 0), "kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0),
                     "dilation": (1, 2), "ceil_mode": True},
            _max_pool_ref),
        "_max_pool_backward": (_max_backward_sample, _max_pool_backward_ref),
        "_avg_pool": (
            lambda: {"self": _t((2, 3, 7, 6), 4), "kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1),
                     "ceil_mode": True, "count_include_pad": False, "divisor_override": None},
            _avg_pool_ref),
        "_avg_pool_backward": (
            lambda: {"grad_output": _t((3, 4, 4), 5), "self": _t((3, 7, 6), 6), "kernel_size": (3, 2),
                     "stride": (2, 2), "padding": (1, 1), "ceil_mode": False, "count_include_pad": True,
                     "divisor_override": None},
            _avg_pool_backward_ref),
        "max_pool1d": (lambda: {"self": _t((2, 3, 9), 7), "kernel_size": 3, "stride": 2, "padding": 1},
                       lambda self, kernel_size, stride, padding: _max_pool_ref(self, _k(kernel_size, 1), stride, padding,
                                                                                1, False)[0]),
        "max_pool2d": (lambda: {"self": _t((3, 6, 6), 8), "kernel_size": 2},
                       lambda self, kernel_size: _max_pool_ref(self, _k(kernel_size, 2), (), 0, 1, False)[0]),
        "max_pool3d": (lambda: {"self": _t((1, 2, 4, 5, 4), 9), "kernel_size": (2, 3, 2), "ceil_mode": True},
                       lambda self, kernel_size, ceil_mode: _max_pool_ref(self, kernel_size, (), 0, 1, True)[0]),
        "max_pool1d_with_indices": (
            lambda: {"self": _t((3, 8), 10), "kernel_size": 2, "dilation": 2},
            lambda self, kernel_size, dilation: _max_pool_ref(self, _k(kernel_size, 1), (), 0, dilation, False)),
        "max_pool2d_with_indices": (
            lambda: {"self": _t((2, 2, 5, 5), 11), "kernel_size": 3, "stride": 2, "padding": 1},
            lambda self, kernel_size, stride, padding: _max_pool_ref(self, _k(kernel_size, 2), stride, padding, 1, False)),
        "max_pool3d_with_indices": (
            lambda: {"self": _t((2, 3, 4, 4), 12), "kernel_size": 2, "stride": 1},
            lambda self, kernel_size, stride: _max_pool_ref(self, _k(kernel_size, 3), stride, 0, 1, False)),
        "avg_pool1d": (lambda: {"self": _t((2, 3, 9), 13), "kernel_size": 4, "stride": 3, "padding": 2,
                                "ceil_mode": True},
                       lambda self, kernel_size, stride, padding, ceil_mode:
                           _avg_pool_ref(self, _k(kernel_size, 1), stride, padding, True, True)),
        "avg_pool2d": (lambda: {"self": _t((2, 3, 5, 5), 14), "kernel_size": 2, "divisor_override": 3},
                       lambda self, kernel_size, divisor_override:
                           _avg_pool_ref(self, _k(kernel_size, 2), (), 0, False, True, 3)),
        "_adaptive_avg_pool": (lambda: {"self": _t((2, 3, 7, 5), 16), "output_size": (3, 4)}, _adaptive_avg_ref),
        "_adaptive_avg_pool_backward": (
            lambda: {"grad_output": _t((3, 2, 4), 17), "self": _t((3, 5, 7), 18), "output_size": (2, 4)},
            _adaptive_avg_backward_ref),
        "_adaptive_max_pool": (lambda: {"self": _t((2, 2, 6, 5), 19), "output_size": (4, 3)}, _adaptive_max_ref),
        "adaptive_avg_pool1d": (lambda: {"self": _t((2, 3, 7), 20), "output_size": 3},
                                lambda self, output_size: _adaptive_avg_ref(self, (3,))),
        "adaptive_avg_pool2d": (lambda: {"self": _t((3, 6, 5), 21), "output_size": (1, 1)}, _adaptive_avg_ref),
        "adaptive_avg_pool3d": (lambda: {"self": _t((1, 2, 3, 4, 5), 22), "output_size": (2, 3, 2)},
                                _adaptive_avg_ref),
        "adaptive_max_pool1d": (lambda: {"self": _t((2, 9), 23), "output_size": 4},
                                lambda self, output_size: _adaptive_max_ref(self, (4,))),
        "adaptive_max_pool2d": (lambda: {"self": _t((1, 2, 5, 6), 24), "output_size": (2, 4)}, _adaptive_max_ref),
        "adaptive_max_pool3d": (lambda: {"self": _t((2, 3, 4, 3), 25), "output_size": (2, 2, 2)}, _adaptive_max_ref),
        "avg_pool3d": (lambda: {"self": _t((1, 2, 5, 4, 6), 15), "kernel_size": 2, "padding": 1,
                                "count_include_pad": False},
                       lambda self, kernel_size, padding, count_include_pad:
                           _avg_pool_ref(self, _k(kernel_size, 3), (), padding, False, False)),
    }


GRADCHECK_SAMPLES = {name: h.float64_backward_sample(numpy_cases, name)
                     for name in ("_max_pool_backward", "_avg_pool_backward", "_adaptive_avg_pool_backward")}

# Sums in float32 (overlapping windows add several gradients into one element).
TOLERANCES = {name: {"float32": (1e-6, 1e-6)}
              for name in ("_avg_pool", "_avg_pool_backward", "_max_pool_backward", "avg_pool1d", "avg_pool2d",
                           "avg_pool3d", "_adaptive_avg_pool", "_adaptive_avg_pool_backward", "adaptive_avg_pool1d",
                           "adaptive_avg_pool2d", "adaptive_avg_pool3d")}

# (code, exception type, substrings of the message), run in a subprocess. Messages checked against
# PyTorch 2.13.
ERRORS = [
    ("tl.nn.functional.max_pool2d(tl.ones(1, 2, 5, 5), 2, padding=2)", "RuntimeError",
     ["pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1"]),
    ("tl.nn.functional.max_pool2d(tl.ones(1, 2, 1, 1), 2)", "RuntimeError",
     ["Given input size: (2x1x1). Calculated output size: (2x0x0). Output size is too small"]),
    ("tl.nn.functional.max_pool2d(tl.ones(5, 5), 2)", "RuntimeError",
     ["non-empty 3D or 4D (batch mode) tensor expected for input"]),
    ("tl.nn.functional.avg_pool2d(tl.ones(1, 2, 5, 5), 2, stride=0)", "RuntimeError", ["stride should not be zero"]),
    ("tl.nn.functional.avg_pool2d(tl.ones(1, 2, 5, 5), 2, divisor_override=0)", "RuntimeError",
     ["divisor must be not zero"]),
]
