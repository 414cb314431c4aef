"""Samples, NumPy references and error cases for padding (constant_pad_nd, the index-mapping pad
_pad_indexed and its backward, reflection/replication_pad1d/2d/3d, _pad_circular, F.pad); part of
torchlite.testing's op database."""
import numpy as np

from .. import _helpers as h

_NUMPY_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap", "constant": "constant"}


def _t(shape, seed):
    return h.make(shape, "float32", h.rng_for("pad", shape, seed))


def _pad_ref(self, pad, mode="constant", value=None):
    """NumPy's np.pad for the positive pads; negative pads crop: after padding for reflect, replicate and
    constant (which map positions of the original input), before it for circular (which wraps around what
    is left)."""
    x = np.asarray(self)
    d = len(pad) // 2
    pairs = [(pad[2 * (d - 1 - j)], pad[2 * (d - 1 - j) + 1]) for j in range(d)]
    lead = x.ndim - d
    crop = tuple([slice(None)] * lead + [slice(max(-l, 0), x.shape[lead + j] - max(-r, 0) if r < 0 else None)
                                         for j, (l, r) in enumerate(pairs)])
    widths = [(0, 0)] * lead + [(max(l, 0), max(r, 0)) for l, r in pairs]
    kwargs = {"constant_values": value or 0} if mode == "constant" else {}
    if mode == "circular":  # np.pad wraps around more than once where the pad exceeds what is left
        return np.pad(x[crop], widths, mode="wrap")
    padded = np.pad(x, widths, mode=_NUMPY_MODES[mode], **kwargs)
    out_crop = tuple([slice(None)] * lead + [slice(max(-l, 0), padded.shape[lead + j] - max(-r, 0))
                                             for j, (l, r) in enumerate(pairs)])
    return padded[out_crop]


def _pad_backward_ref(grad_output, self, pad, mode):
    """The transpose of the forward map: each output's gradient added at the input position it reads,
    found by padding the positions themselves."""
    d = len(pad) // 2
    plane = self.shape[-d:]
    lead = int(np.prod(self.shape[:-d]))
    source = _pad_ref(np.arange(int(np.prod(plane))).reshape(plane), pad, mode).reshape(-1)
    g = grad_output.reshape(lead, -1)
    grad = np.zeros((lead, int(np.prod(plane))))
    for p in range(lead):
        np.add.at(grad[p], source, g[p])
    return grad.reshape(self.shape)


def numpy_cases():
    """Full overload name -> (sample, NumPy reference of the sample's arguments as float64 arrays)."""
    return {
        "constant_pad_nd": (lambda: {"self": _t((2, 3, 4), 0), "pad": (1, -1, 2, 0), "value": 1.5},
                            lambda self, pad, value: _pad_ref(self, pad, "constant", value)),
        "_pad_indexed": (lambda: {"self": _t((2, 3, 5), 1), "pad": (-1, 3, 2, -1), "mode": "circular"},
                         _pad_ref),
        "_pad_indexed_backward": (
            lambda: {"grad_output": _t((2, 7, 6), 2), "self": _t((2, 4, 5), 3), "pad": (2, -1, 1, 2),
                     "mode": "reflect"},
            _pad_backward_ref),
        "reflection_pad1d": (lambda: {"self": _t((2, 3, 5), 4), "padding": (4, 2)},
                             lambda self, padding: _pad_ref(self, padding, "reflect")),
        "reflection_pad2d": (lambda: {"self": _t((3, 4, 5), 5), "padding": (1, 3, -1, 2)},
                             lambda self, padding: _pad_ref(self, padding, "reflect")),
        "reflection_pad3d": (lambda: {"self": _t((1, 2, 3, 4, 3), 6), "padding": (1, 2, 0, 3, 2, 1)},
                             lambda self, padding: _pad_ref(self, padding, "reflect")),
        "replication_pad1d": (lambda: {"self": _t((3, 4), 7), "padding": (3, -1)},
                              lambda self, padding: _pad_ref(self, padding, "replicate")),
        "replication_pad2d": (lambda: {"self": _t((2, 2, 3, 4), 8), "padding": (2, 5, 3, 1)},
                              lambda self, padding: _pad_ref(self, padding, "replicate")),
        "replication_pad3d": (lambda: {"self": _t((2, 2, 3, 2), 9), "padding": (1, 1, 2, 0, 0, 2)},
                              lambda self, padding: _pad_ref(self, padding, "replicate")),
        "_pad_circular": (lambda: {"self": _t((2, 3, 4, 5), 10), "pad": (2, 5, 4, -1)},
                          lambda self, pad: _pad_ref(self, pad, "circular")),
        "pad": (lambda: {"self": _t((2, 3, 4), 11), "pad": (2, 1, 0, 3, 1, 1), "mode": "constant", "value": -2.0},
                _pad_ref),
    }


