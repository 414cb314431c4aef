"""Samples, NumPy references and error cases for resampling (_upsample, its backward, and
upsample_nearest1d/2d/3d, upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d, upsample_bicubic2d);
part of torchlite.testing's op database. The references build, per spatial dim, the (out x in) matrix of
PyTorch's index rules and apply one per dim; the backward applies their transposes."""
import math

import numpy as np

from .. import _helpers as h


def _t(shape, seed):
    return h.make(shape, "float32", h.rng_for("upsample", shape, seed))


def _cubic(x, a=-0.75):
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _matrix(n_in, n_out, mode, align_corners, scale):
    """The (n_out, n_in) resampling matrix of one dim; scale: the given scale factor or None."""
    m = np.zeros((n_out, n_in))
    if mode in ("nearest", "nearest-exact"):
        s = np.float32(1.0 / scale if scale else n_in / n_out)
        for o in range(n_out):
            offset = np.float32(0.5 if mode == "nearest-exact" else 0.0)
            m[o, min(int(math.floor(np.float32(np.float32(o) + offset) * s)), n_in - 1)] = 1
        return m
    if align_corners:
        s = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        s = 1.0 / scale if scale else n_in / n_out
    for o in range(n_out):
        src = s * o if align_corners else s * (o + 0.5) - 0.5
        if mode == "linear":
            src = max(src, 0.0)
            i0 = int(src)
            lam = src - i0
            i1 = i0 + 1 if i0 < n_in - 1 else i0
            m[o, min(i0, n_in - 1)] += 1 - lam
            m[o, i1] += lam
        else:  # cubic: the four positions around src, clamped into the input
            f = math.floor(src)
            for k in range(-1, 3):
                m[o, min(max(f + k, 0), n_in - 1)] += _cubic(src - (f + k))
    return m


def _apply(x, matrices):
    for j, m in enumerate(matrices):
        x = np.moveaxis(np.tensordot(m, np.moveaxis(x, 2 + j, 0), axes=1), 0, 2 + j)
    return x


def _matrices(shape, output_size, mode, align_corners, scales):
    d = len(output_size)
    scales = list(scales) if scales else [None] * d
    return [_matrix(shape[2 + j], output_size[j], mode, align_corners, scales[j] or None) for j in range(d)]


def _upsample_ref(self, output_size, mode, align_corners, scales):
    return _apply(self, _matrices(self.shape, output_size, mode, align_corners, scales))


def _upsample_backward_ref(grad_output, self, output_size, mode, align_corners, scales):
    return _apply(grad_output, [m.T for m in _matrices(self.shape, output_size, mode, align_corners, scales)])


def _named(mode, align=False):
    def ref(self, output_size, align_corners=align, **scales):
        given = [v for v in scales.values()]
        return _upsample_ref(self, output_size, mode, align_corners, given if any(given) else [])
    return ref


def numpy_cases():
    """Full overload name -> (sample, NumPy reference of the sample's arguments as float64 arrays)."""
    return {
        "_upsample": (lambda: {"self": _t((2, 3, 4, 5), 0), "output_size": (6, 3), "mode": "cubic",
                               "align_corners": False, "scales": (1.5, 0.7)}, _upsample_ref),
        "_upsample_backward": (
            lambda: {"grad_output": _t((2, 2, 7, 3), 1), "self": _t((2, 2, 4, 5), 2), "output_size": (7, 3),
                     "mode": "linear", "align_corners": True, "scales": ()},
            _upsample_backward_ref),
        "upsample_nearest1d": (lambda: {"self": _t((2, 3, 5), 3), "output_size": (8,)}, _named("nearest")),
        "upsample_nearest2d": (lambda: {"self": _t((1, 2, 3, 4), 4), "output_size": (5, 7), "scales_h": 1.7,
                                        "scales_w": 1.75}, _named("nearest")),
        "upsample_nearest3d": (lambda: {"self": _t((1, 2, 3, 2, 4), 5), "output_size": (2, 5, 4)}, _named("nearest")),
        "upsample_linear1d": (lambda: {"self": _t((2, 2, 6), 6), "output_size": (9,), "align_corners": False},
                              _named("linear")),
        "upsample_bilinear2d": (lambda: {"self": _t((2, 2, 4, 3), 7), "output_size": (3, 6), "align_corners": True},
                                _named("linear")),
        "upsample_trilinear3d": (lambda: {"self": _t((1, 2, 2, 3, 3), 8), "output_size": (3, 4, 2),
                                          "align_corners": False}, _named("linear")),
        "upsample_bicubic2d": (lambda: {"self": _t((1, 2, 4, 4), 9), "output_size": (6, 5), "align_corners": False},
                               _named("cubic")),
    }


GRADCHECK_SAMPLES = {"_upsample_backward": h.float64_backward_sample(numpy_cases, "_upsample_backward")}

# Sums of float32 products.
TOLERANCES = {name: {"float32": (1e-5, 1e-6)} for name in numpy_cases()}

# (code, exception type, substrings of the message), run in a subprocess. Messages checked against
# PyTorch 2.13.
ERRORS = [
    ("tl.nn.functional.interpolate(tl.ones(1, 1, 4, 4), size=3, scale_factor=2.0)", "ValueError",
     ["only one of size or scale_factor should be defined"]),
    ("tl.nn.functional.interpolate(tl.ones(1, 1, 4, 4))", "ValueError",
     ["either size or scale_factor should be defined"]),
    ("tl.nn.functional.interpolate(tl.ones(1, 1, 4, 4), size=3, align_corners=True)", "ValueError",
     ["align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"]),
    ("tl.nn.functional.interpolate(tl.ones(1, 1, 4, 4), size=3, mode='linear')", "NotImplementedError",
     ["Got 4D input, but linear mode needs 3D input"]),
    ("tl.nn.functional.interpolate(tl.ones(1, 1, 4, 4), size=3, mode='foo')", "NotImplementedError",
     ["Input Error: Only 3D, 4D and 5D input Tensors supported (got 4D) for the modes"]),
    ("tl.nn.functional.interpolate(tl.ones(1, 1, 4, 4), size=(2, 3, 4))", "ValueError",
     ["Input and output must have the same number of spatial dimensions"]),
]
