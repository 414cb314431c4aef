"""MixtureSameFamily(mixture_distribution, component_distribution): a finite mixture whose K components
are one batched distribution. `component_distribution` has batch shape B + (K,); `mixture_distribution` is
a Categorical over the K components with a batch shape that broadcasts with B. A draw picks a component from
the Categorical, then draws from it; the density is the weighted sum of the components' densities."""
import torchlite

from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError("The Mixture distribution needs to be an instance of "
                             "torchlite.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torchlite.distributions.Distribution")
        comp_batch = component_distribution.batch_shape
        if len(comp_batch) < 1:
            raise ValueError("`component_distribution` needs a batch dim that indexes the components")
        mix_batch = mixture_distribution.batch_shape
        for m, c in zip(reversed(tuple(mix_batch)), reversed(tuple(comp_batch[:-1]))):
            if m != 1 and c != 1 and m != c:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mix_batch}) is not compatible with "
                                 f"`component_distribution.batch_shape`({comp_batch[:-1]})")
        k_mix = mixture_distribution.logits.shape[-1]
        k_comp = comp_batch[-1]
        if k_mix != k_comp:
            raise ValueError(f"`mixture_distribution component` ({k_mix}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_comp})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k_mix
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(comp_batch[:-1], component_distribution.event_shape, validate_args=validate_args)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def support(self):
        return self._component_distribution.support

    def expand(self, batch_shape, _instance=None):
        batch_shape = torchlite.Size(batch_shape)
        new = _instance if _instance is not None else object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    def _weights(self):
        """The mixture probabilities shaped to multiply the components' event-shaped moments."""
        probs = self._mixture_distribution.probs
        return probs.reshape(tuple(probs.shape) + (1,) * self._event_ndims)

    def _component_dim(self):
        return -1 - self._event_ndims

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(self._component_dim())

    @property
    def variance(self):
        # total variance = E[variance within the component] + variance of the components' means
        w = self._weights()
        dim = self._component_dim()
        within = (w * self._component_distribution.variance).sum(dim)
        spread = self._component_distribution.mean - self.mean.unsqueeze(dim)
        return within + (w * spread * spread).sum(dim)

    def _one_per_component(self, x):
        """x with a dim of size 1 where the components sit, to broadcast against them."""
        return x.unsqueeze(self._component_dim())

    def cdf(self, x):
        per_component = self._component_distribution.cdf(self._one_per_component(x))
        return (per_component * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        per_component = self._component_distribution.log_prob(self._one_per_component(x))
        log_weights = torchlite.log_softmax(self._mixture_distribution.logits, -1)
        return torchlite.logsumexp(per_component + log_weights, -1)

    def sample(self, sample_shape=torchlite.Size()):
        sample_shape = torchlite.Size(sample_shape)
        with torchlite.no_grad():
            picks = self._mixture_distribution.sample(sample_shape)            # S + mixture batch
            draws = self._component_distribution.sample(sample_shape)          # S + B + (K,) + E
            n_sample, batch = len(sample_shape), tuple(self.batch_shape)
            mix_batch = tuple(picks.shape[n_sample:])
            event = tuple(self.event_shape)
            index = picks.reshape(tuple(sample_shape) + (1,) * (len(batch) - len(mix_batch)) + mix_batch +
                                  (1,) * (1 + len(event)))
            index = index.expand(tuple(sample_shape) + batch + (1,) + event)
            where = n_sample + len(batch)
            return draws.gather(where, index).squeeze(where)

    def __repr__(self):
        return (f"{type(self).__name__}(\n  {self._mixture_distribution!r},\n"
                f"  {self._component_distribution!r})")