GRADCHECK_SAMPLES = {"_pad_indexed_backward": h.float64_backward_sample(numpy_cases, "_pad_indexed_backward")}

# Sums in float32 (several outputs read one input).
TOLERANCES = {"_pad_indexed_backward": {"float32": (1e-6, 1e-6)}}

# (code, exception type, substrings of the message), run in a subprocess. Messages checked against
# PyTorch 2.13.
ERRORS = [
    ("tl.nn.functional.pad(tl.ones(1, 2, 3), (3, 3), mode='reflect')", "RuntimeError",
     ["Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 3) "
      "at dimension 2 of input [1, 2, 3]"]),
    ("tl.nn.functional.pad(tl.ones(1, 2, 3, 4), (1, 1, 3, 3), mode='reflect')", "RuntimeError",
     ["Argument #6: Padding size should be less than the corresponding input dimension"]),
    ("tl.nn.functional.pad(tl.ones(1, 2, 3), (4, 2), mode='circular')", "RuntimeError",
     ["Padding value causes wrapping around more than once."]),
    ("tl.nn.functional.pad(tl.ones(1, 4), (-3, -3), mode='circular')", "RuntimeError",
     ["Negative padding value is resulting in an empty dimension"]),
    ("tl.nn.functional.pad(tl.ones(2, 3), (1,))", "RuntimeError", ["Padding length must be divisible by 2"]),
    ("tl.nn.functional.pad(tl.ones(2, 3), (1, 1, 1, 1, 1, 1))", "RuntimeError",
     ["Padding length should be less than or equal to two times the input dimension but got padding length 6 "
      "and input of dimension 2"]),
    ("tl.nn.functional.pad(tl.ones(2, 3), (1, 1), mode='foo')", "NotImplementedError",
     ["Unrecognised padding mode foo"]),
    ("tl.nn.functional.pad(tl.ones(2, 3), (1, 1), mode='reflect', value=2.0)", "RuntimeError",
     ['Padding mode "reflect" doesn\'t take in value argument']),
    ("tl.nn.functional.pad(tl.ones(3), (1, 1), mode='replicate')", "NotImplementedError",
     ["Padding size 2 is not supported for 1D input tensor."]),
    ("tl.nn.functional.pad(tl.ones(1, 0, 3), (1, 1), mode='reflect')", "RuntimeError",
     ["Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
      "input, but got: [1, 0, 3]"]),
    ("tl.nn.functional.pad(tl.ones(2, 3, dtype=tl.bool), (1, 1), mode='reflect')", "NotImplementedError",
     ['"reflection_pad1d" not implemented for \'Bool\'']),
    ("tl.constant_pad_nd(tl.ones(2, 3), (1,))", "RuntimeError", ["Length of pad must be even but instead it equals 1"]),
    ("tl.constant_pad_nd(tl.ones(2, 3), (-2, -2))", "RuntimeError",
     ["constant_pad_nd: the padding (-2, -2) of dimension 1 of size 3 gives a negative size -1"]),
    ("tl.nn.functional.reflection_pad1d(tl.ones(2, 3), (1, 1, 1))", "RuntimeError",
     ["padding size is expected to be 2, but got: 3"]),
]
