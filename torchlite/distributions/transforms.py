"""Invertible maps between the sets of `constraints` (PyTorch's `torch.distributions.transforms`).

A transform t sends x (in `t.domain`) to y = t(x) (in `t.codomain`); `t.inv` is the map back and
`t.log_abs_det_jacobian(x, y)` is log |det dy/dx|, taken over the `event_dim` trailing dims that the map mixes
together (0 for an elementwise map, 1 for one that works on vectors...), so its shape is x's shape without
those dims. With `cache_size=1` a transform remembers the latest pair (x, y) it computed, and answers t(x) or
t.inv(y) for that very tensor object (an `is` test, not a comparison of values) without computing again: this
is how a sample can be scored exactly even where the inverse loses precision."""
import math

import torchlite

from . import constraints

__all__ = [
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
    "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
    "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "Transform",
    "identity_transform",
]


def _sum_rightmost(value, ndims):
    """value summed over its last `ndims` dims (value itself when ndims is 0)."""
    if ndims <= 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - ndims]) + (-1,)).sum(-1)


def _softplus(x):
    return torchlite.nn.functional.softplus(x)


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _shape_of(v):
    return tuple(v.shape) if isinstance(v, torchlite.Tensor) else ()


def _need_dims(shape, n):
    if len(shape) < n:
        raise ValueError("Too few dimensions on input")


class Transform:
    """The interface of an invertible (or pseudo-invertible) map with a computable log |det Jacobian|.

    A subclass gives `_call(x)` (the map), `_inverse(y)` (the map back) and, when it is bijective,
    `log_abs_det_jacobian(x, y)`; `domain`, `codomain`, `bijective` and `sign` (+1 increasing, -1
    decreasing, for bijective maps of one variable) describe it. `cache_size` is 0 (compute every time) or 1
    (remember the latest (x, y) pair)."""

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._memo = None        # (x, y) of the latest evaluation, when caching
        self._inverse_obj = None  # the object `inv` hands out, made on first use

    @property
    def event_dim(self):
        """How many trailing dims form one event; undefined (ValueError) when domain and codomain differ."""
        d, c = self.domain.event_dim, self.codomain.event_dim
        if d != c:
            raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")
        return d

    @property
    def inv(self):
        """The inverse map, as a Transform; the same object every time, and `t.inv.inv is t`."""
        if self._inverse_obj is None:
            self._inverse_obj = _InverseTransform(self)
        return self._inverse_obj

    @property
    def sign(self):
        """+1 or -1 (or a tensor of them): whether a bijective map of one variable increases or decreases."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with the given cache size (itself when it already has it)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self).__name__}.with_cache is not implemented")

    # equality: the same object, or (for the classes that say so in `_same_as`) the same map
    def __eq__(self, other):
        if self is other:
            return True
        return type(self) is type(other) and self._same_as(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def _same_as(self, other):
        return False

    def __call__(self, x):
        if not self._cache_size:
            return self._call(x)
        memo = self._memo
        if memo is not None and memo[0] is x:
            return memo[1]
        y = self._call(x)
        self._memo = (x, y)
        return y

    def _inv_call(self, y):
        if not self._cache_size:
            return self._inverse(y)
        memo = self._memo
        if memo is not None and memo[1] is y:
            return memo[0]
        x = self._inverse(y)
        self._memo = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no inverse")

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        """The shape of t(x) for x of the given shape."""
        return shape

    def inverse_shape(self, shape):
        """The shape of t.inv(y) for y of the given shape."""
        return shape

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inverse_obj"] = None  # rebuilt on demand
        state["_memo"] = None
        return state

    def __repr__(self):
        return f"{type(self).__name__}()"


class _InverseTransform(Transform):
    """The inverse of a transform, which keeps the cache of the transform it inverts (so t(x) followed by
    t.inv(y) hands x back)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inverse_obj = transform

    @property
    def domain(self):
        return self._inverse_obj.codomain

    @property
    def codomain(self):
        return self._inverse_obj.domain

    @property
    def bijective(self):
        return self._inverse_obj.bijective

    @property
    def sign(self):
        return self._inverse_obj.sign

    @property
    def inv(self):
        return self._inverse_obj

    def with_cache(self, cache_size=1):
        return self._inverse_obj.with_cache(cache_size).inv

    def _same_as(self, other):
        return self._inverse_obj == other._inverse_obj

    def __call__(self, x):
        return self._inverse_obj._inv_call(x)

    def _inv_call(self, y):
        return self._inverse_obj(y)

    def log_abs_det_jacobian(self, x, y):
        return -self._inverse_obj.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inverse_obj.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inverse_obj.forward_shape(shape)

    def __getstate__(self):
        state = super().__getstate__()
        state["_inverse_obj"] = self._inverse_obj  # the transform itself is this object's whole content
        return state

    def __repr__(self):
        return f"_InverseTransform({self._inverse_obj!r})"


