"""torchlite.distributions' transforms, constraint registry and the distributions built on them: inverse
round trips and log |det Jacobian| against finite differences and autograd Jacobians, caching, shapes;
TransformedDistribution, Independent, MixtureSameFamily, the relaxed families and the families built by
transforming a base (densities, CDFs and moments against closed forms or numerical integration in NumPy,
sample moments, reparameterized gradients, validation errors); KL divergences against numerical
integration; and (optional) the same numbers from PyTorch."""
import math

import numpy as np
import pytest

import torchlite as tl
from torchlite.autograd import gradcheck
from torchlite.autograd.functional import jacobian
from torchlite.distributions import constraints as C
from torchlite.distributions import transforms as T
from torchlite.distributions.bernoulli import Bernoulli
from torchlite.distributions.categorical import Categorical
from torchlite.distributions.cauchy import Cauchy
from torchlite.distributions.constraint_registry import ConstraintRegistry, biject_to, transform_to
from torchlite.distributions.exponential import Exponential
from torchlite.distributions.gumbel import Gumbel
from torchlite.distributions.half_cauchy import HalfCauchy
from torchlite.distributions.half_normal import HalfNormal
from torchlite.distributions.independent import Independent
from torchlite.distributions.kl import kl_divergence
from torchlite.distributions.kumaraswamy import Kumaraswamy
from torchlite.distributions.log_normal import LogNormal
from torchlite.distributions.logistic_normal import LogisticNormal
from torchlite.distributions.mixture_same_family import MixtureSameFamily
from torchlite.distributions.normal import Normal
from torchlite.distributions.pareto import Pareto
from torchlite.distributions.relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from torchlite.distributions.relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical
from torchlite.distributions.transformed_distribution import TransformedDistribution
from torchlite.distributions.uniform import Uniform
from torchlite.distributions.weibull import Weibull
import torchlite.distributions.kl_more  # noqa: F401  (registers the KL pairs tested below)

EULER = 0.57721566490153286061


def t(a, dtype=tl.float64):
    return tl.tensor(np.asarray(a, dtype=np.float64), dtype=dtype)


def lgamma(a):
    return np.vectorize(math.lgamma)(a)


def erf(a):
    return np.vectorize(math.erf)(a)


def integrate(f, lo, hi, n=400001):
    """The integral of f over [lo, hi] by the trapezoidal rule on n points."""
    x = np.linspace(lo, hi, n)
    y = f(x)
    return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2)


# ----------------------------------------------------------------------------------------------------- transforms
ELEMENTWISE = [
    ("exp", lambda: T.ExpTransform(), lambda r: r.normal(size=(3, 4))),
    ("affine", lambda: T.AffineTransform(0.5, -2.0), lambda r: r.normal(size=(3, 4))),
    ("affine_tensor", lambda: T.AffineTransform(t([1.0, -1, 0, 2]), t([0.5, 3.0, -1.5, 2.0])),
     lambda r: r.normal(size=(3, 4))),
    ("sigmoid", lambda: T.SigmoidTransform(), lambda r: 3 * r.normal(size=(3, 4))),
    ("tanh", lambda: T.TanhTransform(), lambda r: r.normal(size=(3, 4))),
    ("power", lambda: T.PowerTransform(2.5), lambda r: r.uniform(0.2, 3, size=(3, 4))),
    ("power_negative", lambda: T.PowerTransform(t(-0.7)), lambda r: r.uniform(0.2, 3, size=(3, 4))),
    ("softplus", lambda: T.SoftplusTransform(), lambda r: 3 * r.normal(size=(3, 4))),
    ("exp_inverse", lambda: T.ExpTransform().inv, lambda r: r.uniform(0.2, 3, size=(3, 4))),
    ("compose", lambda: T.ComposeTransform([T.AffineTransform(1.0, 0.5), T.SigmoidTransform(),
                                            T.AffineTransform(-1.0, 4.0)]), lambda r: r.normal(size=(3, 4))),
    ("sigmoid_inverse", lambda: T.SigmoidTransform().inv, lambda r: r.uniform(0.05, 0.95, size=(3, 4))),
    ("cdf", lambda: T.CumulativeDistributionTransform(Normal(t(0.3), t(1.5))), lambda r: r.normal(size=(3, 4))),
]


@pytest.mark.parametrize("name,make,draw", ELEMENTWISE, ids=[c[0] for c in ELEMENTWISE])
def test_elementwise_transform_inverse_and_jacobian(name, make, draw):
    """t.inv(t(x)) == x, y lies in the codomain, and log |dy/dx| matches a central difference."""
    tr = make()
    x_np = draw(np.random.default_rng(0))
    x = t(x_np)
    y = tr(x)
    assert bool(tr.codomain.check(y).all()) and bool(tr.domain.check(x).all())
    np.testing.assert_allclose(tr.inv(y).numpy(), x_np, rtol=1e-9, atol=1e-11)
    h = 1e-6
    slope = (tr(t(x_np + h)).numpy() - tr(t(x_np - h)).numpy()) / (2 * h)
    ldj = tr.log_abs_det_jacobian(x, y)
    assert ldj.shape == x.shape
    np.testing.assert_allclose(ldj.numpy(), np.log(np.abs(slope)), rtol=1e-6, atol=1e-6)
    # the sign says whether the map increases or decreases
    sign = tr.sign if isinstance(tr.sign, int) else tr.sign.numpy()
    assert np.all(np.sign(slope) == sign)
    assert tr.bijective and tr.event_dim == 0


def _log_abs_det(matrix):
    return float(np.linalg.slogdet(matrix)[1])


def test_stick_breaking_transform():
    tr = T.StickBreakingTransform()
    assert (tr.domain.event_dim, tr.codomain.event_dim, tr.event_dim) == (1, 1, 1)
    x = t(np.random.default_rng(1).normal(size=(2, 4)))
    y = tr(x)
    assert y.shape == (2, 5) and bool(C.simplex.check(y).all())
    np.testing.assert_allclose(y.sum(-1).numpy(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(tr.inv(y).numpy(), x.numpy(), rtol=1e-9, atol=1e-10)
    # x = 0 goes to the centre of the simplex
    np.testing.assert_allclose(tr(tl.zeros(3, dtype=tl.float64)).numpy(), np.full(4, 0.25), rtol=1e-12)
    ldj = tr.log_abs_det_jacobian(x, y)
    assert ldj.shape == (2,)
    for i in range(2):
        jac = jacobian(lambda v: tr(v)[:-1], x[i]).numpy()  # the first K coordinates determine the point
        assert ldj[i].item() == pytest.approx(_log_abs_det(jac), rel=1e-9, abs=1e-9)
    assert tr.forward_shape((7, 4)) == (7, 5) and tr.inverse_shape((7, 5)) == (7, 4)
    with pytest.raises(ValueError, match="Too few dimensions"):
        tr.forward_shape(())


def test_vector_transforms_jacobians_with_autograd():
    rng = np.random.default_rng(2)
    cases = [
        (T.AffineTransform(t([0.5, 1.0, -1.0]), t([2.0, -0.5, 3.0]), event_dim=1), rng.normal(size=(3,))),
        (T.IndependentTransform(T.SigmoidTransform(), 1), rng.normal(size=(3,))),
        (T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.IndependentTransform(T.TanhTransform(), 1)]),
         rng.normal(size=(3,))),
        (T.CorrCholeskyTransform(), rng.normal(size=(3,))),
    ]
    for tr, x_np in cases:
        x = t(x_np)
        y = tr(x)
        np.testing.assert_allclose(tr.inv(y).numpy(), x_np, rtol=1e-8, atol=1e-10)
        if isinstance(tr, T.CorrCholeskyTransform):
            assert y.shape == (3, 3) and bool(C.corr_cholesky.check(y))
            rows, cols = np.tril_indices(3, -1)
            jac = jacobian(lambda v: tr(v)[tuple(rows), tuple(cols)], x).numpy()
        else:
            jac = jacobian(tr, x).numpy()
        ldj = tr.log_abs_det_jacobian(x, y)
        assert ldj.dim() == 0
        assert ldj.item() == pytest.approx(_log_abs_det(jac), rel=1e-9, abs=1e-9)
    # a batch of vectors: one log-determinant per vector
    aff = T.AffineTransform(0.0, t([2.0, 3.0]), event_dim=1)
    xb = tl.ones(5, 2, dtype=tl.float64)
    np.testing.assert_allclose(aff.log_abs_det_jacobian(xb, aff(xb)).numpy(), np.full(5, math.log(6)))


