"""From a constraint to a transform that reaches it from the unconstrained reals (PyTorch's
`torch.distributions.constraint_registry`).

Two registries answer a constraint with a transform whose domain is (a power of) the real line and whose
codomain is the constraint's set:

* `biject_to(c)` always gives a bijection (`bijective` is True and `log_abs_det_jacobian` works), as needed to
  move a sampler such as HMC into an unconstrained space;
* `transform_to(c)` may give a cheaper map that is not one-to-one (SoftmaxTransform for the simplex,
  LowerCholeskyTransform for Cholesky factors), good enough for optimizing a constrained parameter through an
  unconstrained one.

Entries are found by the constraint's class, so one factory serves every `greater_than(b)`, and more can be
added with `register`, as a call or as a decorator."""
from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint classes to factories: `factory(constraint)` returns a Transform."""

    def __init__(self):
        self._factories = {}

    def register(self, constraint, factory=None):
        """Registers `factory` for the class of `constraint` (a Constraint subclass, or an instance standing
        for its class). Without `factory`, returns a decorator that registers the function it decorates."""
        if factory is None:
            def decorator(fn):
                return self.register(constraint, fn)
            return decorator
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not (isinstance(constraint, type) and issubclass(constraint, constraints.Constraint)):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got "
                            f"{constraint}")
        self._factories[constraint] = factory
        return factory

    def __call__(self, constraint):
        """The transform from the reals onto `constraint`; NotImplementedError when its class has no entry."""
        factory = self._factories.get(type(constraint))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(constraint):
    """Registers the decorated factory in both registries."""
    def decorator(fn):
        biject_to.register(constraint, fn)
        transform_to.register(constraint, fn)
        return fn
    return decorator


@_both(constraints.real)
def _to_real(constraint):
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint):
    inner = biject_to(constraint.base_constraint)
    return transforms.IndependentTransform(inner, constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint):
    inner = transform_to(constraint.base_constraint)
    return transforms.IndependentTransform(inner, constraint.reinterpreted_batch_ndims)


# x -> bound + exp(x) for (bound, inf); bound - exp(x) for (-inf, bound)
@_both(constraints.positive)
@_both(constraints.nonnegative)
def _to_above(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_both(constraints.less_than)
def _to_below(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


# x -> low + (high - low) sigmoid(x); the plain sigmoid for the unit interval
@_both(constraints.interval)
@_both(constraints.half_open_interval)
def _to_interval(constraint):
    low, high = constraint.lower_bound, constraint.upper_bound
    numbers = all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in (low, high))
    if numbers and low == 0 and high == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(low, high - low)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@_both(constraints.corr_cholesky)
def _to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint):
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint):
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint):
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint):
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