class ComposeTransform(Transform):
    """The parts applied one after the other: parts[0] first. With no parts it is the identity map. The
    caching is the parts' own (`cache_size` is passed on to each of them).

    Its event dims are the fewest with which every part sees at least its own `domain.event_dim`: a vector
    map after an elementwise one makes the whole chain act on vectors."""

    def __init__(self, parts, cache_size=0):
        parts = list(parts)
        if not all(isinstance(p, Transform) for p in parts):
            raise TypeError("ComposeTransform expects a list of Transform objects")
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def _input_event_dim(self):
        # walk back from the output: each part needs its own domain dims, and passes on what follows it
        need = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            need = max(need - part.codomain.event_dim + part.domain.event_dim, part.domain.event_dim)
        return need

    def _output_event_dim(self):
        dims = self._input_event_dim()
        for part in self.parts:
            dims = max(dims, part.domain.event_dim) - part.domain.event_dim + part.codomain.event_dim
        return dims

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        first = self.parts[0].domain
        extra = self._input_event_dim() - first.event_dim
        return constraints.independent(first, extra) if extra > 0 else first

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        last = self.parts[-1].codomain
        extra = self._output_event_dim() - last.event_dim
        return constraints.independent(last, extra) if extra > 0 else last

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        total = 1
        for p in self.parts:
            total = total * p.sign
        return total

    @property
    def inv(self):
        if self._inverse_obj is None:
            backwards = ComposeTransform([p.inv for p in reversed(self.parts)], cache_size=self._cache_size)
            backwards._inverse_obj = self
            self._inverse_obj = backwards
        return self._inverse_obj

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def _same_as(self, other):
        return len(self.parts) == len(other.parts) and all(a == b for a, b in zip(self.parts, other.parts))

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def _inv_call(self, y):
        return self.inv(y)

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return torchlite.zeros_like(x)
        # the values between consecutive parts; the last is the y given (cached parts answer without work)
        values = [x]
        for part in self.parts[:-1]:
            values.append(part(values[-1]))
        values.append(y)
        dims = self._input_event_dim()  # event dims of the value entering each part
        total = 0
        for part, a, b in zip(self.parts, values[:-1], values[1:]):
            total = total + _sum_rightmost(part.log_abs_det_jacobian(a, b), dims - part.domain.event_dim)
            dims += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """`base_transform` with `reinterpreted_batch_ndims` more trailing dims counted as one event: the same
    values, and the log-determinant summed over those dims."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """Rearranges the trailing `in_shape` of a tensor into `out_shape` (same number of elements); the
    dims in front of them are left alone. Volume-preserving: the log-determinant is 0."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = torchlite.Size(in_shape)
        self.out_shape = torchlite.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        front = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(front + tuple(self.out_shape))

    def _inverse(self, y):
        front = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(front + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        front = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.new_zeros(front)

    @staticmethod
    def _swap_tail(shape, old, new):
        shape = tuple(shape)
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        front, tail = shape[:len(shape) - len(old)], shape[len(shape) - len(old):]
        if tail != tuple(old):
            raise ValueError(f"Shape mismatch: the trailing dims of {shape} should be {tuple(old)}")
        return torchlite.Size(front + tuple(new))

    def forward_shape(self, shape):
        return self._swap_tail(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap_tail(shape, self.out_shape, self.in_shape)


class ExpTransform(Transform):
    """y = exp(x), from the reals onto the positive reals; log |dy/dx| = x."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _same_as(self, other):
        return True

    def _call(self, x):
        return torchlite.exp(x)

    def _inverse(self, y):
        return torchlite.log(y)

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals (a positive or negative exponent, number or tensor);
    log |dy/dx| = log |exponent y / x|."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.exponent = exponent if isinstance(exponent, torchlite.Tensor) else torchlite.tensor(float(exponent))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def _same_as(self, other):
        return bool(self.exponent.eq(other.exponent).all())

    def _exponent_for(self, value):
        """The exponent in the wider of its dtype and value's, so that 1 / exponent keeps value's precision."""
        e = self.exponent
        if e.dtype != value.dtype and value.is_floating_point():
            e = e.to(torchlite.promote_types(e.dtype, value.dtype))
        return e

    def _call(self, x):
        return x.pow(self._exponent_for(x))

    def _inverse(self, y):
        return y.pow(1 / self._exponent_for(y))

    def log_abs_det_jacobian(self, x, y):
        return torchlite.log((self._exponent_for(x) * y / x).abs())

    def forward_shape(self, shape):
        return torchlite.broadcast_shapes(tuple(shape), _shape_of(self.exponent))

    def inverse_shape(self, shape):
        return torchlite.broadcast_shapes(tuple(shape), _shape_of(self.exponent))


def _squashed_sigmoid(x):
    """sigmoid(x), kept strictly inside (0, 1) so that its logit stays finite."""
    info = torchlite.finfo(x.dtype)
    return torchlite.sigmoid(x).clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(Transform):
    """y = 1 / (1 + exp(-x)), onto the unit interval, back by the logit; log |dy/dx| = log y (1 - y),
    computed from x as -softplus(-x) - softplus(x)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _same_as(self, other):
        return True

    def _call(self, x):
        return _squashed_sigmoid(x)

    def _inverse(self, y):
        info = torchlite.finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return torchlite.log(y) - torchlite.log1p(-y)

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x) - _softplus(x)


class TanhTransform(Transform):
    """y = tanh(x), onto (-1, 1), back by atanh (which loses precision near +-1: use cache_size=1 when
    scoring samples). log |dy/dx| = log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x))."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _same_as(self, other):
        return True

    def _call(self, x):
        return torchlite.tanh(x)

    def _inverse(self, y):
        return torchlite.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class SoftplusTransform(Transform):
    """y = log(1 + exp(x)), onto the positive reals; back by x = y + log(1 - exp(-y)); log |dy/dx| is
    log sigmoid(x) = -softplus(-x)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _same_as(self, other):
        return True

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return y + torchlite.log(-torchlite.expm1(-y))

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x)