def test_non_bijective_transforms():
    x = t(np.random.default_rng(3).normal(size=(2, 3, 3)))
    low = T.LowerCholeskyTransform()
    lc = low(x)
    assert bool(C.lower_cholesky.check(lc).all()) and not low.bijective
    np.testing.assert_allclose(low.inv(lc).numpy(), np.tril(x.numpy()), rtol=1e-12)
    pd = T.PositiveDefiniteTransform()(x)
    assert bool(C.positive_definite.check(pd).all())
    np.testing.assert_allclose(T.PositiveDefiniteTransform().inv(pd).numpy(), np.tril(x.numpy()), rtol=1e-9,
                               atol=1e-12)
    sm = T.SoftmaxTransform()
    v = t([[1.0, 2.0, 3.0], [1000.0, 1000.0, 0.0]])
    y = sm(v)
    e = np.exp(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(y.numpy()[0], e / e.sum(), rtol=1e-12)
    np.testing.assert_allclose(y.numpy()[1], [0.5, 0.5, 0.0], atol=1e-300)  # no overflow
    np.testing.assert_allclose(sm(sm.inv(y)).numpy(), y.numpy(), rtol=1e-12)  # a pseudo-inverse
    ab = T.AbsTransform()
    assert ab(t([-2.0, 3.0])).tolist() == [2.0, 3.0] and ab.inv(t([2.0])).tolist() == [2.0]
    with pytest.raises(NotImplementedError):
        ab.log_abs_det_jacobian(t([1.0]), t([1.0]))
    with pytest.raises(NotImplementedError):
        ab.sign


def test_reshape_cat_stack_transforms():
    r = T.ReshapeTransform((2, 3), (6,))
    x = t(np.arange(24.0).reshape(4, 2, 3))
    y = r(x)
    assert y.shape == (4, 6) and r.inv(y).shape == (4, 2, 3)
    assert r.log_abs_det_jacobian(x, y).tolist() == [0.0] * 4
    assert r.forward_shape((5, 2, 3)) == (5, 6) and r.inverse_shape((5, 6)) == (5, 2, 3)
    assert (r.domain.event_dim, r.codomain.event_dim) == (2, 1)
    with pytest.raises(ValueError, match="event_dim"):
        r.event_dim
    with pytest.raises(ValueError, match="different numbers of elements"):
        T.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ValueError, match="Shape mismatch"):
        r.forward_shape((2, 4))

    cat = T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 3.0)], dim=1, lengths=[1, 2])
    x = t(np.random.default_rng(4).normal(size=(4, 3)))
    y = cat(x)
    ref = np.concatenate([np.exp(x.numpy()[:, :1]), 1 + 3 * x.numpy()[:, 1:]], 1)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(cat.inv(y).numpy(), x.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cat.log_abs_det_jacobian(x, y).numpy(),
                               np.concatenate([x.numpy()[:, :1], np.full((4, 2), math.log(3))], 1), rtol=1e-12)
    assert bool(cat.codomain.check(y).all())

    st = T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=1)
    x2 = x[:, :2]
    y2 = st(x2)
    np.testing.assert_allclose(y2.numpy()[:, 0], np.exp(x2.numpy()[:, 0]), rtol=1e-12)
    np.testing.assert_allclose(y2.numpy()[:, 1], 1 / (1 + np.exp(-x2.numpy()[:, 1])), rtol=1e-12)
    np.testing.assert_allclose(st.inv(y2).numpy(), x2.numpy(), rtol=1e-10)
    assert st.log_abs_det_jacobian(x2, y2).shape == (4, 2)


def test_compose_domains_shapes_and_signs():
    c = T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.StickBreakingTransform(), T.ExpTransform()])
    assert repr(c.domain) == "IndependentConstraint(Real(), 1)"
    assert repr(c.codomain) == "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"
    assert c.event_dim == 1 and c.bijective
    assert c.forward_shape((5, 3)) == (5, 4) and c.inverse_shape((5, 4)) == (5, 3)
    x = t(np.random.default_rng(5).normal(size=(5, 3)))
    y = c(x)
    ldj = c.log_abs_det_jacobian(x, y)
    assert ldj.shape == (5,)
    # the first two parts map R^3 onto the simplex (log |det| of its first 3 coordinates); exp then acts on
    # all 4 coordinates u, adding sum(u)
    onto_simplex = T.ComposeTransform(c.parts[:2])
    jac = jacobian(lambda v: onto_simplex(v)[:-1], x[0]).numpy()
    assert ldj[0].item() == pytest.approx(_log_abs_det(jac) + onto_simplex(x[0]).sum().item(), rel=1e-9)
    np.testing.assert_allclose(c.inv(y).numpy(), x.numpy(), rtol=1e-9, atol=1e-10)
    # a matrix-wide affine map before a vector map: two event dims in, two out
    m = T.ComposeTransform([T.AffineTransform(0.0, 1.0, event_dim=2), T.StickBreakingTransform()])
    assert (m.domain.event_dim, m.codomain.event_dim) == (2, 2)
    assert repr(m.codomain) == "IndependentConstraint(Simplex(), 1)"
    dec = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, -1.0)])
    assert dec.sign == -1 and T.ComposeTransform([dec, dec]).sign == 1
    ident = T.identity_transform
    assert ident(x) is x and ident.log_abs_det_jacobian(x, x).tolist() == np.zeros((5, 3)).tolist()
    assert ident.sign == 1 and ident.event_dim == 0 and ident.bijective
    assert T.AffineTransform(t([0.0, 1.0]), 1.0).forward_shape((3, 1)) == (3, 2)
    assert T.PowerTransform(tl.ones(4, 1)).inverse_shape((3,)) == (4, 3)


def test_inverse_equality_and_cache():
    e = T.ExpTransform()
    assert e.inv is e.inv and e.inv.inv is e
    assert e == T.ExpTransform() and e != e.inv and e.inv == T.ExpTransform().inv
    assert T.SigmoidTransform() != T.TanhTransform()
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(t(1.0), 2.0)
    assert T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.PowerTransform(2.0) == T.PowerTransform(2.0) != T.PowerTransform(3.0)
    assert T.ComposeTransform([e, T.AffineTransform(0.0, 2.0)]) == T.ComposeTransform([T.ExpTransform(),
                                                                                        T.AffineTransform(0.0, 2.0)])
    assert repr(T.ComposeTransform([e])) == "ComposeTransform(\n    ExpTransform()\n)"
    assert repr(e.inv) == "_InverseTransform(ExpTransform())"
    assert repr(T.IndependentTransform(e, 2)) == "IndependentTransform(ExpTransform(), 2)"

    # without a cache the inverse is computed again; with one, the very same objects come back
    x = t([0.1, 0.5])
    plain = T.ExpTransform()
    y = plain(x)
    assert plain.inv(y) is not x and plain(x) is not y
    cached = T.ExpTransform(cache_size=1)
    y = cached(x)
    assert cached(x) is y and cached.inv(y) is x and cached.inv(y.clone()) is not x
    z = t([2.0])
    assert cached.inv(z) is cached.inv(z) and cached(cached.inv(z)) is z  # the inverse fills the cache too
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)
    assert plain.with_cache(0) is plain and plain.with_cache(1)._cache_size == 1
    for tr in (T.AffineTransform(1.0, 2.0), T.PowerTransform(2.0), T.IndependentTransform(plain, 1),
               T.ReshapeTransform((2,), (2,)), plain.inv, T.CatTransform([plain]), T.StackTransform([plain])):
        assert tr.with_cache(1)._cache_size == 1 and tr.with_cache(0) is tr
    comp = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, 2.0)], cache_size=1)
    assert [p._cache_size for p in comp.parts] == [1, 1]
    y = comp(x)
    assert comp.inv(y) is x
    # a cached inverse is exact where recomputing would lose precision
    th = T.TanhTransform(cache_size=1)
    big = t([25.0])
    assert th.inv(th(big)).item() == 25.0 and math.isinf(T.TanhTransform().inv(T.TanhTransform()(big)).item())


