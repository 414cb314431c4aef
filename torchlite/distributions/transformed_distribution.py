"""TransformedDistribution(base_distribution, transforms): the law of Y = f(X) for X drawn from
`base_distribution` and f the transforms applied in order.

For a bijective f the change of variables gives log p_Y(y) = log p_X(x) - log |det df/dx| at x = f^-1(y).
Transforms that act on vectors (event_dim > 0) make the events bigger: the event dims are those of the base
or of the transforms, whichever asks for more, and a base with too few event dims is wrapped in `Independent`
(and expanded first when the transforms' parameters broadcast it to a bigger shape)."""
import torchlite

from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform, _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        self.transforms = transforms
        chain = ComposeTransform(transforms)
        in_dims, out_dims = chain.domain.event_dim, chain.codomain.event_dim

        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dims = len(base_distribution.event_shape)
        if len(base_shape) < in_dims:
            raise ValueError(f"base_distribution needs to have shape with size at least {in_dims}, but got "
                             f"{base_shape}.")
        shape = torchlite.Size(chain.forward_shape(base_shape))
        # parameters of the transforms may broadcast the base up: draw from a base of the full size then
        wanted = torchlite.Size(chain.inverse_shape(shape))
        if wanted != base_shape:
            base_distribution = base_distribution.expand(wanted[:len(wanted) - base_event_dims])
        if in_dims > base_event_dims:
            base_distribution = Independent(base_distribution, in_dims - base_event_dims)
        self.base_dist = base_distribution

        event_dims = out_dims + max(base_event_dims - in_dims, 0)
        cut = len(shape) - event_dims
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = torchlite.Size(batch_shape)
        new = _instance if _instance is not None else object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name in self._tensor_params():  # the parameters a family keeps alongside its base
            value = getattr(self, name)
            trailing = tuple(value.shape[len(self._batch_shape):])
            new.__dict__[name] = value.expand(tuple(batch_shape) + trailing)
        shape = batch_shape + self.event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_batch = shape[:len(shape) - len(self.base_dist.event_shape)]
        new.base_dist = self.base_dist.expand(base_batch)
        new._batch_shape = batch_shape
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        out = self.transforms[-1].codomain
        extra = len(self.event_shape) - out.event_dim
        return constraints.independent(out, extra) if extra > 0 else out

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            value = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                value = t(value)
            return value

    def rsample(self, sample_shape=torchlite.Size()):
        value = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            value = t(value)
        return value

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # undo the transforms from the last one, collecting -log |det| of each (summed over the dims that
        # are event dims at that stage but not the transform's own)
        event_dims = len(self.event_shape)
        y = value
        correction = 0
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dims += t.domain.event_dim - t.codomain.event_dim
            correction = correction - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dims - t.domain.event_dim)
            y = x
        base = _sum_rightmost(self.base_dist.log_prob(y), event_dims - len(self.base_dist.event_shape))
        return base + correction

    def _orient(self, u):
        """u for an increasing chain of transforms, 1 - u for a decreasing one (the CDF of a decreasing map
        of X is the survival function of X)."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int):
            return u if sign > 0 else 1 - u
        return torchlite.where(sign < 0, 1 - u, u)

    def cdf(self, value):
        """P(Y <= value), through the inverse transforms and the base's CDF (monotone transforms only)."""
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._orient(self.base_dist.cdf(value))

    def icdf(self, value):
        """The quantile function: the base's quantile of value (or of 1 - value for a decreasing chain),
        pushed through the transforms."""
        value = self.base_dist.icdf(self._orient(value))
        for t in self.transforms:
            value = t(value)
        return value