class AbsTransform(Transform):
    """y = |x|. Not injective: its "inverse" hands back the nonnegative preimage, y itself."""

    domain = constraints.real
    codomain = constraints.positive

    def _same_as(self, other):
        return True

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale * x elementwise (loc and scale numbers or tensors that broadcast with x). With
    `event_dim` > 0 the last event_dim dims form one event and log |det| = sum of log |scale| over them."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return constraints.real if self._event_dim == 0 else constraints.independent(constraints.real,
                                                                                     self._event_dim)

    @property
    def codomain(self):
        return self.domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, event_dim=self._event_dim, cache_size=cache_size)

    @staticmethod
    def _equal(a, b):
        if _number(a) and _number(b):
            return a == b
        if _number(a) != _number(b):
            # a number against a tensor: equal when every element of the tensor is that number
            number, tensor = (a, b) if _number(a) else (b, a)
            return bool((tensor == number).all())
        return a.shape == b.shape and bool((a == b).all())

    def _same_as(self, other):
        return self._equal(self.loc, other.loc) and self._equal(self.scale, other.scale)

    @property
    def sign(self):
        s = self.scale
        if _number(s):
            return 1 if s > 0 else (-1 if s < 0 else 0)
        return s.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        s = self.scale
        if _number(s):
            per_element = torchlite.full_like(x, math.log(abs(s)) if s != 0 else -math.inf)
        else:
            # log |scale| at every element of x (scale may also add leading batch dims)
            per_element = torchlite.log(s.abs()).expand(torchlite.broadcast_shapes(tuple(x.shape), tuple(s.shape)))
        return _sum_rightmost(per_element, self._event_dim)

    def forward_shape(self, shape):
        return torchlite.broadcast_shapes(tuple(shape), _shape_of(self.loc), _shape_of(self.scale))

    def inverse_shape(self, shape):
        return torchlite.broadcast_shapes(tuple(shape), _shape_of(self.loc), _shape_of(self.scale))