# ------------------------------------------------------------------------------------------ constraints, registry
def test_new_constraints():
    good = t([[1.0, 0.0], [0.5, 2.0]])
    assert bool(C.lower_cholesky.check(good)) and bool(C.lower_triangular.check(good))
    assert not bool(C.lower_cholesky.check(t([[1.0, 0.0], [0.5, -2.0]])))
    assert not bool(C.lower_triangular.check(good.t()))
    assert bool(C.positive_definite.check(good @ good.t())) and not bool(C.positive_definite.check(-good @ good.t()))
    assert bool(C.positive_semidefinite.check(tl.zeros(2, 2))) and not bool(C.symmetric.check(good))
    assert C.square.check(tl.zeros(4, 2, 3)).tolist() == [False] * 4
    assert bool(C.corr_cholesky.check(t([[1.0, 0.0], [0.6, 0.8]])))
    assert not bool(C.corr_cholesky.check(t([[1.0, 0.0], [0.6, 0.7]])))
    assert C.cat([C.positive, C.real], 0, [2, 1]).check(t([1.0, -1.0, -3.0])).tolist() == [True, False, True]
    assert C.stack([C.positive, C.real], 1).check(t([[1.0, -1.0], [-1.0, 2.0]])).tolist() == [[True, True],
                                                                                          [False, True]]
    assert C.lower_cholesky.event_dim == 2 and repr(C.lower_cholesky) == "LowerCholesky()"


@pytest.mark.parametrize("constraint", [
    C.real, C.positive, C.nonnegative, C.greater_than(2.0), C.greater_than_eq(-1.0), C.less_than(3.0),
    C.interval(-2.0, 5.0), C.half_open_interval(0.0, 2.0), C.unit_interval, C.simplex,
    C.independent(C.positive, 1), C.corr_cholesky, C.cat([C.positive, C.unit_interval], 0, [2, 2]),
    C.stack([C.positive, C.real, C.unit_interval, C.less_than(0.0)], 0),
], ids=repr)
def test_biject_to_reaches_the_constraint(constraint):
    x = t(np.random.default_rng(6).normal(size=(4,)) * 2)
    for registry in (biject_to, transform_to):
        tr = registry(constraint)
        y = tr(x) if not isinstance(tr, T.CorrCholeskyTransform) else tr(x[:3])
        assert bool(constraint.check(y).all())
    bij = biject_to(constraint)
    assert bij.bijective
    y = bij(x) if not isinstance(bij, T.CorrCholeskyTransform) else bij(x[:3])
    back = bij.inv(y)
    np.testing.assert_allclose(back.numpy(), (x if back.shape == x.shape else x[:3]).numpy(), rtol=1e-8, atol=1e-9)


def test_registry_choices_and_extension():
    assert isinstance(biject_to(C.unit_interval), T.SigmoidTransform)
    assert isinstance(biject_to(C.interval(0, 1)), T.SigmoidTransform)
    assert isinstance(biject_to(C.simplex), T.StickBreakingTransform)
    assert isinstance(transform_to(C.simplex), T.SoftmaxTransform)
    assert isinstance(transform_to(C.lower_cholesky), T.LowerCholeskyTransform)
    assert isinstance(transform_to(C.positive_definite), T.PositiveDefiniteTransform)
    assert biject_to(C.real) is T.identity_transform
    pos = biject_to(C.greater_than(2.0))
    assert isinstance(pos, T.ComposeTransform) and pos(t([0.0])).item() == 3.0
    assert biject_to(C.less_than(3.0))(t([0.0])).item() == 2.0
    assert isinstance(biject_to(C.independent(C.positive, 1)), T.IndependentTransform)
    for c in (C.lower_cholesky, C.positive_definite, C.boolean, C.integer_interval(0, 3)):
        with pytest.raises(NotImplementedError, match="Cannot transform"):
            biject_to(c)

    class _Odd(C.Constraint):
        def check(self, value):
            return value % 2 == 1

    reg = ConstraintRegistry()
    with pytest.raises(NotImplementedError):
        reg(_Odd())

    @reg.register(_Odd)
    def _factory(constraint):
        return T.AffineTransform(1.0, 2.0)

    assert isinstance(reg(_Odd()), T.AffineTransform)
    reg.register(C.positive, T.ExpTransform())
    with pytest.raises(TypeError):
        reg.register(3, _factory)
    assert isinstance(transform_to(C.positive)(t([0.0])), tl.Tensor)


# ---------------------------------------------------------------------------------- TransformedDistribution
def test_transformed_distribution_logistic():
    """Uniform(0, 1) pushed through logit then a + b x is the logistic law: log density
    -z - log b - 2 log(1 + e^-z) with z = (x - a) / b, CDF sigmoid(z)."""
    a, b = 0.5, 2.0
    d = TransformedDistribution(Uniform(t(0.0), t(1.0)), [T.SigmoidTransform().inv, T.AffineTransform(a, b)])
    x = np.array([-4.0, -0.5, 0.5, 3.0])
    z = (x - a) / b
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), -z - math.log(b) - 2 * np.log1p(np.exp(-z)), rtol=1e-10)
    np.testing.assert_allclose(d.cdf(t(x)).numpy(), 1 / (1 + np.exp(-z)), rtol=1e-10)
    p = t([0.1, 0.5, 0.9])
    np.testing.assert_allclose(d.icdf(p).numpy(), a + b * np.log(p.numpy() / (1 - p.numpy())), rtol=1e-10)
    assert d.has_rsample and d.batch_shape == () and d.event_shape == () and repr(d.support) == "Real()"
    # a decreasing map: the CDF of -X is the survival function of X
    neg = TransformedDistribution(Exponential(t(2.0)), T.AffineTransform(0.0, -1.0))
    np.testing.assert_allclose(neg.cdf(t([-1.0, -0.25])).numpy(), np.exp(-2 * np.array([1.0, 0.25])), rtol=1e-12)
    np.testing.assert_allclose(neg.icdf(neg.cdf(t([-1.0, -0.25]))).numpy(), [-1.0, -0.25], rtol=1e-12)


