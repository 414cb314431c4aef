"""torchlite.distributions: PyTorch's `torch.distributions`, in Python over torchlite's ops (samples come
from torchlite's generator, so `torchlite.manual_seed` reproduces them).

The families: Normal, Uniform, Bernoulli, Categorical, OneHotCategorical, Exponential, Laplace, Gamma, Chi2,
Beta, Dirichlet, StudentT, FisherSnedecor, Poisson, Binomial, Multinomial, Geometric, NegativeBinomial,
MultivariateNormal, LowRankMultivariateNormal, Wishart, LKJCholesky, VonMises, ContinuousBernoulli, with
`kl_divergence` in closed form between two of a kind. Gamma, Beta, Dirichlet and StudentT draw through
`torchlite._standard_gamma`, differentiable in its concentration (the implicit reparameterization)."""
from . import constraints
from .bernoulli import Bernoulli
from .binomial import Binomial, Geometric, NegativeBinomial
from .categorical import Categorical
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Beta, Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Chi2, Gamma
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multinomial import Multinomial, OneHotCategorical
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .studentT import StudentT
from .uniform import Uniform
from .von_mises import VonMises
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Chi2", "ContinuousBernoulli", "Dirichlet", "Distribution", "Exponential",
    "Gamma", "Geometric", "LKJCholesky", "Laplace", "LowRankMultivariateNormal", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
    "OneHotCategorical", "Poisson", "StudentT", "Uniform", "VonMises", "Wishart", "constraints", "kl_divergence", "register_kl"]
