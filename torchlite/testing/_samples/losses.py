"""Samples, references and error cases for the losses (nll_loss and its names, cross_entropy_loss); part of
torchlite.testing's op database."""

import numpy as np

import torchlite as tl

from .. import _helpers as h


def _logp(shape, seed):
    """log-probabilities along dim 1 (dim 0 of a 1-dim shape), as float32."""
    x = h.make(shape, "float32", h.rng_for("losses", shape, seed))
    return tl.log_softmax(x, 0 if len(shape) == 1 else 1)


def _targets(values):
    return tl.tensor(np.asarray(values, dtype=np.int64))


def _classes_last(x):
    """self as (N, ..., C): a (C) input is one batch element."""
    x = x[None] if x.ndim == 1 else x
    return np.moveaxis(x, 1, -1)


def _picked(self, target, weight, ignore_index):
    """Each target's log-probability and weight (0 where ignored), shaped (N, ...)."""
    x = _classes_last(self)
    t = np.asarray(target).astype(np.int64).reshape(x.shape[:-1])
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    w = np.ones(x.shape[-1]) if weight is None else weight
    return np.take_along_axis(x, safe[..., None], -1)[..., 0], np.where(keep, w[safe], 0.0), safe


def _nll(self, target, weight, reduction, ignore_index):
    picked, wt, _ = _picked(self, target, weight, ignore_index)
    loss = -wt * picked
    if reduction == 0:
        return loss.reshape(() if self.ndim == 1 else np.shape(target)), np.array(0.0)
    total = wt.sum()
    return (loss.sum() / total if reduction == 1 else loss.sum()), total


def _nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    _, wt, safe = _picked(self, target, weight, ignore_index)
    g = np.asarray(grad_output).reshape(wt.shape) if reduction == 0 else np.asarray(grad_output).item()
    coef = -wt * g / (np.asarray(total_weight).item() if reduction == 1 else 1.0)
    grad = np.zeros(_classes_last(self).shape)
    np.put_along_axis(grad, safe[..., None], coef[..., None], -1)
    grad = np.moveaxis(grad, -1, 1)
    return grad[0] if self.ndim == 1 else grad


def _log_softmax(x, dim):
    z = x - np.max(x, axis=dim, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=dim, keepdims=True))


def _cross_entropy(self, target, weight, reduction, ignore_index, label_smoothing):
    """Class-index targets with label smoothing, as PyTorch's cross_entropy computes them."""
    logp = _log_softmax(self, 0 if self.ndim == 1 else 1)
    nll = _nll(logp, target, weight, reduction, ignore_index)[0]
    c = logp.shape[0 if self.ndim == 1 else 1]
    _, wt, _ = _picked(logp, target, weight, ignore_index)
    w = np.ones(c) if weight is None else weight
    smooth = -np.sum(_classes_last(logp) * w, axis=-1) * (wt != 0)
    if reduction == 0:
        smooth_loss = smooth.reshape(np.shape(nll))
    elif reduction == 2:
        smooth_loss = smooth.sum()
    else:
        smooth_loss = smooth.sum() / wt.sum()
    return (1 - label_smoothing) * nll + label_smoothing / c * smooth_loss


def _ce_forward(self, target, weight, reduction, ignore_index):
    logp = _log_softmax(self, 0 if self.ndim == 1 else 1)
    output, total = _nll(logp, target, weight, reduction, ignore_index)
    return output, logp, total


def _ce_backward(grad_output, log_probs, target, weight, reduction, ignore_index, total_weight):
    """nll_loss's dense gradient, then log_softmax's backward."""
    g = _nll_backward(grad_output, log_probs, target, weight, reduction, ignore_index, total_weight)
    return g - np.exp(log_probs) * np.sum(g, axis=0 if log_probs.ndim == 1 else 1, keepdims=True)