def test_transformed_distribution_shapes():
    base = Normal(tl.zeros(4, 3, dtype=tl.float64), tl.ones(4, 3, dtype=tl.float64))
    d = TransformedDistribution(base, [T.StickBreakingTransform()])
    assert d.batch_shape == (4,) and d.event_shape == (4,)
    assert isinstance(d.base_dist, Independent) and d.base_dist.batch_shape == (4,)
    assert repr(d.support) == "Simplex()"
    tl.manual_seed(0)
    s = d.sample((2,))
    assert s.shape == (2, 4, 4) and d.log_prob(s).shape == (2, 4)
    # log p(y) = sum of the base log densities at x - log |det| of the stick-breaking map
    x = T.StickBreakingTransform().inv(s)
    ref = base.log_prob(x).sum(-1) - T.StickBreakingTransform().log_abs_det_jacobian(x, s)
    np.testing.assert_allclose(d.log_prob(s).numpy(), ref.numpy(), rtol=1e-10)
    # an elementwise map of a vector-event base keeps the event
    e = TransformedDistribution(Independent(base, 1), T.ExpTransform())
    assert e.batch_shape == (4,) and e.event_shape == (3,)
    assert repr(e.support) == "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"
    # transform parameters broadcast the base up
    f = TransformedDistribution(base, T.AffineTransform(tl.zeros(5, 1, 1, dtype=tl.float64), 1.0))
    assert f.batch_shape == (5, 4, 3) and f.base_dist.batch_shape == (5, 4, 3)
    r = TransformedDistribution(base, T.ReshapeTransform((3,), (3, 1)))
    assert r.batch_shape == (4,) and r.event_shape == (3, 1)
    ex = d.expand((2, 4))
    assert ex.batch_shape == (2, 4) and ex.sample().shape == (2, 4, 4) and ex.base_dist.batch_shape == (2, 4)
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        TransformedDistribution(base, "exp")
    with pytest.raises(ValueError, match="list of Transforms"):
        TransformedDistribution(base, [T.ExpTransform(), 3])
    with pytest.raises(ValueError, match="needs to have shape with size at least 1"):
        TransformedDistribution(Normal(0.0, 1.0), [T.StickBreakingTransform()])


# ----------------------------------------------------------------------------------------- the families
X_POS = np.array([0.05, 0.4, 1.0, 2.7])


def test_lognormal_halfnormal_halfcauchy_cauchy_closed_forms():
    mu, s = 0.3, 0.8
    d = LogNormal(t(mu), t(s))
    z = (np.log(X_POS) - mu) / s
    np.testing.assert_allclose(d.log_prob(t(X_POS)).numpy(),
                               -0.5 * z ** 2 - np.log(X_POS * s * math.sqrt(2 * math.pi)), rtol=1e-12)
    np.testing.assert_allclose(d.cdf(t(X_POS)).numpy(), 0.5 * (1 + erf(z / math.sqrt(2))), rtol=1e-11)
    np.testing.assert_allclose(d.icdf(d.cdf(t(X_POS))).numpy(), X_POS, rtol=1e-10)
    assert d.mean.item() == pytest.approx(math.exp(mu + s * s / 2), rel=1e-12)
    assert d.variance.item() == pytest.approx((math.exp(s * s) - 1) * math.exp(2 * mu + s * s), rel=1e-12)
    assert d.mode.item() == pytest.approx(math.exp(mu - s * s), rel=1e-12)
    assert d.entropy().item() == pytest.approx(mu + 0.5 + math.log(s * math.sqrt(2 * math.pi)), rel=1e-12)
    assert (d.loc.item(), d.scale.item()) == (mu, s)

    sc = 1.7
    hn = HalfNormal(t(sc))
    np.testing.assert_allclose(hn.log_prob(t(X_POS)).numpy(),
                               np.log(2) - 0.5 * (X_POS / sc) ** 2 - np.log(sc * math.sqrt(2 * math.pi)), rtol=1e-12)
    np.testing.assert_allclose(hn.cdf(t(X_POS)).numpy(), erf(X_POS / (sc * math.sqrt(2))), rtol=1e-12)
    np.testing.assert_allclose(hn.icdf(hn.cdf(t(X_POS))).numpy(), X_POS, rtol=1e-10)
    assert hn.mean.item() == pytest.approx(sc * math.sqrt(2 / math.pi), rel=1e-12)
    assert hn.variance.item() == pytest.approx(sc * sc * (1 - 2 / math.pi), rel=1e-12)
    ref_h = -integrate(lambda x: np.exp(hn_lp(x, sc)) * hn_lp(x, sc), 0, 40 * sc)
    assert hn.entropy().item() == pytest.approx(ref_h, rel=1e-8)
    assert HalfNormal(t(sc), validate_args=False).log_prob(t(-1.0)).item() == -math.inf

    hc = HalfCauchy(t(sc))
    np.testing.assert_allclose(hc.log_prob(t(X_POS)).numpy(),
                               np.log(2 / (math.pi * sc * (1 + (X_POS / sc) ** 2))), rtol=1e-12)
    np.testing.assert_allclose(hc.cdf(t(X_POS)).numpy(), 2 / math.pi * np.arctan(X_POS / sc), rtol=1e-12)
    np.testing.assert_allclose(hc.icdf(hc.cdf(t(X_POS))).numpy(), X_POS, rtol=1e-10)
    assert math.isinf(hc.mean.item()) and math.isinf(hc.variance.item()) and hc.mode.item() == 0
    assert hc.entropy().item() == pytest.approx(math.log(2 * math.pi * sc), rel=1e-12)

    loc = -0.4
    c = Cauchy(t(loc), t(sc))
    xs = np.array([-5.0, -0.4, 0.0, 3.0])
    np.testing.assert_allclose(c.log_prob(t(xs)).numpy(), -np.log(math.pi * sc * (1 + ((xs - loc) / sc) ** 2)),
                               rtol=1e-12)
    np.testing.assert_allclose(c.cdf(t(xs)).numpy(), 0.5 + np.arctan((xs - loc) / sc) / math.pi, rtol=1e-12)
    np.testing.assert_allclose(c.icdf(c.cdf(t(xs))).numpy(), xs, rtol=1e-10, atol=1e-14)
    assert c.entropy().item() == pytest.approx(math.log(4 * math.pi * sc), rel=1e-12)
    assert math.isnan(c.mean.item()) and math.isinf(c.variance.item()) and c.mode.item() == loc


def hn_lp(x, sc):
    return math.log(2) - 0.5 * (x / sc) ** 2 - math.log(sc * math.sqrt(2 * math.pi))


