"""torchlite.distributions: PyTorch's `torch.distributions`, in Python over torchlite's ops (samples come
from torchlite's generator, so `torchlite.manual_seed` reproduces them).

The families: Normal, Uniform, Bernoulli, Categorical, OneHotCategorical, Exponential, Laplace, Gamma, Chi2,
Beta, Dirichlet, StudentT, FisherSnedecor, Poisson, Binomial, Multinomial, Geometric, NegativeBinomial,
MultivariateNormal, LowRankMultivariateNormal, Wishart, LKJCholesky, VonMises, ContinuousBernoulli, with
`kl_divergence` in closed form between two of a kind. Gamma, Beta, Dirichlet and StudentT draw through
`torchlite._standard_gamma`, differentiable in its concentration (the implicit reparameterization)."""
from . import constraints, kl_more, transforms  # noqa: F401  (kl_more registers its KL pairs)
from .bernoulli import Bernoulli
from .binomial import Binomial, Geometric, NegativeBinomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .constraint_registry import biject_to, transform_to
from .dirichlet import Beta, Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Chi2, Gamma
from .generalized_pareto import GeneralizedPareto
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kumaraswamy import Kumaraswamy
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lkj_cholesky import LKJCholesky
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial, OneHotCategorical, OneHotCategoricalStraightThrough
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403  (PyTorch exports the transforms here too)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
    "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric",
    "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace",
    "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial",
    "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
    "Pareto", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT", "TransformedDistribution",
    "Uniform", "VonMises", "Weibull", "Wishart", "biject_to", "constraints", "kl_divergence", "register_kl",
    "transform_to", "transforms"]
__all__ += transforms.__all__
