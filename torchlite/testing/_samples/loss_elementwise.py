"""Samples, NumPy references and error cases for the losses computed elementwise (mse, l1, smooth_l1, huber,
binary cross entropy with and without logits, kl_div, soft margin, hinge embedding, margin ranking, cosine
embedding, Poisson NLL, multi margin, triplet margin) and the distances (pairwise_distance,
cosine_similarity); part of torchlite.testing's op database. Targets of 1 or -1 and class indices are
int64, so that gradient checks do not move them across the comparisons that read them."""
import numpy as np

import torchlite as tl

from .. import _helpers as h


def _t(shape, seed, domain=None):
    return h.make(shape, "float32", h.rng_for("loss_elementwise", shape, seed), domain=domain)


def _signs(shape, seed):
    rng = h.rng_for("loss_elementwise signs", shape, seed)
    return tl.tensor(rng.choice([-1, 1], size=shape).astype(np.int64))


def _reduce(loss, reduction):
    return loss if reduction == 0 else (loss.sum() if reduction == 2 else loss.mean())


def _bce(self, target):
    return -(target * np.maximum(np.log(self), -100) + (1 - target) * np.maximum(np.log1p(-self), -100))


def _log_sigmoid(x):
    return -np.logaddexp(0, -x)


def _bce_logits(self, target, weight, pos_weight, reduction):
    log_weight = 1 + (pos_weight - 1) * target if pos_weight is not None else 1
    loss = (1 - target) * self - log_weight * _log_sigmoid(self)
    return _reduce(loss * (weight if weight is not None else 1), reduction)


def _multi_margin(self, target, p, margin, weight, reduction):
    x = self.reshape(-1, self.shape[-1])
    y = np.asarray(target).astype(np.int64).reshape(-1)
    rows = []
    for i in range(x.shape[0]):
        z = np.maximum(0, margin - x[i, y[i]] + x[i]) ** p
        z[y[i]] = 0
        rows.append(z.sum() * (weight[y[i]] if weight is not None else 1) / x.shape[1])
    loss = np.array(rows)
    return _reduce(loss if self.ndim == 2 else loss.reshape(()), reduction)


def _pairwise(x1, x2, p, eps, keepdim=False):
    return np.linalg.norm(x1 - x2 + eps, ord=p, axis=-1, keepdims=keepdim)


