"""The base class of torchlite.distributions: shapes, argument and sample validation, and the interface
(`sample`/`rsample`, `log_prob`, `cdf`/`icdf`, `entropy`, moments) each family fills in."""
import warnings

import torchlite

from . import constraints

__all__ = ["Distribution"]


class Distribution:
    """A batch of probability distributions over events. A sample has shape
    `sample_shape + batch_shape + event_shape`; `log_prob` of a value of that shape has
    `sample_shape + batch_shape`."""

    has_rsample = False
    has_enumerate_support = False
    arg_constraints = {}
    _default_validate = True

    @staticmethod
    def set_default_validate_args(value):
        """Whether distributions made without `validate_args` check their arguments and samples."""
        if value not in (True, False):
            raise ValueError("validate_args must be True or False")
        Distribution._default_validate = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = torchlite.Size(batch_shape)
        self._event_shape = torchlite.Size(event_shape)
        self._validate_args = Distribution._default_validate if validate_args is None else bool(validate_args)
        if self._validate_args:
            for name in self._given_params():
                constraint = self.arg_constraints[name]
                if constraints.is_dependent(constraint):
                    continue
                value = getattr(self, name)
                if not bool(constraint.check(value).all()):
                    raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")

    def _given_params(self):
        """The parameters this instance was made from, in `arg_constraints`' order (a family with alternative
        parameters, as probs and logits, records the one given in `_given`)."""
        given = getattr(self, "_given", None)
        return [n for n in self.arg_constraints if (n in given if given is not None else n in self.__dict__)]

    # ---------------------------------------------------------------- shapes
    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return torchlite.Size(sample_shape) + self._batch_shape + self._event_shape

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded (as views) to `batch_shape`."""
        batch_shape = torchlite.Size(batch_shape)
        new = _instance if _instance is not None else object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name in self._tensor_params():
            value = getattr(self, name)
            trailing = tuple(value.shape[len(self._batch_shape):])
            new.__dict__[name] = value.expand(tuple(batch_shape) + trailing)
        new._batch_shape = batch_shape
        return new

    def _tensor_params(self):
        """The tensors expand() expands: every parameter held (given or derived)."""
        return [n for n in self.arg_constraints if isinstance(self.__dict__.get(n), torchlite.Tensor)]

    # ---------------------------------------------------------------- sampling
    def sample(self, sample_shape=torchlite.Size()):
        if self.has_rsample:
            with torchlite.no_grad():
                return self.rsample(sample_shape)
        raise NotImplementedError

    def rsample(self, sample_shape=torchlite.Size()):
        raise NotImplementedError(f"{type(self).__name__} does not support rsample (it is not "
                                  "reparameterizable)")

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning, stacklevel=2)
        return self.sample(torchlite.Size((n,)))

    # ---------------------------------------------------------------- densities and moments
    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return torchlite.exp(self.entropy())

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def support(self):
        raise NotImplementedError

    # ---------------------------------------------------------------- validation and printing
    def _validate_sample(self, value):
        """Checks that value is a tensor whose shape broadcasts with batch_shape + event_shape and whose
        elements lie in the support."""
        if not isinstance(value, torchlite.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        n_event = len(self._event_shape)
        if tuple(value.shape[len(value.shape) - n_event:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        try:
            torchlite.broadcast_shapes(tuple(value.shape), tuple(self._batch_shape + self._event_shape))
        except RuntimeError:
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {value.size()} vs "
                             f"{self._batch_shape + self._event_shape}.") from None
        support = self.support
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def __repr__(self):
        parts = []
        for name in self._given_params():
            value = self.__dict__[name]
            # as PyTorch prints them: a number for 0-dim, the tensor for one element, else the size
            shown = value.item() if value.dim() == 0 else value if value.numel() == 1 else value.size()
            parts.append(f"{name}: {shown}")
        return f"{type(self).__name__}({', '.join(parts)})"


def broadcast_all(*values):
    """The values as tensors of one shape: numbers become tensors of the tensors' dtype and device (the
    default dtype when all are numbers), then all broadcast together."""
    tensors = [v for v in values if isinstance(v, torchlite.Tensor)]
    for v in values:
        if not isinstance(v, (torchlite.Tensor, int, float)):
            raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                             "implementing __torch_function__.")
    if tensors:
        dtype, device = tensors[0].dtype, tensors[0].device
    else:
        dtype, device = torchlite.get_default_dtype(), torchlite.device("cpu")
    as_tensors = [v if isinstance(v, torchlite.Tensor) else torchlite.tensor(float(v), dtype=dtype, device=device)
                  for v in values]
    return torchlite.broadcast_tensors(*as_tensors)


def probs_and_logits(probs, logits, *others):
    """(probs, logits, *others broadcast with them, the name given) for the two-outcome families given exactly
    one of probs (logits = log(p / (1 - p)) with p clamped to [eps, 1 - eps], as PyTorch) and logits (probs =
    sigmoid(logits))."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        probs, *others = broadcast_all(probs, *others)
        eps = torchlite.finfo(probs.dtype).eps
        p = probs.clamp(eps, 1 - eps)
        return (probs, torchlite.log(p) - torchlite.log1p(-p), *others, "probs")
    logits, *others = broadcast_all(logits, *others)
    return (torchlite.sigmoid(logits), logits, *others, "logits")


class _LocationScale(Distribution):
    """The shared part of the real-valued families with a location `loc` (their mean and mode) and a positive
    `scale` (Normal, Laplace): parameters broadcast together, the batch shape theirs, reparameterizable."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
