"""Samples and NumPy references for the fused recurrent cells (_lstm_cell_fused, _gru_cell_fused and their
backward ops) and the LSTM layer (_lstm_layer and its backward); part of torchlite.testing's op database."""
import numpy as np

import torchlite as tl

from .. import _helpers as h

B, H = 3, 4


def _t(shape, seed):
    return h.make(shape, "float32", h.rng_for("rnn", shape, seed))


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _lstm_ref(gates, cx):
    i, f, g, o = np.split(gates, 4, axis=1)
    i, f, g, o = _sig(i), _sig(f), np.tanh(g), _sig(o)
    cy = f * cx + i * g
    return o * np.tanh(cy), cy, np.concatenate([i, f, g, o], axis=1)


def _lstm_backward_ref(grad_hy, grad_cy, cx, cy, workspace, output_mask):
    i, f, g, o = np.split(workspace, 4, axis=1)
    tc = np.tanh(cy)
    gc = grad_cy + grad_hy * o * (1 - tc * tc)
    gates = np.concatenate([gc * g * i * (1 - i), gc * cx * f * (1 - f), gc * i * (1 - g * g),
                            grad_hy * tc * o * (1 - o)], axis=1)
    empty = np.zeros((0,))
    return (gates if output_mask[0] else empty, gc * f if output_mask[1] else empty)


def _lstm_layer_ref(input, h0, c0, w_hh, reverse, w_ih=None, bias=None):
    # With w_ih, input is the layer's input and the gates are its product with w_ih plus the bias.
    input_gates = input if w_ih is None else input @ w_ih.T + (0 if bias is None else bias)
    T = input_gates.shape[0]
    outs, cys, works = [None] * T, [None] * T, [None] * T
    h, c = h0, c0
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        h, c, works[t] = _lstm_ref(input_gates[t] + h @ w_hh.T, c)
        outs[t], cys[t] = h, c
    return np.stack(outs), np.stack(cys), np.stack(works)


def _lstm_layer_backward_ref(grad_output, grad_hn, grad_cn, c0, cy, workspace, w_hh, reverse, w_ih=None):
    T = grad_output.shape[0]
    gates = [None] * T
    dh, dc = grad_hn, grad_cn
    for t in (range(T) if reverse else range(T - 1, -1, -1)):
        p = t + 1 if reverse else t - 1
        g, dc = _lstm_backward_ref(grad_output[t] + dh, dc, cy[p] if 0 <= p < T else c0, cy[t], workspace[t],
                                   (True, True))
        gates[t] = g
        dh = g @ w_hh
    gates = np.stack(gates)
    return gates, dh, dc, (gates @ w_ih if w_ih is not None else np.zeros((0,)))


def _gru_ref(input_gates, hidden_gates, hx):
    ir, iz, i_n = np.split(input_gates, 3, axis=1)
    hr, hz, hn = np.split(hidden_gates, 3, axis=1)
    r, z = _sig(ir + hr), _sig(iz + hz)
    n = np.tanh(i_n + r * hn)
    return (1 - z) * n + z * hx, np.concatenate([r, z, n, hn, hx], axis=1)


def _gru_backward_ref(grad_hy, workspace, output_mask):
    r, z, n, hn, hx = np.split(workspace, 5, axis=1)
    dn = grad_hy * (1 - z) * (1 - n * n)
    dz = grad_hy * (hx - n) * z * (1 - z)
    dr = dn * hn * r * (1 - r)
    empty = np.zeros((0,))
    return (np.concatenate([dr, dz, dn], axis=1) if output_mask[0] else empty,
            np.concatenate([dr, dz, dn * r], axis=1) if output_mask[1] else empty,
            grad_hy * z if output_mask[2] else empty)


def _lstm_backward_sample():
    cx = _t((B, H), 3)
    _, cy, ws = tl._lstm_cell_fused(_t((B, 4 * H), 4), cx)
    return {"grad_hy": _t((B, H), 5), "grad_cy": _t((B, H), 6), "cx": cx, "cy": cy, "workspace": ws,
            "output_mask": (True, False)}


def _gru_backward_sample():
    _, ws = tl._gru_cell_fused(_t((B, 3 * H), 7), _t((B, 3 * H), 8), _t((B, H), 9))
    return {"grad_hy": _t((B, H), 10), "workspace": ws, "output_mask": (True, True, True)}


T, I = 3, 5


def _lstm_layer_sample(reverse):
    # The layer's input with w_ih and a bias, as nn.LSTM calls it (the input-gates form without w_ih: the test
    # of the gates form in tests/test_nn_rnn.py).
    def sample():
        return {"input": _t((T, B, I), 14), "h0": _t((B, H), 15), "c0": _t((B, H), 16),
                "w_hh": _t((4 * H, H), 17), "reverse": reverse, "w_ih": _t((4 * H, I), 25), "bias": _t((4 * H,), 26)}
    return sample


