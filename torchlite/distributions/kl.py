"""kl_divergence(p, q): KL(p || q) in closed form, looked up in a registry of (type of p, type of q)
pairs that `register_kl` fills."""
import math

import torchlite

from .bernoulli import Bernoulli
from .binomial import Binomial, Geometric
from .categorical import Categorical
from .dirichlet import Beta, Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multinomial import OneHotCategorical
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
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


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    a1, b1, a2, b2 = p.concentration, p.rate, q.concentration, q.rate
    return ((a1 - a2) * torchlite.digamma(a1) - torchlite.lgamma(a1) + torchlite.lgamma(a2)
            + a2 * (torchlite.log(b1) - torchlite.log(b2)) + a1 * (b2 - b1) / b1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0 = a.sum(-1)
    return (torchlite.lgamma(a0) - torchlite.lgamma(a).sum(-1) - torchlite.lgamma(b.sum(-1))
            + torchlite.lgamma(b).sum(-1)
            + ((a - b) * (torchlite.digamma(a) - torchlite.digamma(a0).unsqueeze(-1))).sum(-1))


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    return _kl_dirichlet_dirichlet(p._dirichlet, q._dirichlet)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return torchlite.xlogy(p.rate, p.rate) - torchlite.xlogy(p.rate, q.rate) - p.rate + q.rate


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    n = p.total_count
    # n [a log(a / b) + (1 - a) log((1 - a) / (1 - b))], from the logits: a (l_p - l_q) + log((1 - a) / (1 - b))
    sp = torchlite.nn.functional.softplus
    kl = n * (p.probs * (p.logits - q.logits) + sp(q.logits) - sp(p.logits))
    return torchlite.where(p.total_count > q.total_count, math.inf, kl)  # p has counts that q cannot give


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    failures = 1.0 / p.probs - 1.0  # the mean number of failures under p
    return (torchlite.log(p.probs) - torchlite.log(q.probs)
            + failures * (torchlite.log1p(-p.probs) - torchlite.log1p(-q.probs)))


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    k = p.event_shape[0]
    shape = torchlite.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape)) + (k, k)
    lp, lq = p._scale_tril.expand(shape), q._scale_tril.expand(shape)
    # tr(Sq^-1 Sp) = ||Lq^-1 Lp||_F^2; the Mahalanobis term ||Lq^-1 (mu_q - mu_p)||^2
    m = torchlite.linalg.solve_triangular(lq, lp, upper=False)
    d = torchlite.linalg.solve_triangular(lq, (q.loc - p.loc).expand(shape[:-1]).unsqueeze(-1), upper=False)
    log_det = q._half_log_det() - p._half_log_det()
    return 0.5 * (m.pow(2).sum((-2, -1)) + d.pow(2).sum((-2, -1)) - k) + log_det


def _as_mvn(d):
    """A LowRankMultivariateNormal as the MultivariateNormal of its full covariance."""
    if isinstance(d, LowRankMultivariateNormal):
        return MultivariateNormal(d.loc, scale_tril=d.scale_tril)
    return d


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank(p, q):
    return _kl_mvn_mvn(_as_mvn(p), _as_mvn(q))