def _check_moments_by_integration(d, lo, hi, logpdf, n=400001):
    """mean, variance and entropy of d against the integrals of its density (also checks it integrates
    to 1)."""
    def pdf(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.nan_to_num(np.exp(logpdf(x)))

    def plogp(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.nan_to_num(np.exp(logpdf(x)) * logpdf(x))

    assert integrate(pdf, lo, hi, n) == pytest.approx(1.0, abs=2e-5)
    m = integrate(lambda x: x * pdf(x), lo, hi, n)
    assert d.mean.item() == pytest.approx(m, rel=1e-4)
    assert d.variance.item() == pytest.approx(integrate(lambda x: (x - m) ** 2 * pdf(x), lo, hi, n), rel=1e-4)
    assert d.entropy().item() == pytest.approx(-integrate(plogp, lo, hi, n), rel=1e-4, abs=1e-5)


def test_gumbel_closed_forms():
    loc, sc = 0.7, 1.9
    g = Gumbel(t(loc), t(sc))
    xs = np.array([-3.0, 0.0, 0.7, 5.0])
    z = (xs - loc) / sc
    np.testing.assert_allclose(g.log_prob(t(xs)).numpy(), -z - np.exp(-z) - math.log(sc), rtol=1e-12)
    np.testing.assert_allclose(g.cdf(t(xs)).numpy(), np.exp(-np.exp(-z)), rtol=1e-9)
    np.testing.assert_allclose(g.icdf(t([0.2, 0.5, 0.9])).numpy(), loc - sc * np.log(-np.log([0.2, 0.5, 0.9])),
                               rtol=1e-9)
    # the transformed-distribution route gives the same density as the closed form
    route = TransformedDistribution.log_prob(g, t(xs))
    np.testing.assert_allclose(route.numpy(), g.log_prob(t(xs)).numpy(), rtol=1e-9)
    assert g.mode.item() == loc and g.stddev.item() == pytest.approx(math.pi / math.sqrt(6) * sc, rel=1e-12)
    _check_moments_by_integration(g, loc - 8 * sc, loc + 40 * sc,
                                  lambda x: -(x - loc) / sc - np.exp(-(x - loc) / sc) - math.log(sc))


def test_weibull_pareto_kumaraswamy_closed_forms():
    lam, k = 1.5, 2.3
    w = Weibull(t(lam), t(k))
    np.testing.assert_allclose(w.log_prob(t(X_POS)).numpy(),
                               np.log(k / lam) + (k - 1) * np.log(X_POS / lam) - (X_POS / lam) ** k, rtol=1e-10)
    np.testing.assert_allclose(w.cdf(t(X_POS)).numpy(), 1 - np.exp(-(X_POS / lam) ** k), rtol=1e-10)
    np.testing.assert_allclose(w.icdf(w.cdf(t(X_POS))).numpy(), X_POS, rtol=1e-9)
    assert w.mean.item() == pytest.approx(lam * math.gamma(1 + 1 / k), rel=1e-12)
    assert w.mode.item() == pytest.approx(lam * ((k - 1) / k) ** (1 / k), rel=1e-12)
    assert Weibull(t(1.0), t(0.5)).mode.item() == 0.0  # the density is largest at 0 for k <= 1
    _check_moments_by_integration(w, 0, 15, lambda x: np.log(k / lam) + (k - 1) * np.log(x / lam) - (x / lam) ** k)

    sc, al = 1.2, 3.5
    p = Pareto(t(sc), t(al))
    xp = np.array([1.2, 1.5, 3.0, 10.0])
    np.testing.assert_allclose(p.log_prob(t(xp)).numpy(), np.log(al) + al * math.log(sc) - (al + 1) * np.log(xp),
                               rtol=1e-10)
    np.testing.assert_allclose(p.cdf(t(xp)).numpy(), 1 - (sc / xp) ** al, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(p.icdf(t([0.1, 0.5])).numpy(), sc / (1 - np.array([0.1, 0.5])) ** (1 / al),
                               rtol=1e-10)
    assert p.mean.item() == pytest.approx(al * sc / (al - 1), rel=1e-12)
    assert p.variance.item() == pytest.approx(sc ** 2 * al / ((al - 1) ** 2 * (al - 2)), rel=1e-12)
    assert p.entropy().item() == pytest.approx(math.log(sc / al) + 1 / al + 1, rel=1e-12)
    assert p.mode.item() == sc and bool(p.support.check(t(1.2))) and not bool(p.support.check(t(1.1)))
    heavy = Pareto(t([1.0, 1.0]), t([0.8, 1.5]))
    assert math.isinf(heavy.mean[0].item()) and math.isfinite(heavy.mean[1].item())
    assert math.isinf(heavy.variance[1].item())

    a, b = 2.4, 1.7
    ku = Kumaraswamy(t(a), t(b))
    xk = np.array([0.05, 0.3, 0.6, 0.95])
    np.testing.assert_allclose(ku.log_prob(t(xk)).numpy(),
                               np.log(a * b) + (a - 1) * np.log(xk) + (b - 1) * np.log1p(-xk ** a), rtol=1e-9)
    np.testing.assert_allclose(ku.cdf(t(xk)).numpy(), 1 - (1 - xk ** a) ** b, rtol=1e-9)
    np.testing.assert_allclose(ku.icdf(ku.cdf(t(xk))).numpy(), xk, rtol=1e-8)
    grid = np.linspace(1e-4, 1 - 1e-4, 200001)
    logpdf = np.log(a * b) + (a - 1) * np.log(grid) + (b - 1) * np.log1p(-grid ** a)
    assert ku.mode.item() == pytest.approx(grid[np.argmax(logpdf)], abs=1e-4)
    assert math.isnan(Kumaraswamy(t(0.5), t(2.0)).mode.item())
    _check_moments_by_integration(ku, 0, 1, lambda x: np.log(a * b) + (a - 1) * np.log(x) +
                                  (b - 1) * np.log1p(-x ** a), n=2000001)


def test_logistic_normal():
    loc, sc = t([0.3, -1.0, 0.5]), t([0.7, 1.2, 2.0])
    d = LogisticNormal(loc, sc)
    assert d.batch_shape == () and d.event_shape == (4,) and repr(d.support) == "Simplex()"
    assert LogisticNormal(0.0, 1.0).event_shape == (2,)
    y = t([0.1, 0.2, 0.3, 0.4])
    x = T.StickBreakingTransform().inv(y)
    jac = jacobian(lambda v: T.StickBreakingTransform()(v)[:-1], x).numpy()
    ref = Normal(loc, sc).log_prob(x).sum().item() - _log_abs_det(jac)
    assert d.log_prob(y).item() == pytest.approx(ref, rel=1e-10)
    np.testing.assert_allclose(d.loc.numpy(), loc.numpy())
    # draws mapped back by the inverse stick-breaking map are Normal(loc, scale)
    tl.manual_seed(11)
    n = 20000
    back = T.StickBreakingTransform().inv(d.sample((n,))).numpy()
    assert np.all(np.abs(back.mean(0) - loc.numpy()) < 5 * sc.numpy() / math.sqrt(n))
    assert np.all(np.abs(back.std(0) - sc.numpy()) < 5 * sc.numpy() / math.sqrt(2 * n))


MOMENT_CASES = [
    ("LogNormal", lambda: LogNormal(t([0.2, -0.5]), t([0.4, 0.3]))),
    ("HalfNormal", lambda: HalfNormal(t([0.5, 2.0]))),
    ("Gumbel", lambda: Gumbel(t([0.0, 3.0]), t([1.0, 0.5]))),
    ("Weibull", lambda: Weibull(t([1.0, 2.5]), t([1.5, 4.0]))),
    ("Pareto", lambda: Pareto(t([1.0, 0.5]), t([6.0, 9.0]))),
    ("Kumaraswamy", lambda: Kumaraswamy(t([0.7, 3.0]), t([2.0, 1.5]))),
    ("Mixture", lambda: MixtureSameFamily(Categorical(probs=t([[0.3, 0.7], [0.5, 0.5]])),
                                          Normal(t([[-2.0, 1.0], [0.0, 4.0]]), t([[0.5, 1.0], [2.0, 0.3]])))),
]


@pytest.mark.parametrize("name,make", MOMENT_CASES, ids=[c[0] for c in MOMENT_CASES])
def test_sample_moments(name, make):
    """Sample means and variances of n = 20000 draws within 5 standard errors of mean and variance."""
    tl.manual_seed(1234)
    d = make()
    n = 20000
    s = d.sample((n,)).numpy()
    assert s.shape == (n, 2)
    mean, var = d.mean.numpy(), d.variance.numpy()
    assert np.all(np.abs(s.mean(0) - mean) < 5 * np.sqrt(var / n))
    m4 = ((s - mean) ** 4).mean(0)
    assert np.all(np.abs(s.var(0) - var) < 5 * np.sqrt(np.maximum(m4 - var ** 2, 1e-12) / n))
    assert bool(d.support.check(tl.tensor(s)).all())
    tl.manual_seed(1234)
    assert np.array_equal(make().sample((n,)).numpy(), s), "manual_seed reproduces the draws"


@pytest.mark.parametrize("make", [
    lambda: LogNormal(t([0.2]), t([0.4])), lambda: HalfNormal(t([0.5])), lambda: HalfCauchy(t([0.5])),
    lambda: Cauchy(t([0.0]), t([1.0])), lambda: Gumbel(t([0.0]), t([1.0])), lambda: Weibull(t([1.0]), t([1.5])),
    lambda: Pareto(t([1.0]), t([6.0])), lambda: Kumaraswamy(t([0.7]), t([2.0])),
    lambda: RelaxedBernoulli(t(0.5), probs=t([0.3])), lambda: LogitRelaxedBernoulli(t(0.5), logits=t([0.3])),
], ids=["LogNormal", "HalfNormal", "HalfCauchy", "Cauchy", "Gumbel", "Weibull", "Pareto", "Kumaraswamy",
        "RelaxedBernoulli", "LogitRelaxedBernoulli"])
def test_expand(make):
    """An expanded distribution draws and scores with the new batch shape, with the same densities."""
    d = make()
    e = d.expand((3, 1))
    assert type(e) is type(d) and e.batch_shape == (3, 1) and d.batch_shape == (1,)
    tl.manual_seed(4)
    s = e.sample((2,))
    assert s.shape == (2, 3, 1)
    np.testing.assert_allclose(e.log_prob(s).numpy(), d.log_prob(s).numpy(), rtol=1e-12)


def test_heavy_tailed_samples_quantiles():
    """Cauchy and HalfCauchy have no moments: the fraction of draws below a quantile matches it."""
    tl.manual_seed(5)
    n = 20000
    for d in (Cauchy(t(1.0), t(2.0)), HalfCauchy(t(0.5))):
        s = d.sample((n,))
        for p in (0.1, 0.5, 0.8):
            frac = float((s <= d.icdf(t(p))).double().mean().item())
            assert abs(frac - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_relaxed_bernoulli():
    temp, logits = t(0.5), t([-1.0, 0.3, 2.0])
    lrb = LogitRelaxedBernoulli(temp, logits=logits)
    xs = t([-2.0, 0.5, 3.0])
    # logistic density of x = (logits + L) / temperature
    u = temp.item() * xs.numpy() - logits.numpy()
    ref = math.log(temp.item()) - u - 2 * np.log1p(np.exp(-u))
    np.testing.assert_allclose(lrb.log_prob(xs).numpy(), ref, rtol=1e-12)
    rb = RelaxedBernoulli(temp, logits=logits)
    ys = tl.sigmoid(xs)
    jac = ys.numpy() * (1 - ys.numpy())
    np.testing.assert_allclose(rb.log_prob(ys).numpy(), ref - np.log(jac), rtol=1e-9)
    assert rb.temperature is temp and rb.batch_shape == (3,) and repr(rb.support) == repr(C.unit_interval)
    np.testing.assert_allclose(rb.probs.numpy(), 1 / (1 + np.exp(-logits.numpy())), rtol=1e-12)
    assert RelaxedBernoulli(0.5, probs=t([0.2])).temperature == 0.5
    assert repr(LogitRelaxedBernoulli(temp, probs=t([0.2, 0.9]))) == "LogitRelaxedBernoulli(probs: torchlite.Size([2]))"
    # P(X > 0) = P(L > -logits) = sigmoid(logits): the relaxed draw rounds to a Bernoulli(probs) draw
    tl.manual_seed(2)
    n = 20000
    s = rb.sample((n,)).numpy()
    p = 1 / (1 + np.exp(-logits.numpy()))
    assert np.all(np.abs((s > 0.5).mean(0) - p) < 5 * np.sqrt(p * (1 - p) / n))
    assert bool(((s > 0) & (s < 1)).all())


def test_relaxed_one_hot_categorical():
    temp = t(0.7)
    logits = t([[0.1, 1.0, -0.5], [2.0, 0.0, 0.0]])
    d = RelaxedOneHotCategorical(temp, logits=logits)
    assert d.batch_shape == (2,) and d.event_shape == (3,) and repr(d.support) == "Simplex()"
    e = ExpRelaxedCategorical(temp, logits=logits)
    assert e.event_shape == (3,) and repr(e.support) == "IndependentConstraint(Real(), 1)"
    # Concrete density on the simplex: (K-1)! tau^(K-1) prod(p_i y_i^(-tau-1)) / (sum p_i y_i^-tau)^K
    y = np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])
    pr = np.exp(logits.numpy())
    pr /= pr.sum(-1, keepdims=True)
    tau, k = temp.item(), 3
    ref = (math.log(math.factorial(k - 1)) + (k - 1) * math.log(tau) + np.sum(np.log(pr) - (tau + 1) * np.log(y), -1)
           - k * np.log(np.sum(pr * y ** -tau, -1)))
    np.testing.assert_allclose(d.log_prob(t(y)).numpy(), ref, rtol=1e-9)
    # RelaxedOneHotCategorical is exp of ExpRelaxedCategorical: the latter's log density at log y is the
    # former's at y plus log |det| of exp there, sum(log y)
    np.testing.assert_allclose(e.log_prob(t(np.log(y))).numpy(), ref + np.log(y).sum(-1), rtol=1e-9)
    # the Gumbel-max trick: the largest coordinate of a draw is Categorical(probs)
    tl.manual_seed(3)
    n = 20000
    s = d.sample((n,))
    np.testing.assert_allclose(s.sum(-1).numpy(), 1.0, rtol=1e-12)
    counts = np.stack([(s.argmax(-1).numpy() == j).mean(0) for j in range(3)], -1)
    assert np.all(np.abs(counts - pr) < 5 * np.sqrt(pr * (1 - pr) / n))
    assert d.expand((4, 2)).sample().shape == (4, 2, 3)


@pytest.mark.parametrize("make", [
    lambda a, b: LogNormal(a, b), lambda a, b: HalfNormal(b), lambda a, b: Gumbel(a, b),
    lambda a, b: Weibull(b, b + 1), lambda a, b: Kumaraswamy(b, b + 0.5), lambda a, b: Cauchy(a, b),
    lambda a, b: Pareto(b, b + 2), lambda a, b: HalfCauchy(b), lambda a, b: LogisticNormal(a, b),
    lambda a, b: RelaxedBernoulli(b, logits=a), lambda a, b: RelaxedOneHotCategorical(b[0], logits=a),
], ids=["LogNormal", "HalfNormal", "Gumbel", "Weibull", "Kumaraswamy", "Cauchy", "Pareto", "HalfCauchy",
        "LogisticNormal", "RelaxedBernoulli", "RelaxedOneHotCategorical"])
def test_rsample_and_log_prob_gradients(make):
    a = t([0.3, -0.6]).requires_grad_()
    b = t([0.8, 1.4]).requires_grad_()

    def draw(a, b):
        tl.manual_seed(9)  # the same noise on every call: the draw is a function of the parameters
        return make(a, b).rsample((3,))

    assert make(a, b).has_rsample
    assert gradcheck(draw, (a, b))
    value = make(a, b).sample((2,))
    assert not value.requires_grad
    assert gradcheck(lambda a, b: make(a, b).log_prob(value), (a, b))


def test_validation_errors():
    bad = [
        lambda: LogNormal(0.0, -1.0), lambda: HalfNormal(t(-1.0)), lambda: HalfCauchy(t(0.0)),
        lambda: Cauchy(0.0, -2.0), lambda: Gumbel(0.0, t(-1.0)), lambda: Weibull(-1.0, 1.0),
        lambda: Weibull(1.0, 0.0), lambda: Pareto(1.0, -1.0), lambda: Kumaraswamy(-1.0, 1.0),
        lambda: LogisticNormal(t([0.0]), t([-1.0])), lambda: RelaxedBernoulli(t(0.5), probs=t(1.5)),
        lambda: RelaxedOneHotCategorical(t(0.5), probs=t([0.5, -0.5])),
    ]
    for make in bad:
        with pytest.raises(ValueError):
            make()
    with pytest.raises(ValueError, match="support"):
        HalfNormal(t(1.0)).log_prob(t(-1.0))
    with pytest.raises(ValueError, match="support"):
        LogNormal(0.0, 1.0).log_prob(t(-1.0))
    with pytest.raises(ValueError, match="support"):
        Pareto(t(2.0), t(1.0)).log_prob(t(1.0))
    with pytest.raises(ValueError, match="support"):
        RelaxedOneHotCategorical(t(0.5), probs=t([0.5, 0.5])).log_prob(t([0.5, 0.7]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        RelaxedBernoulli(t(0.5))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        ExpRelaxedCategorical(t(0.5), probs=t([0.5, 0.5]), logits=t([0.0, 0.0]))
    # without validation the bad parameter goes through
    assert LogNormal(0.0, -1.0, validate_args=False).scale.item() == -1.0


# ------------------------------------------------------------------------------- Independent, MixtureSameFamily
def test_independent():
    base = Normal(t([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]]), t([[1.0, 2.0, 0.5], [1.5, 1.0, 3.0]]))
    d = Independent(base, 1)
    assert d.batch_shape == (2,) and d.event_shape == (3,) and d.has_rsample and not d.has_enumerate_support
    assert repr(d.support) == "IndependentConstraint(Real(), 1)"
    assert repr(d).startswith("Independent(Normal(") and repr(d).endswith(", 1)")
    x = t([[0.5, 0.0, 1.0], [2.0, -2.0, 0.0]])
    np.testing.assert_allclose(d.log_prob(x).numpy(), base.log_prob(x).sum(-1).numpy(), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), base.entropy().sum(-1).numpy(), rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), base.mean.numpy())
    np.testing.assert_allclose(d.variance.numpy(), base.variance.numpy())
    whole = Independent(base, 2)
    assert whole.batch_shape == () and whole.event_shape == (2, 3) and whole.log_prob(x).dim() == 0
    assert whole.log_prob(x).item() == pytest.approx(base.log_prob(x).sum().item(), rel=1e-12)
    ex = d.expand((4, 2))
    assert ex.batch_shape == (4, 2) and ex.sample().shape == (4, 2, 3) and ex.base_dist.batch_shape == (4, 2, 3)
    assert d.sample((5,)).shape == (5, 2, 3) and d.rsample().shape == (2, 3)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims <= len"):
        Independent(base, 3)
    with pytest.raises(NotImplementedError, match="cartesian product"):
        Independent(Bernoulli(probs=t([0.2, 0.5])), 1).enumerate_support()
    assert Independent(Bernoulli(probs=t([0.2, 0.5])), 0).enumerate_support().shape == (2, 2)


def test_mixture_same_family():
    w = np.array([0.2, 0.5, 0.3])
    mu, sd = np.array([-1.0, 0.5, 3.0]), np.array([0.5, 1.0, 2.0])
    d = MixtureSameFamily(Categorical(probs=t(w)), Normal(t(mu), t(sd)))
    assert d.batch_shape == () and d.event_shape == () and not d.has_rsample
    x = np.array([-2.0, 0.0, 1.0, 4.0])
    dens = (w / (sd * math.sqrt(2 * math.pi)) * np.exp(-0.5 * ((x[:, None] - mu) / sd) ** 2)).sum(-1)
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), np.log(dens), rtol=1e-12)
    np.testing.assert_allclose(d.cdf(t(x)).numpy(),
                               (w * 0.5 * (1 + erf((x[:, None] - mu) / (sd * math.sqrt(2))))).sum(-1), rtol=1e-12)
    m = (w * mu).sum()
    assert d.mean.item() == pytest.approx(m, rel=1e-12)
    assert d.variance.item() == pytest.approx((w * (sd ** 2 + mu ** 2)).sum() - m ** 2, rel=1e-12)
    assert repr(d).startswith("MixtureSameFamily(\n  Categorical(")
    assert d.log_prob(t(x).reshape(2, 2)).shape == (2, 2)
    # vector events (Independent components) and a mixture batch that broadcasts against the components'
    comps = Independent(Normal(tl.zeros(4, 3, 2, dtype=tl.float64), tl.ones(4, 3, 2, dtype=tl.float64)), 1)
    v = MixtureSameFamily(Categorical(logits=tl.zeros(1, 3, dtype=tl.float64)), comps)
    assert v.batch_shape == (4,) and v.event_shape == (2,)
    tl.manual_seed(0)
    s = v.sample((5,))
    assert s.shape == (5, 4, 2) and v.log_prob(s).shape == (5, 4)
    assert v.mean.shape == (4, 2) and v.variance.shape == (4, 2)
    assert v.expand((6, 4)).sample().shape == (6, 4, 2)
    # a draw is one of the components' draws
    tl.manual_seed(1)
    picked = MixtureSameFamily(Categorical(probs=t([0.5, 0.5])), Uniform(t([0.0, 10.0]), t([1.0, 11.0]))).sample((200,))
    vals = picked.numpy()
    assert np.all(((vals >= 0) & (vals < 1)) | ((vals >= 10) & (vals < 11)))
    assert 40 < (vals >= 10).sum() < 160
    with pytest.raises(ValueError, match="Mixture distribution needs to be an"):
        MixtureSameFamily(Normal(t([0.0]), t([1.0])), Normal(t([0.0]), t([1.0])))
    with pytest.raises(ValueError, match="Component distribution needs to be an instance"):
        MixtureSameFamily(Categorical(probs=t([1.0])), 3)
    with pytest.raises(ValueError, match="does not equal"):
        MixtureSameFamily(Categorical(probs=t([0.5, 0.5])), Normal(t(mu), t(sd)))
    with pytest.raises(ValueError, match="is not compatible"):
        MixtureSameFamily(Categorical(logits=tl.zeros(2, 3)), Normal(tl.zeros(4, 3), tl.ones(4, 3)))


