"""Samples, NumPy references and error cases for nn.functional's layers and activations written as
composites (gelu and its two pointwise forms, glu, prelu, pixel_shuffle / pixel_unshuffle, one_hot,
embedding, bilinear, scaled_dot_product_attention); part of torchlite.testing's op database."""
import math

import numpy as np

import torchlite as tl

from .. import _helpers as h

_ERF = np.vectorize(math.erf, otypes=[np.float64])


def _t(shape, seed, domain=None):
    return h.make(shape, "float32", h.rng_for("nn_layers", shape, seed), domain=domain)


def _gelu_erf(self):
    return 0.5 * self * (1 + _ERF(self / math.sqrt(2)))


def _gelu_tanh(self):
    return 0.5 * self * (1 + np.tanh(math.sqrt(2 / math.pi) * (self + 0.044715 * self ** 3)))


POINTWISE_REFS = {"_gelu_erf": _gelu_erf, "_gelu_tanh": _gelu_tanh}


def _embedding_sparse_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    out = np.zeros((num_weights, grad_output.shape[-1]))
    rows = indices.astype(np.int64).reshape(-1)
    np.add.at(out, rows, grad_output.reshape(len(rows), -1))
    out[padding_idx] = 0
    return out


def _pixel_shuffle(self, upscale_factor):
    r = upscale_factor
    *lead, c, hh, ww = self.shape
    out = np.zeros((*lead, c // (r * r), hh * r, ww * r))
    for k in range(c):  # channel k = (c', i, j) goes to position (h r + i, w r + j) of channel c'
        out[..., k // (r * r), (k // r) % r::r, k % r::r] = self[..., k, :, :]
    return out


def _pixel_unshuffle(self, downscale_factor):
    r = downscale_factor
    *lead, c, hh, ww = self.shape
    out = np.zeros((*lead, c * r * r, hh // r, ww // r))
    for k in range(c * r * r):
        out[..., k, :, :] = self[..., k // (r * r), (k // r) % r::r, k % r::r]
    return out


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    s = scale if scale is not None else 1 / math.sqrt(query.shape[-1])
    scores = query @ np.swapaxes(key, -1, -2) * s
    if is_causal:
        scores = np.where(np.tril(np.ones(scores.shape[-2:], dtype=bool)), scores, -np.inf)
    elif attn_mask is not None:
        scores = np.where(attn_mask, scores, -np.inf) if attn_mask.dtype == bool else scores + attn_mask
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ value


def _fused_scores(query, key, attn_mask, is_causal, scale):
    scores = query @ np.swapaxes(key, -1, -2) * scale
    if attn_mask is not None:
        scores = scores + attn_mask
    if is_causal:
        scores = np.where(np.tril(np.ones(scores.shape[-2:], dtype=bool)), scores, -np.inf)
    return scores


def _fused_attention(query, key, value, attn_mask, is_causal, scale):
    scores = _fused_scores(query, key, attn_mask, is_causal, scale)
    m = scores.max(-1, keepdims=True)
    lse = m + np.log(np.exp(scores - m).sum(-1, keepdims=True))
    return np.exp(scores - lse) @ value, lse[..., 0]


def _fused_attention_backward(grad_output, query, key, value, attn_mask, output, logsumexp, is_causal, scale,
                              output_mask):
    p = np.exp(_fused_scores(query, key, attn_mask, is_causal, scale) - logsumexp[..., None])
    dp = grad_output @ np.swapaxes(value, -1, -2)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True)) * scale
    grads = (ds @ key, np.swapaxes(ds, -1, -2) @ query, np.swapaxes(p, -1, -2) @ grad_output)
    return tuple(g if keep else np.zeros((0,)) for g, keep in zip(grads, output_mask))


def _fused_backward_sample():
    q, k, v, m = _t((2, 4, 3), 15), _t((2, 4, 3), 16), _t((2, 4, 2), 17), _t((2, 4, 4), 18)
    out, lse = tl._scaled_dot_product_fused_attention(q, k, v, m, True, 0.7)
    return {"grad_output": _t((2, 4, 2), 19), "query": q, "key": k, "value": v, "attn_mask": m, "output": out,
            "logsumexp": lse, "is_causal": True, "scale": 0.7, "output_mask": (True, False, True)}


def numpy_cases():
    """Full overload name -> (sample, NumPy reference of the sample's arguments as float64 arrays)."""
    return {
        "gelu": (lambda: {"self": _t((3, 4), 0), "approximate": "tanh"},
                 lambda self, approximate: _gelu_tanh(self)),
        "glu": (lambda: {"self": _t((3, 4, 2), 1), "dim": 1},
                lambda self, dim: self[:, :2] / (1 + np.exp(-self[:, 2:]))),
        "prelu": (lambda: {"self": _t((2, 3, 4), 2), "weight": _t((3,), 3, (0.1, 0.5))},
                  lambda self, weight: np.where(self >= 0, self, self * weight.reshape(1, 3, 1))),
        "pixel_shuffle": (lambda: {"self": _t((2, 8, 2, 3), 4), "upscale_factor": 2}, _pixel_shuffle),
        "pixel_unshuffle": (lambda: {"self": _t((1, 2, 4, 6), 5), "downscale_factor": 2}, _pixel_unshuffle),
        "one_hot": (lambda: {"self": tl.tensor([[0, 3], [2, 1]]), "num_classes": 5},
                    lambda self, num_classes: np.eye(num_classes, dtype=np.int64)[self.astype(np.int64)]),
        # (padding_idx and scale_grad_by_freq change the gradient from the derivative on purpose: they are
        # compared with PyTorch in tests/test_nn_functional.py)
        "embedding": (lambda: {"weight": _t((6, 3), 6), "indices": tl.tensor([[1, 5, 1], [0, 2, 5]])},
                      lambda weight, indices: weight[indices.astype(np.int64)]),
        # embedding's weight gradient with sparse=True (compared by its dense values; its sparsity, the padding
        # row and the autograd path in tests/test_sparse.py)
        "_embedding_sparse_backward": (
            lambda: {"grad_output": _t((2, 3, 4), 15), "indices": tl.tensor([[1, 5, 1], [0, 2, 5]]),
                     "num_weights": 7, "padding_idx": 2, "scale_grad_by_freq": False},
            _embedding_sparse_backward),
        "bilinear": (lambda: {"input1": _t((4, 3), 7), "input2": _t((4, 2), 8), "weight": _t((5, 3, 2), 9),
                              "bias": _t((5,), 10)},
                     lambda input1, input2, weight, bias: np.einsum("ni,oij,nj->no", input1, weight, input2) + bias),
        "scaled_dot_product_attention": (
            lambda: {"query": _t((2, 3, 4), 11), "key": _t((2, 5, 4), 12), "value": _t((2, 5, 3), 13),
                     "attn_mask": _t((3, 5), 14), "scale": 0.4},
            _sdpa),
        "_scaled_dot_product_fused_attention": (
            lambda: {"query": _t((2, 3, 4), 11), "key": _t((2, 5, 4), 12), "value": _t((2, 5, 3), 13),
                     "attn_mask": _t((2, 3, 5), 14), "is_causal": False, "scale": 0.4},
            _fused_attention),
        "_scaled_dot_product_fused_attention_backward": (_fused_backward_sample, _fused_attention_backward),
    }


# Sums of float32 products.
TOLERANCES = {name: {"float32": (1e-5, 1e-6)}
              for name in ("bilinear", "scaled_dot_product_attention", "glu", "gelu", "prelu",
                           "_embedding_sparse_backward",
                           "_scaled_dot_product_fused_attention", "_scaled_dot_product_fused_attention_backward")}

# (code, exception type, substrings of the message), run in a subprocess. Messages checked against
# PyTorch 2.13.
ERRORS = [
    ("tl.nn.functional.glu(tl.ones(2, 3))", "RuntimeError", ["Halving dimension must be even, but dimension 1 is size 3"]),
    ("tl.nn.functional.gelu(tl.ones(2), approximate='foo')", "RuntimeError",
     ["approximate argument must be either none or tanh."]),
    ("tl.nn.functional.pixel_shuffle(tl.ones(1, 3, 2, 2), 2)", "RuntimeError",
     ["pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor"]),
    ("tl.nn.functional.one_hot(tl.tensor([0, 5]), 3)", "RuntimeError", ["Class values must be smaller than num_classes."]),
    ("tl.nn.functional.one_hot(tl.tensor([-1, 1]))", "RuntimeError", ["Class values must be non-negative."]),
    ("tl.nn.functional.embedding(tl.tensor([0, 7]), tl.ones(5, 3))", "IndexError", ["index out of range in self"]),
    ("tl.nn.functional.embedding(tl.tensor([0.0]), tl.ones(5, 3))", "RuntimeError",
     ["Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"]),
    ("tl.nn.functional.prelu(tl.ones(2, 3), tl.ones(2))", "RuntimeError",
     ["Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and channel size = 3."]),
    ("tl.nn.functional.dropout2d(tl.ones(2, 3, 4, 5), p=1.5)", "ValueError",
     ["dropout probability has to be between 0 and 1, but got 1.5"]),
    ("tl._scaled_dot_product_fused_attention(tl.ones(2, 3, 4), tl.ones(2, 5, 3), tl.ones(2, 5, 3), None, False, 1.0)",
     "RuntimeError", ["_scaled_dot_product_fused_attention", "key of size [2, 5, 4]", "[2, 5, 3]"]),
    ("tl._scaled_dot_product_fused_attention(tl.ones(2, 3, 4, dtype=tl.int64), tl.ones(2, 5, 4, dtype=tl.int64), "
     "tl.ones(2, 5, 3, dtype=tl.int64), None, False, 1.0)", "TypeError",
     ["_scaled_dot_product_fused_attention", "floating"]),
]