def _cosine(x1, x2, dim, eps):
    n1 = np.maximum(np.linalg.norm(x1, axis=dim, keepdims=True), eps)
    n2 = np.maximum(np.linalg.norm(x2, axis=dim, keepdims=True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(axis=dim)


def _cosine_embedding(input1, input2, target, margin, reduction):
    prod = (input1 * input2).sum(-1)
    cos = prod / np.sqrt(((input1 ** 2).sum(-1) + 1e-12) * ((input2 ** 2).sum(-1) + 1e-12))
    loss = np.where(target == 1, 1 - cos, 0) + np.where(target == -1, np.maximum(0, cos - margin), 0)
    return _reduce(loss, reduction)


def _poisson(input, target, log_input, full, eps, reduction):
    loss = np.exp(input) - target * input if log_input else input - target * np.log(input + eps)
    if full:
        with np.errstate(divide="ignore", invalid="ignore"):
            stirling = target * np.log(target) - target + 0.5 * np.log(2 * np.pi * target)
        loss = loss + np.where(target > 1, stirling, 0)
    return _reduce(loss, reduction)


def _smooth_l1(self, target, reduction, beta):
    z = np.abs(self - target)
    return _reduce(np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


def _huber(self, target, reduction, delta):
    z = np.abs(self - target)
    return _reduce(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), reduction)


POINTWISE_REFS = {"_binary_cross_entropy_elementwise": _bce}


def numpy_cases():
    """Full overload name -> (sample, NumPy reference of the sample's arguments as float64 arrays)."""
    return {
        "mse_loss": (lambda: {"self": _t((3, 4), 2), "target": _t((3, 4), 3), "reduction": 1},
                     lambda self, target, reduction: _reduce((self - target) ** 2, reduction)),
        "l1_loss": (lambda: {"self": _t((5,), 4), "target": _t((5,), 5), "reduction": 2},
                    lambda self, target, reduction: _reduce(np.abs(self - target), reduction)),
        "smooth_l1_loss": (lambda: {"self": _t((4, 3), 6), "target": _t((4, 3), 7), "reduction": 0, "beta": 0.7},
                           _smooth_l1),
        "huber_loss": (lambda: {"self": _t((4, 3), 8), "target": _t((4, 3), 9), "reduction": 1, "delta": 0.6},
                       _huber),
        "binary_cross_entropy": (
            lambda: {"self": _t((3, 4), 10, (0.05, 0.95)), "target": _t((3, 4), 11, (0.0, 1.0)),
                     "weight": _t((3, 4), 12, (0.5, 2.0)), "reduction": 2},
            lambda self, target, weight, reduction: _reduce(_bce(self, target) * weight, reduction)),
        "binary_cross_entropy_with_logits": (
            lambda: {"self": _t((3, 4), 13), "target": _t((3, 4), 14, (0.0, 1.0)), "weight": None,
                     "pos_weight": _t((4,), 15, (0.5, 2.0)), "reduction": 1},
            _bce_logits),
        "kl_div": (lambda: {"self": _t((3, 4), 16), "target": _t((3, 4), 17, (0.1, 1.0)), "reduction": 2},
                   lambda self, target, reduction: _reduce(target * (np.log(target) - self), reduction)),
        "soft_margin_loss": (lambda: {"self": _t((3, 4), 18), "target": _signs((3, 4), 19), "reduction": 1},
                             lambda self, target, reduction: _reduce(np.log1p(np.exp(-target * self)), reduction)),
        "hinge_embedding_loss": (
            lambda: {"self": _t((3, 4), 20), "target": _signs((3, 4), 21), "margin": 0.5, "reduction": 0},
            lambda self, target, margin, reduction: np.where(target == 1, self, np.maximum(0, margin - self))),
        "margin_ranking_loss": (
            lambda: {"input1": _t((6,), 22), "input2": _t((6,), 23), "target": _signs((6,), 24), "margin": 0.3,
                     "reduction": 1},
            lambda input1, input2, target, margin, reduction: _reduce(
                np.maximum(0, -target * (input1 - input2) + margin), reduction)),
        "cosine_embedding_loss": (
            lambda: {"input1": _t((4, 5), 25), "input2": _t((4, 5), 26), "target": _signs((4,), 27), "margin": 0.2,
                     "reduction": 0},
            _cosine_embedding),
        "poisson_nll_loss": (
            lambda: {"input": _t((3, 4), 28, (0.2, 2.0)), "target": _t((3, 4), 29, (0.0, 4.0)), "log_input": False,
                     "full": True, "eps": 1e-8, "reduction": 1},
            _poisson),
        "multi_margin_loss": (
            lambda: {"self": _t((4, 5), 30), "target": tl.tensor([1, 0, 4, 2]), "p": 2, "margin": 0.8,
                     "weight": _t((5,), 31, (0.5, 2.0)), "reduction": 2},
            _multi_margin),
        "pairwise_distance": (lambda: {"x1": _t((3, 5), 32), "x2": _t((3, 5), 33), "p": 3.0, "keepdim": True},
                              lambda x1, x2, p, keepdim: _pairwise(x1, x2, p, 1e-6, keepdim)),
        "cosine_similarity": (lambda: {"x1": _t((3, 4, 2), 34), "x2": _t((4, 2), 35), "dim": -2},
                              lambda x1, x2, dim: _cosine(x1, x2, dim, 1e-8)),
        "cdist": (lambda: {"x1": _t((2, 4, 3), 39), "x2": _t((2, 5, 3), 40), "p": 1.5},
                  lambda x1, x2, p: np.linalg.norm(x1[:, :, None] - x2[:, None], ord=p, axis=-1)),
        "pdist": (lambda: {"self": _t((5, 3), 41), "p": 2.0},
                  lambda self, p: np.array([np.linalg.norm(self[i] - self[j]) for i in range(5) for j in range(i + 1, 5)])),
        "triplet_margin_loss": (
            lambda: {"anchor": _t((4, 3), 36), "positive": _t((4, 3), 37), "negative": _t((4, 3), 38),
                     "margin": 1.5, "swap": True, "reduction": 0},
            lambda anchor, positive, negative, margin, swap, reduction: np.maximum(
                0, margin + _pairwise(anchor, positive, 2, 1e-6)
                - np.minimum(_pairwise(anchor, negative, 2, 1e-6), _pairwise(positive, negative, 2, 1e-6)))),
    }


# Sums of float32 products.
TOLERANCES = {name: {"float32": (1e-5, 1e-6)} for name in (
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "kl_div", "soft_margin_loss", "hinge_embedding_loss", "margin_ranking_loss", "cosine_embedding_loss",
    "poisson_nll_loss", "multi_margin_loss", "pairwise_distance", "cosine_similarity", "triplet_margin_loss", "cdist",
    "pdist")}

# (code, exception type, substrings of the message), run in a subprocess. Messages checked against
# PyTorch 2.13.
ERRORS = [
    ("tl.nn.functional.binary_cross_entropy(tl.tensor([1.5]), tl.tensor([1.0]))", "RuntimeError",
     ["all elements of input should be between 0 and 1"]),
    ("tl.nn.functional.binary_cross_entropy(tl.tensor([0.5, 0.5]), tl.tensor([1.0]))", "ValueError",
     ["that is different to the input size", "is deprecated. Please ensure they have the same size."]),
    ("tl.nn.functional.binary_cross_entropy_with_logits(tl.ones(2, 3), tl.ones(2))", "ValueError",
     ["must be the same as input size"]),
    ("tl.nn.functional.l1_loss(tl.ones(2, 3), tl.ones(2, 3), reduction='foo')", "ValueError",
     ["foo is not a valid value for reduction"]),
    ("tl.nn.functional.mse_loss(tl.ones(2, 3), tl.ones(2, 4))", "RuntimeError",
     ["The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"]),
    ("tl.nn.functional.smooth_l1_loss(tl.ones(2), tl.ones(2), beta=-1.0)", "RuntimeError",
     ["smooth_l1_loss does not support negative values for beta."]),
    ("tl.nn.functional.huber_loss(tl.ones(2), tl.ones(2), delta=0.0)", "RuntimeError",
     ["huber_loss does not support non-positive values for delta."]),
    ("tl.nn.functional.multi_margin_loss(tl.ones(2, 3), tl.tensor([0, 1]), p=3)", "ValueError",
     ["only p == 1 and p == 2 supported"]),
    ("tl.nn.functional.multi_margin_loss(tl.ones(2, 3), tl.tensor([0, 3]))", "RuntimeError", ["target out of range"]),
    ("tl.nn.functional.triplet_margin_loss(tl.ones(2, 3), tl.ones(3), tl.ones(2, 3))", "RuntimeError",
     ["The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: "
      "anchor 2D, positive 1D, and negative 2D inputs"]),
    ("tl.cdist(tl.ones(3, 2), tl.ones(2, 1))", "RuntimeError",
     ["X1 and X2 must have the same number of columns. X1: 2 X2: 1"]),
    ("tl.cdist(tl.ones(3, 2), tl.ones(2, 2), p=-1.0)", "RuntimeError", ["cdist only supports non-negative p values"]),
    ("tl.pdist(tl.ones(3))", "RuntimeError", ["pdist only supports 2D tensors, got: 1D"]),
    ("tl.nn.functional.gaussian_nll_loss(tl.ones(2, 3), tl.ones(2, 3), tl.ones(4))", "ValueError",
     ["var is of incorrect size"]),
]