class SoftmaxTransform(Transform):
    """From real vectors onto the simplex: exponentiate, then divide by the sum. Many-to-one (adding a
    constant to x changes nothing), so not bijective; its "inverse" is the elementwise log."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _same_as(self, other):
        return True

    def _call(self, x):
        e = torchlite.exp(x - x.amax(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True)

    def _inverse(self, y):
        return torchlite.log(y)

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        return shape

    def inverse_shape(self, shape):
        _need_dims(shape, 1)
        return shape


class StickBreakingTransform(Transform):
    """A bijection from R^K onto the simplex in R^(K+1) by breaking a stick: coordinate k takes the fraction
    z_k = sigmoid(x_k - log(K - k)) of what is left of the stick (k = 0..K-1), and the last coordinate gets
    the remainder. The shift by log(K - k) sends x = 0 to the centre of the simplex.

    With r_k the length left before step k, y_k = z_k r_k, and the Jacobian of (y_0..y_{K-1}) in x is
    triangular with diagonal r_k z_k (1 - z_k)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _same_as(self, other):
        return True

    @staticmethod
    def _shift(k, like):
        # log(K - k) for k = 0..K-1
        return torchlite.log(torchlite.arange(k, 0, -1, dtype=like.dtype, device=like.device))

    def _call(self, x):
        k = x.shape[-1]
        z = _squashed_sigmoid(x - self._shift(k, x))
        left = torchlite.cumprod(1 - z, -1)  # stick left after each step
        ones = torchlite.ones(tuple(x.shape[:-1]) + (1,), dtype=x.dtype, device=x.device)
        before = torchlite.cat([ones, left], -1)  # stick left before step k (and the last remainder)
        return torchlite.cat([z, ones], -1) * before

    def _inverse(self, y):
        k = y.shape[-1] - 1
        head = y[..., :-1]
        # what lies after coordinate j: y_{j+1} + ... + y_K, summed from the right so that small tails stay exact
        after = torchlite.cumsum(y.flip(-1), -1).flip(-1)[..., 1:]
        tiny = torchlite.finfo(y.dtype).tiny
        return torchlite.log(head.clamp(min=tiny)) - torchlite.log(after.clamp(min=tiny)) + self._shift(k, y)

    def log_abs_det_jacobian(self, x, y):
        a = x - self._shift(x.shape[-1], x)
        log_z = -_softplus(-a)
        log_one_minus_z = -_softplus(a)
        log_left_before = torchlite.cumsum(log_one_minus_z, -1) - log_one_minus_z
        return (log_left_before + log_z + log_one_minus_z).sum(-1)

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        return torchlite.Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        _need_dims(shape, 1)
        return torchlite.Size(tuple(shape[:-1]) + (shape[-1] - 1,))


class LowerCholeskyTransform(Transform):
    """From square matrices to lower-triangular ones with a positive diagonal: keep the part below the
    diagonal, exponentiate the diagonal, drop what is above. Not bijective (the upper part is lost)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _same_as(self, other):
        return True

    def _call(self, x):
        return x.tril(-1) + torchlite.exp(x.diagonal(dim1=-2, dim2=-1)).diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + torchlite.log(y.diagonal(dim1=-2, dim2=-1)).diag_embed()


class PositiveDefiniteTransform(Transform):
    """From square matrices to positive definite ones: L L^T with L the LowerCholeskyTransform of x. Back by
    the Cholesky factorization."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _same_as(self, other):
        return True

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.transpose(-2, -1)

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torchlite.linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """From a real vector of length D(D-1)/2 to the Cholesky factor of a D x D correlation matrix (lower
    triangular, positive diagonal, rows of unit length).

    The vector fills the strictly lower triangle row by row; tanh sends each entry to (-1, 1), and row i is
    then built by stick breaking on squared length: entry (i, j) is t_ij sqrt(1 - sum_{l<j} L_il^2) and the
    diagonal takes what is left, sqrt(1 - sum_{l<i} L_il^2)."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _same_as(self, other):
        return True

    @staticmethod
    def _size_from_count(count):
        d = int(round((1 + math.sqrt(1 + 8 * count)) / 2))
        if d * (d - 1) // 2 != count:
            raise ValueError("Incorrect size")
        return d

    @staticmethod
    def _lower_positions(d):
        return [(i, j) for i in range(d) for j in range(i)]

    def _call(self, x):
        d = self._size_from_count(x.shape[-1])
        t = torchlite.tanh(x)
        eps = torchlite.finfo(x.dtype).eps
        front = tuple(x.shape[:-1])
        rows, position = [], 0
        zeros = torchlite.zeros(front, dtype=x.dtype, device=x.device)
        for i in range(d):
            row, used = [], zeros
            for j in range(i):
                left = (1 - used).clamp(min=eps)
                entry = t[..., position] * left.sqrt()
                used = used + entry * entry
                row.append(entry)
                position += 1
            row.append((1 - used).clamp(min=eps).sqrt() if i else torchlite.ones(front, dtype=x.dtype,
                                                                               device=x.device))
            row.extend([zeros] * (d - i - 1))
            rows.append(torchlite.stack(row, -1))
        return torchlite.stack(rows, -2)

    def _inverse(self, y):
        d = y.shape[-1]
        eps = torchlite.finfo(y.dtype).eps
        values = []
        for i in range(d):
            left = torchlite.ones(tuple(y.shape[:-2]), dtype=y.dtype, device=y.device)
            for j in range(i):
                entry = y[..., i, j]
                t = entry / left.clamp(min=eps).sqrt()
                values.append(torchlite.atanh(t.clamp(min=-1 + eps, max=1 - eps)))
                left = left - entry * entry
        if not values:
            return y.new_zeros(tuple(y.shape[:-2]) + (0,))
        return torchlite.stack(values, -1)

    def log_abs_det_jacobian(self, x, y):
        # entry (i, j) = t_ij sqrt(left_ij): d entry / d x_ij = (1 - t_ij^2) sqrt(left_ij), the map being
        # triangular in the order the entries are filled
        t = torchlite.tanh(x)
        d = self._size_from_count(x.shape[-1])
        total, position = 0, 0
        for i in range(d):
            for j in range(i):
                entry = y[..., i, j]
                left_here = 1 - (y[..., i, :j] ** 2).sum(-1) if j else torchlite.ones_like(entry)
                total = total + torchlite.log1p(-t[..., position] ** 2) + 0.5 * torchlite.log(left_here)
                position += 1
        if isinstance(total, int):
            return x.new_zeros(tuple(x.shape[:-1]))
        return total

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        d = self._size_from_count(shape[-1])
        return torchlite.Size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-1] != shape[-2]:
            raise ValueError("A matrix that isn't square can't be a Cholesky factor of a correlation matrix")
        d = shape[-1]
        return torchlite.Size(tuple(shape[:-2]) + (d * (d - 1) // 2,))


class CumulativeDistributionTransform(Transform):
    """y = F(x), the CDF of a distribution of one variable: from its support onto the unit interval, with
    log |dy/dx| its log density. Back by its inverse CDF."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


