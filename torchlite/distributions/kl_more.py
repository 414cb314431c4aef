"""More closed forms for `kl_divergence`, registered into kl.py's table when this module is imported: the
wrappers (Independent, TransformedDistribution) and the families built on them.

* Independent: KL adds up over independent coordinates, so it is the base pair's KL summed over the
  reinterpreted dims.
* TransformedDistribution: KL is unchanged when one bijection is applied to both sides, so two laws pushed
  through equal transforms have the KL of their bases (summed over the base batch dims that became event
  dims).
* Gumbel, Cauchy, Pareto, HalfNormal: integrals worked out below."""
import math

import torchlite

from .cauchy import Cauchy
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .pareto import Pareto
from .transformed_distribution import TransformedDistribution
from .transforms import _sum_rightmost

__all__ = []

_EULER_GAMMA = 0.57721566490153286061


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL between Independent distributions with different "
                                  "reinterpreted_batch_ndims is not implemented")
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions is only implemented for equal transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions with different event shapes is not "
                                  "implemented")
    base = kl_divergence(p.base_dist, q.base_dist)
    # the base's batch dims beyond the result's batch dims became event dims under the transforms
    return _sum_rightmost(base, len(p.base_dist.batch_shape) - len(p.batch_shape))


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    # folding both Normal(0, s) at 0 keeps the ratio of the densities: KL(N(0, s_p) || N(0, s_q))
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # With z = (x - loc_q) / scale_q, -log q(x) = log scale_q + z + e^-z. Under p, E[x] = loc_p + scale_p gamma
    # and E[e^(-x / scale_q)] = e^(-loc_p / scale_q) Gamma(1 + scale_p / scale_q) (Gumbel's moment generating
    # function); subtract p's entropy log scale_p + 1 + gamma.
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return (torchlite.log(q.scale / p.scale) + shift + ratio * _EULER_GAMMA +
            torchlite.exp(torchlite.lgamma(1 + ratio) - shift) - (1 + _EULER_GAMMA))


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    # log(((s_p + s_q)^2 + (m_p - m_q)^2) / (4 s_p s_q)), which is symmetric in p and q
    gap = p.loc - q.loc
    total = p.scale + q.scale
    return torchlite.log((total * total + gap * gap) / (4 * p.scale * q.scale))


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    # finite only when p's support [scale_p, inf) lies inside q's: log(a_p / a_q) + a_q log(s_p / s_q) + a_q/a_p - 1
    a_p, a_q = p.alpha, q.alpha
    value = torchlite.log(a_p / a_q) + a_q * torchlite.log(p.scale / q.scale) + a_q / a_p - 1
    return torchlite.where(p.scale >= q.scale, value, math.inf)