def numpy_cases():
    """Full overload name -> (sample, NumPy reference of the sample's arguments as float64 arrays)."""
    return {
        "nll_loss_forward": (
            lambda: {"self": _logp((4, 5), 0), "target": _targets([1, 0, -100, 4]),
                     "weight": tl.tensor([0.5, 1.0, 2.0, 1.5, 0.25]), "reduction": 1, "ignore_index": -100},
            _nll),
        "nll_loss_backward": (
            lambda: {"grad_output": h.f32((3, 2)), "self": _logp((3, 4, 2), 1),
                     "target": _targets([[0, 3], [2, 7], [1, 1]]), "weight": None, "reduction": 0,
                     "ignore_index": 7, "total_weight": tl.tensor(0.0)},
            _nll_backward),
        "nll_loss": (lambda: {"self": _logp((5,), 2), "target": _targets(3), "reduction": 2},
                     lambda self, target, reduction: _nll(self, target, None, reduction, -100)[0]),
        # reduction given: PyTorch's torch._C._nn bindings take a missing reduction as none
        "nll_loss_nd": (lambda: {"self": _logp((2, 3, 4), 3), "target": _targets([[0, 2, 1, 1], [2, 2, 0, 1]]),
                                 "reduction": 1},
                        lambda self, target, reduction: _nll(self, target, None, 1, -100)[0]),
        "nll_loss2d": (
            lambda: {"self": _logp((2, 3, 2, 2), 4), "target": _targets([[[0, 1], [2, 0]], [[1, 1], [2, 2]]]),
                     "reduction": 0},
            lambda self, target, reduction: _nll(self, target, None, 0, -100)[0]),
        "_cross_entropy_forward": (
            lambda: {"self": h.f32((4, 5)), "target": _targets([1, 0, -100, 4]),
                     "weight": tl.tensor([0.5, 1.0, 2.0, 1.5, 0.25]), "reduction": 1, "ignore_index": -100},
            _ce_forward),
        "_cross_entropy_backward": (
            lambda: {"grad_output": h.f32((2, 3)), "log_probs": _logp((2, 4, 3), 5),
                     "target": _targets([[0, 3, -100], [2, 2, 1]]), "weight": tl.tensor([0.5, 1.0, 2.0, 1.5]),
                     "reduction": 0, "ignore_index": -100, "total_weight": tl.tensor(0.0)},
            _ce_backward),
        "cross_entropy_loss": (
            lambda: {"self": h.f32((4, 5)), "target": _targets([1, 0, -1, 4]),
                     "weight": tl.tensor([0.5, 1.0, 2.0, 1.5, 0.25]), "reduction": 1, "ignore_index": -1,
                     "label_smoothing": 0.1},
            _cross_entropy),
    }


def _nll_backward_float64():
    """nll_loss_backward's result has self's dtype: self (which gets no gradient) in float64 too, so that the
    numerical derivative is taken in float64."""
    sample = numpy_cases()["nll_loss_backward"][0]()
    return dict(sample, grad_output=sample["grad_output"].double(), self=sample["self"].double())


def _cross_entropy_unweighted():
    """Gradients flow to self only: the class weights get none (as in nll_loss, whose weight is nondiff)."""
    return dict(numpy_cases()["cross_entropy_loss"][0](), weight=None)


GRADCHECK_SAMPLES = {"nll_loss_backward": _nll_backward_float64, "cross_entropy_loss": _cross_entropy_unweighted}

# The mean divides in float32.
TOLERANCES = {name: {"float32": (1e-6, 1e-7)} for name in ("nll_loss_forward", "nll_loss_nd")}
for _name in ("cross_entropy_loss", "_cross_entropy_forward", "_cross_entropy_backward"):
    TOLERANCES[_name] = {"float32": (1e-5, 1e-6)}

# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]). Messages checked against PyTorch 2.13.
ERRORS = [
    ("tl.nn.functional.nll_loss(a, tl.tensor([0, 3]))", "IndexError", ["Target 3 is out of bounds."]),
    ("tl.nn.functional.nll_loss(a, i)", "ValueError",
     ["Expected input batch_size (2) to match target batch_size (3)."]),
    ("tl.nn.functional.nll_loss(a, tl.tensor([0, 1], dtype=tl.int32))", "RuntimeError",
     ["expected target dtype to be Long or Byte, but got Int"]),
    ("tl.nn.functional.nll_loss(a, tl.tensor([0, 1]), weight=tl.ones(2))", "RuntimeError",
     ["weight tensor should be defined either for all 3 classes or no classes but got weight tensor of shape: [2]"]),
    ("tl.nn.functional.cross_entropy(a, tl.tensor([0, 1]), reduction='avg')", "ValueError",
     ["avg is not a valid value for reduction"]),
    ("tl.nn.functional.cross_entropy(a, tl.tensor([0, 1]), label_smoothing=1.5)", "RuntimeError",
     ["label_smoothing must be between 0.0 and 1.0. Got: 1.5"]),
    ("tl.nn.functional.cross_entropy(tl.ones(()), tl.tensor(0))", "ValueError", ["Expected 1 or more dimensions (got 0)"]),
]
