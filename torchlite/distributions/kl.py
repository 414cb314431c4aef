"""kl_divergence(p, q): KL(p || q) in closed form, looked up in a registry of (type of p, type of q)
pairs that `register_kl` fills."""
import math

import torchlite

from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential
from .laplace import Laplace
from .normal import Normal
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_REGISTRY = {}


def register_kl(type_p, type_q):
    """A decorator: `fn(p, q)` computes KL(p || q) for p an instance of type_p and q of type_q."""
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fn):
        _REGISTRY[type_p, type_q] = fn
        return fn

    return decorator


def _lookup(cls_p, cls_q):
    """The registered function of the closest pair of base classes: the fewest steps up p's class
    hierarchy, then up q's."""
    best, best_rank = None, None
    for (tp, tq), fn in _REGISTRY.items():
        if issubclass(cls_p, tp) and issubclass(cls_q, tq):
            rank = (cls_p.__mro__.index(tp), cls_q.__mro__.index(tq))
            if best_rank is None or rank < best_rank:
                best, best_rank = fn, rank
    return best


def kl_divergence(p, q):
    """KL(p || q), summed over the event dims, of batch shape the broadcast of p's and q's."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return 0.5 * (ratio * ratio + shift * shift - 1) - torchlite.log(ratio)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    a, b = p.probs, q.probs
    return (torchlite.xlogy(a, a) - torchlite.xlogy(a, b)) + (torchlite.xlogy(1 - a, 1 - a) -
                                                              torchlite.xlogy(1 - a, 1 - b))


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms = torchlite.where(q.probs == 0, math.inf, terms)  # p puts mass where q has none
    return torchlite.where(p.probs == 0, 0.0, terms).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1 - torchlite.log(ratio)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -torchlite.log(ratio) + gap / q.scale + ratio * torchlite.exp(-gap / p.scale) - 1


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    inside = (q.low <= p.low) & (p.high <= q.high)
    return torchlite.where(inside, torchlite.log((q.high - q.low) / (p.high - p.low)), math.inf)
