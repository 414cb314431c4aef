"""The sets a distribution's parameters and samples live in (PyTorch's `torch.distributions.constraints`).

A constraint answers `check(value)` with a bool tensor, one element per event: `event_dim` trailing dims make
up one event (1 for the simplex), and `is_discrete` says whether its members are integers."""
__all__ = [
    "Constraint", "boolean", "real", "positive", "nonnegative", "unit_interval", "simplex", "nonnegative_integer",
    "positive_integer", "greater_than", "greater_than_eq", "less_than", "interval", "half_open_interval",
    "integer_interval", "dependent", "is_dependent", "independent", "real_vector",
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
