"""Independent(base_distribution, reinterpreted_batch_ndims): the same draws as `base_distribution`, with its
last `reinterpreted_batch_ndims` batch dims read as event dims, so that `log_prob` adds up the log densities
over them (a batch of independent Normals becoming one diagonal multivariate Normal)."""
import torchlite

from . import constraints
from .distribution import Distribution
from .transforms import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n = reinterpreted_batch_ndims
        base_batch = base_distribution.batch_shape
        if n > len(base_batch):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual "
                             f"{n} vs {len(base_batch)}")
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        whole = base_batch + base_distribution.event_shape
        cut = len(base_batch) - n
        super().__init__(whole[:cut], whole[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = torchlite.Size(batch_shape)
        new = _instance if _instance is not None else object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        moved = self.event_shape[:self.reinterpreted_batch_ndims]  # the base's batch dims read as event
        new.base_dist = self.base_dist.expand(batch_shape + moved)
        new._batch_shape = batch_shape
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        # enumerating would need the cartesian product over the reinterpreted dims
        return self.base_dist.has_enumerate_support if self.reinterpreted_batch_ndims == 0 else False

    @property
    def support(self):
        inner = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            return constraints.independent(inner, self.reinterpreted_batch_ndims)
        return inner

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=torchlite.Size()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=torchlite.Size()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