def _lstm_layer_backward_sample():
    c0, w_hh = _t((B, H), 18), _t((4 * H, H), 19)
    _, cy, ws = tl._lstm_layer(_t((T, B, 4 * H), 20), _t((B, H), 21), c0, w_hh, True)
    return {"grad_output": _t((T, B, H), 22), "grad_hn": _t((B, H), 23), "grad_cn": _t((B, H), 24), "c0": c0,
            "cy": cy, "workspace": ws, "w_hh": w_hh, "reverse": True, "w_ih": _t((4 * H, I), 27)}


def numpy_cases():
    """Full overload name -> (sample, NumPy reference of the sample's arguments as float64 arrays)."""
    return {
        "_lstm_cell_fused": (lambda: {"gates": _t((B, 4 * H), 1), "cx": _t((B, H), 2)}, _lstm_ref),
        "_lstm_cell_fused_backward": (_lstm_backward_sample, _lstm_backward_ref),
        "_gru_cell_fused": (
            lambda: {"input_gates": _t((B, 3 * H), 11), "hidden_gates": _t((B, 3 * H), 12), "hx": _t((B, H), 13)},
            _gru_ref),
        "_gru_cell_fused_backward": (_gru_backward_sample, _gru_backward_ref),
        "_lstm_layer": (_lstm_layer_sample(False), _lstm_layer_ref),
        "_lstm_layer_backward": (_lstm_layer_backward_sample, _lstm_layer_backward_ref),
    }


TOLERANCES = {name: {"float32": (1e-5, 1e-5)} for name in ("_lstm_cell_fused", "_lstm_cell_fused_backward",
                                                           "_gru_cell_fused", "_gru_cell_fused_backward",
                                                           "_lstm_layer", "_lstm_layer_backward")}

ERRORS = [
    ("tl._lstm_cell_fused(tl.ones(2, 7), tl.ones(2, 2))", "RuntimeError",
     ["_lstm_cell_fused", "gates of size [2, 8]", "[2, 7]"]),
    ("tl._gru_cell_fused(tl.ones(2, 6), tl.ones(2, 6, dtype=tl.float64), "
     "tl.ones(2, 2))", "RuntimeError", ["_gru_cell_fused", "hidden_gates of dtype Float", "Double"]),
    ("tl._lstm_cell_fused(tl.ones(2, 8, dtype=tl.int64), tl.ones(2, 2, "
     "dtype=tl.int64))", "TypeError", ["_lstm_cell_fused", "floating"]),
    ("tl._lstm_layer(tl.ones(2, 3, 7), tl.ones(3, 2), tl.ones(3, 2), tl.ones(8, 2))", "RuntimeError",
     ["_lstm_layer", "gates of size [2, 3, 8]", "[2, 3, 7]"]),
    ("tl._lstm_layer(tl.ones(2, 3, 8), tl.ones(3, 2), tl.ones(3, 2), tl.ones(8, 3))", "RuntimeError",
     ["_lstm_layer", "w_hh of size [8, 2]", "[8, 3]"]),
    ("tl._lstm_layer_backward(tl.ones(2, 3, 3), tl.ones(3, 2), tl.ones(3, 2), tl.ones(3, 2), tl.ones(2, 3, 2), "
     "tl.ones(2, 3, 8), tl.ones(8, 2))", "RuntimeError", ["_lstm_layer_backward", "grad_output of size [2, 3, 2]"]),
    ("tl._lstm_layer(tl.ones(2, 3, 5), tl.ones(3, 2), tl.ones(3, 2), tl.ones(8, 2), w_ih=tl.ones(8, 4))",
     "RuntimeError", ["_lstm_layer", "w_ih of size [8, 5]", "[8, 4]"]),
    ("tl._lstm_layer(tl.ones(2, 3, 5), tl.ones(3, 2), tl.ones(3, 2), tl.ones(8, 2), w_ih=tl.ones(8, 5), "
     "bias=tl.ones(7))", "RuntimeError", ["_lstm_layer", "bias of size [8]", "[7]"]),
    ("tl._lstm_layer(tl.ones(2, 3, 8), tl.ones(3, 2), tl.ones(3, 2), tl.ones(8, 2), bias=tl.ones(8))",
     "RuntimeError", ["_lstm_layer", "a bias needs w_ih"]),
    ("tl._lstm_layer(tl.ones(2, 4, 5), tl.ones(3, 2), tl.ones(3, 2), tl.ones(8, 2), w_ih=tl.ones(8, 5))",
     "RuntimeError", ["_lstm_layer", "input of size [2, 3, 5]", "[2, 4, 5]"]),
]
