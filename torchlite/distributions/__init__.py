"""torchlite.distributions: PyTorch's `torch.distributions`, in Python over torchlite's ops (samples come
from torchlite's generator, so `torchlite.manual_seed` reproduces them).

The families so far: Normal, Uniform, Bernoulli, Categorical, Exponential, Laplace, with `kl_divergence`
between two of a kind; the rest of PyTorch's list (Gamma and what it samples, MultivariateNormal, the
transforms...) is issue 18's."""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Laplace", "Normal", "Uniform", "constraints",
           "kl_divergence", "register_kl"]
