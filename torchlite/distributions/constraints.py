"""The sets a distribution's parameters and samples live in (PyTorch's `torch.distributions.constraints`).

A constraint answers `check(value)` with a bool tensor, one element per event: `event_dim` trailing dims make
up one event (1 for the simplex), and `is_discrete` says whether its members are integers."""
import torchlite

__all__ = [
    "Constraint", "boolean", "real", "positive", "nonnegative", "unit_interval", "simplex", "nonnegative_integer",
    "positive_integer", "greater_than", "greater_than_eq", "less_than", "interval", "half_open_interval",
    "integer_interval", "dependent", "is_dependent", "independent", "real_vector", "lower_triangular",
    "lower_cholesky", "corr_cholesky", "square", "symmetric", "positive_semidefinite", "positive_definite", "cat",
    "stack", "one_hot", "multinomial", "dependent_property", "MixtureSameFamilyConstraint",
]


class Constraint:
    """A set of values. Subclasses define `check`; `is_discrete` and `event_dim` describe the set."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def _bounds(self):
        return {}

    def __repr__(self):
        fields = ", ".join(f"{k}={v}" for k, v in self._bounds().items())
        return f"{type(self).__name__[1:]}({fields})"


class _Dependent(Constraint):
    """A placeholder for a support that depends on other parameters; it cannot be checked."""

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


class _IndependentConstraint(Constraint):
    """`base` over events of `reinterpreted_batch_ndims` more trailing dims: a value is in it when every
    element of the event is in `base`."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value):
        ok = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            ok = ok.all(-1)
        return ok

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _Real(Constraint):
    def check(self, value):
        return value == value  # everything but NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return value > self.lower_bound

    def _bounds(self):
        return {"lower_bound": self.lower_bound}


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return value >= self.lower_bound


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def _bounds(self):
        return {"upper_bound": self.upper_bound}


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def _bounds(self):
        return {"lower_bound": self.lower_bound, "upper_bound": self.upper_bound}


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & super().check(value)


class _IntegerGreaterThan(_GreaterThanEq):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


def _all_over_matrix(ok):
    """True where every element of the trailing (n, m) matrix is true: one answer per matrix."""
    return ok.reshape(tuple(ok.shape[:-2]) + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    """Square-or-not matrices with zeros above the diagonal."""

    event_dim = 2

    def check(self, value):
        return _all_over_matrix(value.tril() == value)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal: the Cholesky factors of positive definite
    matrices."""

    event_dim = 2

    def check(self, value):
        lower = _all_over_matrix(value.tril() == value)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower triangular, positive diagonal, and every row of unit
    Euclidean length (so L L^T has ones on its diagonal)."""

    event_dim = 2

    def check(self, value):
        slack = torchlite.finfo(value.dtype).eps * value.shape[-1] * 10
        unit_rows = ((torchlite.linalg.norm(value.detach(), dim=-1) - 1).abs() <= slack).all(-1)
        return _LowerCholesky.check(self, value) & unit_rows


class _Square(Constraint):
    """Matrices with as many rows as columns (only the shape is looked at)."""

    event_dim = 2

    def check(self, value):
        n, m = value.shape[-2], value.shape[-1]
        return torchlite.full(tuple(value.shape[:-2]), n == m, dtype=torchlite.bool, device=value.device)


class _Symmetric(_Square):
    """Square matrices equal to their transpose (to within 1e-6)."""

    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return _all_over_matrix(torchlite.isclose(value, value.transpose(-2, -1), atol=1e-6))


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices whose eigenvalues are all >= 0."""

    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return (torchlite.linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factorization (all eigenvalues > 0)."""

    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return torchlite.linalg.cholesky_ex(value).info == 0


def _positive_dim(dim, ndim):
    return dim + ndim if dim < 0 else dim


class _OfConstraints(Constraint):
    """A constraint made of the constraints `cseq`: discrete if any is, events as wide as the widest."""

    def __init__(self, cseq, what):
        self.cseq = list(cseq)
        if not all(isinstance(c, Constraint) for c in self.cseq):
            raise TypeError(f"{what} expects a sequence of Constraint objects")

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)


class _Cat(_OfConstraints):
    """The pieces of a value cut along `dim` (of sizes `lengths`, default 1 each) belong, in order, to the
    constraints of `cseq`; the answers are put back together along `dim`."""

    def __init__(self, cseq, dim=0, lengths=None):
        super().__init__(cseq, "cat")
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError(f"cat got {len(self.cseq)} constraints but {len(self.lengths)} lengths")
        self.dim = dim

    def check(self, value):
        dim = _positive_dim(self.dim, value.dim())
        answers, start = [], 0
        for c, size in zip(self.cseq, self.lengths):
            answers.append(c.check(value.narrow(dim, start, size)))
            start += size
        return torchlite.cat(answers, dim)


class _Stack(_OfConstraints):
    """Slice i of a value along `dim` belongs to the constraint `cseq[i]`; the answers are stacked along
    `dim`."""

    def __init__(self, cseq, dim=0):
        super().__init__(cseq, "stack")
        self.dim = dim

    def check(self, value):
        dim = _positive_dim(self.dim, value.dim())
        return torchlite.stack([c.check(value.select(dim, i)) for i, c in enumerate(self.cseq)], dim)


dependent = _Dependent()
boolean = _Boolean()
real = _Real()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
interval = _Interval
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
independent = _IndependentConstraint
real_vector = _IndependentConstraint(real, 1)
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack


class _DependentProperty(property, _Dependent):
    """A property that is also a dependent constraint: on the class it is the (uncheckable) constraint, on an
    instance the value computed from the instance's parameters (a support such as Binomial's)."""

    def __init__(self, fn=None, *, is_discrete=False, event_dim=0):
        property.__init__(self, fn)
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


def dependent_property(fn=None, *, is_discrete=False, event_dim=0):
    """A decorator (with or without arguments) for a support that depends on the parameters."""
    if fn is None:
        return _DependentProperty(is_discrete=is_discrete, event_dim=event_dim)
    return _DependentProperty(fn, is_discrete=is_discrete, event_dim=event_dim)


class _OneHot(Constraint):
    """One-hot vectors: zeros and ones with a single one."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        binary = ((value == 0) | (value == 1)).all(-1)
        return binary & (value.sum(-1) == 1)


class _Multinomial(Constraint):
    """Vectors of nonnegative integer counts summing to at most upper_bound."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(-1) & (value % 1 == 0).all(-1) & (value.sum(-1) <= self.upper_bound)

    def _bounds(self):
        return {"upper_bound": self.upper_bound}


class MixtureSameFamilyConstraint(Constraint):
    """The support of a MixtureSameFamily: its component distribution's support, checked as that constraint
    checks a value (one answer per event of the mixture: the constraint reduces its own event dims)."""

    def __init__(self, base_constraint):
        self.base_constraint = base_constraint
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim

    def check(self, value):
        return self.base_constraint.check(value)

    def __repr__(self):
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


one_hot = _OneHot()
multinomial = _Multinomial