# ------------------------------------------------------------------------------------------------------- KL
def test_kl_wrappers_and_families():
    p0 = Normal(t([0.0, 1.0]), t([1.0, 2.0]))
    q0 = Normal(t([0.5, -1.0]), t([1.5, 0.7]))
    pair = kl_divergence(p0, q0)
    ind = kl_divergence(Independent(p0, 1), Independent(q0, 1))
    assert ind.dim() == 0 and ind.item() == pytest.approx(pair.sum().item(), rel=1e-12)
    with pytest.raises(NotImplementedError):
        kl_divergence(Independent(Normal(tl.zeros(2, 2), 1.0), 1), Independent(Normal(tl.zeros(2, 2), 1.0), 2))
    np.testing.assert_allclose(kl_divergence(LogNormal(p0.loc, p0.scale), LogNormal(q0.loc, q0.scale)).numpy(),
                               pair.numpy(), rtol=1e-12)
    ln = LogisticNormal(p0.loc, p0.scale)
    assert kl_divergence(ln, LogisticNormal(q0.loc, q0.scale)).item() == pytest.approx(pair.sum().item(), rel=1e-12)
    with pytest.raises(NotImplementedError):
        kl_divergence(TransformedDistribution(p0, T.ExpTransform()), TransformedDistribution(q0, T.SigmoidTransform()))

    def numeric_kl(p, q, lo, hi, n=400001):
        """The integral of p (log p - log q) over [lo, hi], from the two distributions' own log densities."""
        def integrand(x):
            lp, lq = p.log_prob(t(x)).numpy(), q.log_prob(t(x)).numpy()
            return np.exp(lp) * (lp - lq)
        return integrate(integrand, lo, hi, n)

    hn = kl_divergence(HalfNormal(t(1.3)), HalfNormal(t(0.6))).item()
    assert hn == pytest.approx(numeric_kl(HalfNormal(t(1.3)), HalfNormal(t(0.6)), 0, 20), rel=1e-6)
    gp, gq = Gumbel(t(0.5), t(1.2)), Gumbel(t(-0.3), t(2.0))
    assert kl_divergence(gp, gq).item() == pytest.approx(numeric_kl(gp, gq, -10, 60), rel=1e-6)
    cp, cq = Cauchy(t(0.5), t(1.2)), Cauchy(t(-1.0), t(0.4))
    # the Cauchy tails decay slowly: integrate over the quantile scale instead, x = icdf_p(u)
    def by_quantile(u):
        xs = cp.icdf(t(u))
        return (cp.log_prob(xs) - cq.log_prob(xs)).numpy()

    assert kl_divergence(cp, cq).item() == pytest.approx(integrate(by_quantile, 1e-9, 1 - 1e-9, 2000001), rel=1e-4)
    pp, pq = Pareto(t(1.5), t(3.0)), Pareto(t(1.0), t(2.0))
    assert kl_divergence(pp, pq).item() == pytest.approx(numeric_kl(pp, pq, 1.5, 3000, 2000001), rel=1e-5)
    assert math.isinf(kl_divergence(pq, pp).item())  # q puts mass where p has none