def _check_transform_list(tseq):
    tseq = list(tseq)
    if not all(isinstance(t, Transform) for t in tseq):
        raise TypeError("expected a sequence of Transform objects")
    return tseq


class CatTransform(Transform):
    """Cuts x along `dim` into consecutive pieces of sizes `lengths` (1 each by default), applies
    `tseq[i]` to piece i and joins the results along `dim` again."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        tseq = _check_transform_list(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.lengths = [1] * len(tseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(f"CatTransform got {len(self.transforms)} transforms but {len(self.lengths)} lengths")
        self.dim = dim

    @property
    def length(self):
        return sum(self.lengths)

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size=cache_size)

    def _pieces(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise ValueError(f"dim {self.dim} is out of range for a tensor of {value.dim()} dims")
        if value.shape[self.dim] != self.length:
            raise ValueError(f"expected size {self.length} along dim {self.dim}, got {value.shape[self.dim]}")
        pieces, start = [], 0
        for size in self.lengths:
            pieces.append(value.narrow(self.dim, start, size))
            start += size
        return pieces

    def _call(self, x):
        return torchlite.cat([t(p) for t, p in zip(self.transforms, self._pieces(x))], self.dim)

    def _inverse(self, y):
        return torchlite.cat([t.inv(p) for t, p in zip(self.transforms, self._pieces(y))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        event_dim = self.event_dim
        terms = [_sum_rightmost(t.log_abs_det_jacobian(a, b), event_dim - t.event_dim)
                 for t, a, b in zip(self.transforms, self._pieces(x), self._pieces(y))]
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        if -dim > event_dim:
            # cut along a batch dim: the pieces' log-determinants sit side by side along it
            return torchlite.cat(terms, dim + event_dim)
        total = 0
        for term in terms:  # cut inside the event: the Jacobian is block diagonal
            total = total + term
        return total


class StackTransform(Transform):
    """Applies `tseq[i]` to slice i of x along `dim` (whose size is len(tseq)) and stacks the results along
    `dim` again."""

    def __init__(self, tseq, dim=0, cache_size=0):
        tseq = _check_transform_list(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.dim = dim

    @property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size=cache_size)

    def _slices(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise ValueError(f"dim {self.dim} is out of range for a tensor of {value.dim()} dims")
        if value.shape[self.dim] != len(self.transforms):
            raise ValueError(f"expected size {len(self.transforms)} along dim {self.dim}, got "
                             f"{value.shape[self.dim]}")
        dim = self.dim % value.dim()
        return [value.select(dim, i) for i in range(len(self.transforms))]

    def _call(self, x):
        return torchlite.stack([t(s) for t, s in zip(self.transforms, self._slices(x))], self.dim % x.dim())

    def _inverse(self, y):
        return torchlite.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y))], self.dim % y.dim())

    def log_abs_det_jacobian(self, x, y):
        terms = [t.log_abs_det_jacobian(a, b) for t, a, b in zip(self.transforms, self._slices(x), self._slices(y))]
        return torchlite.stack(terms, self.dim % x.dim())