# ---------------------------------------------------------------------------------------------- PyTorch oracle
def test_against_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is an optional oracle")
    TD = torch.distributions
    from torch.distributions.relaxed_bernoulli import LogitRelaxedBernoulli as TorchLRB
    from torch.distributions.relaxed_categorical import ExpRelaxedCategorical as TorchERC

    a = np.array([0.3, 1.7, 2.5])
    b = np.array([0.8, 2.2, 3.1])
    cases = [
        (Cauchy, TD.Cauchy, (a - 1, b), [-1.0, 0.5, 4.0]),
        (LogNormal, TD.LogNormal, (a - 1, b), [0.2, 1.5, 4.0]),
        (HalfNormal, TD.HalfNormal, (b,), [0.2, 1.5, 4.0]),
        (HalfCauchy, TD.HalfCauchy, (b,), [0.2, 1.5, 4.0]),
        (Gumbel, TD.Gumbel, (a - 1, b), [-1.0, 0.5, 4.0]),
        (Weibull, TD.Weibull, (b, a + 1), [0.2, 1.5, 4.0]),
        (Pareto, TD.Pareto, (a, b), [0.5, 2.5, 4.0]),
        (Kumaraswamy, TD.Kumaraswamy, (a, b), [0.2, 0.5, 0.9]),
        (LogisticNormal, TD.LogisticNormal, (a - 1, b), [0.2, 0.1, 0.3, 0.4]),
        (RelaxedBernoulli, TD.RelaxedBernoulli, (np.array(0.7), b / 4), [0.2, 0.5, 0.9]),
        (LogitRelaxedBernoulli, TorchLRB, (np.array(0.7), b / 4), [-0.2, 0.5, 1.9]),
        (RelaxedOneHotCategorical, TD.RelaxedOneHotCategorical, (np.array(0.7), b / 7), [0.2, 0.5, 0.3]),
        (ExpRelaxedCategorical, TorchERC, (np.array(0.7), b / 7), np.log([0.2, 0.5, 0.3])),
    ]
    probes = t([0.1, 0.5, 0.8])
    for ours_cls, theirs_cls, params, x in cases:
        x = np.asarray(x, dtype=np.float64)  # (torch.tensor of a list would be float32)
        ours = ours_cls(*[t(p) for p in params])
        theirs = theirs_cls(*[torch.tensor(p, dtype=torch.float64) for p in params])
        assert (tuple(ours.batch_shape), tuple(ours.event_shape)) == (tuple(theirs.batch_shape),
                                                                      tuple(theirs.event_shape)), ours_cls
        assert repr(ours.support) == repr(theirs.support).replace("torch.", "torchlite.")
        assert ours.has_rsample == theirs.has_rsample, ours_cls
        assert repr(ours).replace("torchlite.", "torch.") == repr(theirs), ours_cls
        np.testing.assert_allclose(ours.log_prob(t(x)).numpy(), theirs.log_prob(torch.tensor(x)).numpy(),
                                   rtol=1e-9, err_msg=ours_cls.__name__)
        checks = [("cdf", lambda d, m: d.cdf(m.tensor(x, dtype=m.float64))),
                  ("icdf", lambda d, m: d.icdf(m.tensor(probes.numpy(), dtype=m.float64))),
                  ("entropy", lambda d, m: d.entropy()), ("mean", lambda d, m: d.mean),
                  ("variance", lambda d, m: d.variance)]
        for name, get in checks:
            try:
                want = get(theirs, torch).numpy()
            except NotImplementedError:
                with pytest.raises(NotImplementedError):
                    get(ours, tl)
                continue
            np.testing.assert_allclose(get(ours, tl).numpy(), want, rtol=1e-9, err_msg=f"{ours_cls.__name__}.{name}")

    # the transforms' values, log-determinants and constraints
    TT = torch.distributions.transforms
    x = np.random.default_rng(8).normal(size=(4, 3))
    pairs = [
        (T.StickBreakingTransform(), TT.StickBreakingTransform()),
        (T.SoftplusTransform(), TT.SoftplusTransform()),
        (T.TanhTransform(), TT.TanhTransform()),
        (T.AffineTransform(0.3, t([2.0, -0.5, 3.0]), event_dim=1),
         TT.AffineTransform(0.3, torch.tensor([2.0, -0.5, 3.0], dtype=torch.float64), event_dim=1)),
        (T.CorrCholeskyTransform(), TT.CorrCholeskyTransform()),
        (T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.StickBreakingTransform(), T.ExpTransform()]),
         TT.ComposeTransform([TT.AffineTransform(0.0, 2.0), TT.StickBreakingTransform(), TT.ExpTransform()])),
    ]
    for ours, theirs in pairs:
        oy, ty = ours(t(x)), theirs(torch.tensor(x))
        np.testing.assert_allclose(oy.numpy(), ty.numpy(), rtol=1e-10)
        np.testing.assert_allclose(ours.log_abs_det_jacobian(t(x), oy).numpy(),
                                   theirs.log_abs_det_jacobian(torch.tensor(x), ty).numpy(), rtol=1e-9, atol=1e-12)
        assert (repr(ours.domain), repr(ours.codomain)) == (repr(theirs.domain), repr(theirs.codomain))
    for c, tc in [(C.positive, TD.constraints.positive), (C.unit_interval, TD.constraints.unit_interval),
                  (C.simplex, TD.constraints.simplex), (C.interval(1.0, 4.0), TD.constraints.interval(1.0, 4.0))]:
        assert repr(biject_to(c)) == repr(TD.biject_to(tc)) and repr(transform_to(c)) == repr(TD.transform_to(tc))

    # KL divergences
    kl_cases = [
        (lambda m, D: D.Gumbel(m.tensor([0.5, 1.0], dtype=m.float64), m.tensor([1.2, 0.3], dtype=m.float64)),
         lambda m, D: D.Gumbel(m.tensor([-0.3, 0.0], dtype=m.float64), m.tensor([2.0, 0.5], dtype=m.float64))),
        (lambda m, D: D.HalfNormal(m.tensor([1.3, 0.2], dtype=m.float64)),
         lambda m, D: D.HalfNormal(m.tensor([0.6, 0.9], dtype=m.float64))),
        (lambda m, D: D.LogNormal(m.tensor([0.1, 1.0], dtype=m.float64), m.tensor([1.3, 0.2], dtype=m.float64)),
         lambda m, D: D.LogNormal(m.tensor([0.0, -1.0], dtype=m.float64), m.tensor([0.6, 0.9], dtype=m.float64))),
        (lambda m, D: D.Pareto(m.tensor([1.5, 1.0], dtype=m.float64), m.tensor([3.0, 2.0], dtype=m.float64)),
         lambda m, D: D.Pareto(m.tensor([1.0, 1.5], dtype=m.float64), m.tensor([2.0, 3.0], dtype=m.float64))),
    ]
    ns = type("ours", (), dict(Gumbel=Gumbel, HalfNormal=HalfNormal, LogNormal=LogNormal, Pareto=Pareto))
    for mp, mq in kl_cases:
        ours = kl_divergence(mp(tl, ns), mq(tl, ns)).numpy()
        theirs = TD.kl_divergence(mp(torch, TD), mq(torch, TD)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-9)
