"""torchlite.distributions' families over the samplers and the linear algebra: Gamma, Chi2, Beta, Dirichlet,
StudentT, Poisson, Binomial, Geometric, NegativeBinomial, OneHotCategorical, Multinomial, MultivariateNormal.
Densities against closed forms written here with `math`, sample moments, the reparameterized gradients'
expectations, KL divergences against Monte Carlo, and (optional) PyTorch's numbers."""
import math

import numpy as np
import pytest

import torchlite as tl
import torchlite.distributions as D
from test_distributions import check_kl_against_monte_carlo

N = 20000


def t(a):
    return tl.tensor(np.asarray(a, dtype=np.float64), dtype=tl.float64)


def lbeta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def test_continuous_densities_against_closed_forms():
    x = np.array([0.05, 0.5, 1.0, 3.2])
    c, r = 2.5, 1.5
    g = D.Gamma(t(c), t(r))
    ref = c * math.log(r) + (c - 1) * np.log(x) - r * x - math.lgamma(c)
    np.testing.assert_allclose(g.log_prob(t(x)).numpy(), ref, rtol=1e-12)
    digamma = -0.5772156649015329 - 2 * math.log(2) + 2 + 2 / 3  # digamma(2.5) = digamma(1/2) + 1/(1/2) + 1/(3/2)
    assert g.entropy().item() == pytest.approx(c - math.log(r) + math.lgamma(c) + (1 - c) * digamma, rel=1e-12)
    chi = D.Chi2(t(3.0))
    np.testing.assert_allclose(chi.log_prob(t(x)).numpy(),
                               0.5 * np.log(x) - x / 2 - 1.5 * math.log(2) - math.lgamma(1.5), rtol=1e-12)
    assert (chi.mean.item(), chi.variance.item(), chi.mode.item()) == (3.0, 6.0, 1.0)

    u = np.array([0.1, 0.5, 0.93])
    a, b = 0.7, 2.5
    beta = D.Beta(t(a), t(b))
    np.testing.assert_allclose(beta.log_prob(t(u)).numpy(),
                               (a - 1) * np.log(u) + (b - 1) * np.log1p(-u) - lbeta(a, b), rtol=1e-12)
    assert beta.mean.item() == pytest.approx(a / (a + b)) and beta.mode.item() == 0.0

    alpha = np.array([1.5, 0.5, 3.0])
    pt = np.array([0.2, 0.3, 0.5])
    ref = ((alpha - 1) * np.log(pt)).sum() + math.lgamma(alpha.sum()) - sum(math.lgamma(v) for v in alpha)
    assert D.Dirichlet(t(alpha)).log_prob(t(pt)).item() == pytest.approx(ref, rel=1e-12)

    df, loc, scale = 3.5, 1.0, 2.0
    st = D.StudentT(t(df), t(loc), t(scale))
    y = (x - loc) / scale
    ref = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi) - math.log(scale)
           - (df + 1) / 2 * np.log1p(y * y / df))
    np.testing.assert_allclose(st.log_prob(t(x)).numpy(), ref, rtol=1e-12)
    assert st.variance.item() == pytest.approx(scale ** 2 * df / (df - 2))
    low = D.StudentT(t([0.8, 1.5]))
    assert np.isnan(low.mean.numpy()[0]) and low.mean.numpy()[1] == 0.0
    assert np.isnan(low.variance.numpy()[0]) and low.variance.numpy()[1] == math.inf


def test_discrete_masses_against_closed_forms():
    k = np.array([0.0, 1.0, 4.0, 9.0])
    lam = 3.3
    np.testing.assert_allclose(D.Poisson(t(lam)).log_prob(t(k)).numpy(),
                               k * math.log(lam) - lam - np.array([math.lgamma(v + 1) for v in k]), rtol=1e-12)
    n, p = 9, 0.35
    ref = [math.log(math.comb(n, int(v))) + v * math.log(p) + (n - v) * math.log(1 - p) for v in k]
    np.testing.assert_allclose(D.Binomial(n, t(p)).log_prob(t(k)).numpy(), ref, rtol=1e-10)
    bl = D.Binomial(n, logits=t(math.log(p / (1 - p))))
    np.testing.assert_allclose(bl.log_prob(t(k)).numpy(), ref, rtol=1e-10)
    ent = -sum(math.comb(n, v) * p ** v * (1 - p) ** (n - v) * math.log(math.comb(n, v) * p ** v * (1 - p) ** (n - v))
               for v in range(n + 1))
    assert D.Binomial(n, t(p)).entropy().item() == pytest.approx(ent, rel=1e-10)
    assert D.Binomial(t([10.0, 10.0]), t([0.33, 1.0])).mode.tolist() == [3.0, 10.0]
    np.testing.assert_allclose(D.Geometric(t(p)).log_prob(t(k)).numpy(), k * math.log(1 - p) + math.log(p), rtol=1e-12)
    r = 2.5
    ref = [math.lgamma(v + r) - math.lgamma(v + 1) - math.lgamma(r) + r * math.log(1 - p) + v * math.log(p) for v in k]
    np.testing.assert_allclose(D.NegativeBinomial(t(r), t(p)).log_prob(t(k)).numpy(), ref, rtol=1e-10)
    counts = np.array([1.0, 0.0, 3.0])
    probs = np.array([0.2, 0.3, 0.5])
    ref = math.lgamma(5) - sum(math.lgamma(c + 1) for c in counts) + (counts * np.log(probs)).sum()
    assert D.Multinomial(4, t(probs)).log_prob(t(counts)).item() == pytest.approx(ref, rel=1e-12)
    oh = D.OneHotCategorical(t(probs))
    assert oh.log_prob(t([0.0, 0.0, 1.0])).item() == pytest.approx(math.log(0.5), rel=1e-12)
    assert oh.mode.tolist() == [0.0, 0.0, 1.0] and oh.enumerate_support().shape == (3, 3)


def test_multivariate_normal_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    mu = np.array([0.5, -1.0, 2.0])
    x = rng.standard_normal((4, 3))
    diff = x - mu
    inv = np.linalg.inv(cov)
    ref = -0.5 * (3 * math.log(2 * math.pi) + np.linalg.slogdet(cov)[1] + np.einsum("ni,ij,nj->n", diff, inv, diff))
    for kw in ({"covariance_matrix": t(cov)}, {"precision_matrix": t(inv)},
               {"scale_tril": t(np.linalg.cholesky(cov))}):
        d = D.MultivariateNormal(t(mu), **kw)
        np.testing.assert_allclose(d.log_prob(t(x)).numpy(), ref, rtol=1e-10)
        np.testing.assert_allclose(d.covariance_matrix.numpy(), cov, rtol=1e-10)
        np.testing.assert_allclose(d.precision_matrix.numpy(), inv, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(d.variance.numpy(), np.diag(cov), rtol=1e-12)
        assert d.entropy().item() == pytest.approx(0.5 * (3 * (1 + math.log(2 * math.pi)) + np.linalg.slogdet(cov)[1]))
    batched = D.MultivariateNormal(t(np.zeros((2, 1, 3))), t(cov))
    assert batched.batch_shape == (2, 1) and batched.rsample((5,)).shape == (5, 2, 1, 3)
    assert batched.expand((2, 4)).log_prob(t(x[0])).shape == (2, 4)
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.MultivariateNormal(t(mu))
    with pytest.raises(ValueError, match="to satisfy the constraint PositiveDefinite"):
        D.MultivariateNormal(t(mu), t(-cov))


@pytest.mark.parametrize("make,mean,var", [
    (lambda: D.Gamma(t([0.4, 6.0]), t([2.0, 0.5])), [0.2, 12.0], [0.1, 24.0]),
    (lambda: D.Chi2(t([1.0, 7.0])), [1.0, 7.0], [2.0, 14.0]),
    (lambda: D.Beta(t([0.5, 4.0]), t([0.5, 2.0])), [0.5, 4 / 6], [0.125, 8 / 252]),
    (lambda: D.StudentT(t([5.0, 9.0]), t([1.0, -2.0]), t([1.0, 0.5])), [1.0, -2.0], [5 / 3, 0.25 * 9 / 7]),
    (lambda: D.Poisson(t([0.7, 55.0])), [0.7, 55.0], [0.7, 55.0]),
    (lambda: D.Binomial(t([12.0, 300.0]), t([0.25, 0.6])), [3.0, 180.0], [2.25, 72.0]),
    (lambda: D.Geometric(t([0.3, 0.9])), [7 / 3, 1 / 9], [7 / 0.9, 1 / 8.1]),
    (lambda: D.NegativeBinomial(t([3.0, 0.5]), t([0.4, 0.8])), [2.0, 2.0], [10 / 3, 10.0]),
])
def test_sample_moments(make, mean, var):
    tl.manual_seed(21)
    d = make()
    s = d.sample((N,)).numpy()
    assert s.shape == (N, 2) and np.all(d.support.check(t(s)).numpy())
    mean, var = np.array(mean), np.array(var)
    assert np.all(np.abs(s.mean(0) - mean) < 5 * np.sqrt(var / N)), (s.mean(0), mean)
    m4 = ((s - mean) ** 4).mean(0)
    assert np.all(np.abs(s.var(0) - var) < 5 * np.sqrt(np.maximum(m4 - var ** 2, 1e-12) / N)), (s.var(0), var)
    np.testing.assert_allclose(d.mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), var, rtol=1e-12)


def test_vector_sample_moments():
    tl.manual_seed(22)
    alpha = np.array([0.5, 2.0, 3.5])
    s = D.Dirichlet(t(alpha)).sample((N,)).numpy()
    a0 = alpha.sum()
    var = alpha * (a0 - alpha) / (a0 ** 2 * (a0 + 1))
    assert np.allclose(s.sum(-1), 1) and np.all(np.abs(s.mean(0) - alpha / a0) < 5 * np.sqrt(var / N))
    probs = np.array([0.1, 0.6, 0.3])
    m = D.Multinomial(7, t(probs)).sample((N,)).numpy()
    assert np.all(m.sum(-1) == 7) and np.all(np.abs(m.mean(0) - 7 * probs) < 5 * np.sqrt(7 * probs * (1 - probs) / N))
    oh = D.OneHotCategorical(t(probs)).sample((N,)).numpy()
    assert np.all(oh.sum(-1) == 1) and np.all(np.abs(oh.mean(0) - probs) < 5 * np.sqrt(probs * (1 - probs) / N))
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + np.eye(3)
    x = D.MultivariateNormal(t([1.0, 0.0, -1.0]), t(cov)).sample((N,)).numpy()
    assert np.all(np.abs(x.mean(0) - [1.0, 0.0, -1.0]) < 5 * np.sqrt(np.diag(cov) / N))
    assert np.abs(np.cov(x.T) - cov).max() < 0.1


def _mean_gradient(make, params, f):
    """The mean over N draws of d f(rsample) / d params, and its standard error."""
    ps = [t(np.full(N, p)).requires_grad_() for p in params]
    tl.manual_seed(23)
    f(make(*ps).rsample()).sum().backward()
    return [(p.grad.numpy().mean(), p.grad.numpy().std() / math.sqrt(N)) for p in ps]


@pytest.mark.parametrize("make,params,f,expected", [
    # d E[x] / d(concentration, rate) of Gamma = (1 / rate, -concentration / rate^2)
    (lambda c, r: D.Gamma(c, r), (0.6, 2.0), lambda x: x, (0.5, -0.15)),
    (lambda c, r: D.Gamma(c, r), (4.0, 0.5), lambda x: x, (2.0, -16.0)),
    # E[x] of Beta(a, b) = a / (a + b): derivatives b / (a + b)^2 and -a / (a + b)^2
    (lambda a, b: D.Beta(a, b), (0.7, 1.3), lambda x: x, (1.3 / 4, -0.7 / 4)),
    # E[x^2] of StudentT(df, 0, scale) = scale^2 df / (df - 2): d/d df = -2 scale^2 / (df - 2)^2
    (lambda df, s: D.StudentT(df, 0.0, s), (8.0, 1.5), lambda x: x * x, (-2 * 2.25 / 36, 2 * 1.5 * 8 / 6)),
])
def test_reparameterized_gradients_are_unbiased(make, params, f, expected):
    for (mean, se), want in zip(_mean_gradient(make, params, f), expected):
        assert abs(mean - want) < 5 * se + 1e-12, (mean, want, se)


def test_dirichlet_and_mvn_rsample_carry_gradients():
    alpha = t([0.5, 2.0, 1.5]).requires_grad_()
    tl.manual_seed(24)
    x = D.Dirichlet(alpha).rsample((N,))
    x[:, 0].mean().backward()  # E[x_0] = a_0 / a0: d/da_0 = (a0 - a_0) / a0^2, d/da_j = -a_0 / a0^2
    a0 = 4.0
    np.testing.assert_allclose(alpha.grad.numpy(), [(a0 - 0.5) / a0 ** 2, -0.5 / a0 ** 2, -0.5 / a0 ** 2], atol=0.01)
    loc = t([1.0, 2.0]).requires_grad_()
    tril = t([[1.0, 0.0], [0.5, 2.0]]).requires_grad_()
    tl.manual_seed(25)
    y = D.MultivariateNormal(loc, scale_tril=tril).rsample((N,))
    (y * y).sum(-1).mean().backward()  # E|y|^2 = |loc|^2 + ||L||_F^2
    np.testing.assert_allclose(loc.grad.numpy(), [2.0, 4.0], atol=0.1)
    np.testing.assert_allclose(tril.grad.numpy(), [[2.0, 0.0], [1.0, 4.0]], atol=0.1)


def _kl_cases():
    return [
        (D.Gamma(t([0.8, 3.0]), t([1.0, 2.0])), D.Gamma(t([1.5, 2.0]), t([0.5, 2.5]))),
        (D.Beta(t([0.8, 3.0]), t([1.0, 2.0])), D.Beta(t([1.5, 2.0]), t([0.5, 2.5]))),
        (D.Dirichlet(t([[0.8, 3.0, 1.0]])), D.Dirichlet(t([[1.5, 2.0, 2.5]]))),
        (D.Poisson(t([0.8, 30.0])), D.Poisson(t([1.5, 25.0]))),
        (D.Binomial(t([10.0, 40.0]), t([0.3, 0.6])), D.Binomial(t([10.0, 40.0]), t([0.5, 0.55]))),
        (D.Geometric(t([0.3, 0.6])), D.Geometric(t([0.5, 0.2]))),
        (D.OneHotCategorical(t([0.2, 0.3, 0.5])), D.OneHotCategorical(t([0.4, 0.4, 0.2]))),
        (D.MultivariateNormal(t([1.0, 0.0]), t([[2.0, 0.5], [0.5, 1.0]])),
         D.MultivariateNormal(t([0.0, 1.0]), t([[1.0, -0.2], [-0.2, 3.0]]))),
    ]


@pytest.mark.parametrize("case", range(8))
def test_kl_against_monte_carlo(case):
    check_kl_against_monte_carlo(*_kl_cases()[case], seed=26)


def test_kl_edges():
    assert D.kl_divergence(D.Poisson(t(0.0)), D.Poisson(t(0.7))).item() == pytest.approx(0.7)  # PyTorch: NaN
    more = D.kl_divergence(D.Binomial(t(12.0), t(0.3)), D.Binomial(t(10.0), t(0.3)))
    assert more.item() == math.inf
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        D.kl_divergence(D.Binomial(t(8.0), t(0.3)), D.Binomial(t(10.0), t(0.3)))


def test_validation_and_shapes():
    with pytest.raises(ValueError, match="Expected parameter rate"):
        D.Gamma(t([1.0]), t([-2.0]))
    with pytest.raises(ValueError, match="`concentration` parameter must be at least one-dimensional"):
        D.Dirichlet(t(1.0))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        D.Binomial(10)
    with pytest.raises(ValueError, match="within the support"):
        D.Binomial(t(5.0), t(0.5)).log_prob(t(6.0))
    with pytest.raises(ValueError, match="within the support"):
        D.Multinomial(5, t([0.2, 0.8])).log_prob(t([3.0, 3.0]))
    with pytest.raises(ValueError, match="within the support"):
        D.Poisson(t(2.0)).log_prob(t(1.5))
    g = D.Gamma(t([1.0, 2.0]), t(1.0)).expand((3, 2))
    assert g.batch_shape == (3, 2) and g.sample((4,)).shape == (4, 3, 2)
    assert D.Beta(t([1.0, 2.0]), t(3.0)).expand((5, 2)).concentration0.shape == (5, 2)
    assert D.Multinomial(3, t([[0.5, 0.5]] * 2)).sample((4,)).shape == (4, 2, 2)
    assert D.Chi2(t([3.0])).expand((2, 1)).df.shape == (2, 1)
    assert not D.Gamma(t(1.0).requires_grad_(), t(1.0)).sample().requires_grad


def test_against_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is an optional oracle")
    TD = torch.distributions

    def both(name, *args, **kw):
        conv = lambda lib, v: lib.tensor(np.asarray(v, dtype=np.float64)) if isinstance(v, (list, float)) else v  # noqa
        return (getattr(D, name)(*[conv(tl, a) for a in args], **{k: conv(tl, v) for k, v in kw.items()}),
                getattr(TD, name)(*[conv(torch, a) for a in args], **{k: conv(torch, v) for k, v in kw.items()}))

    cases = [
        (both("Gamma", [0.5, 3.0], [2.0, 0.7]), [0.3, 4.0]),
        (both("Chi2", [1.0, 5.0]), [0.3, 4.0]),
        (both("Beta", [0.5, 3.0], [2.0, 0.7]), [0.3, 0.9]),
        (both("Dirichlet", [[0.5, 3.0, 1.2]]), [[0.2, 0.5, 0.3]]),
        (both("StudentT", [0.8, 3.0], [1.0, -1.0], [2.0, 0.5]), [0.3, 4.0]),
        (both("Poisson", [0.5, 30.0]), [0.0, 31.0]),
        (both("Binomial", 12, [0.3, 0.9]), [4.0, 12.0]),
        (both("Binomial", 12, logits=[-1.0, 3.0]), [4.0, 12.0]),
        (both("Geometric", [0.3, 0.9]), [4.0, 0.0]),
        (both("NegativeBinomial", [2.5, 7.0], [0.3, 0.9]), [4.0, 0.0]),
        (both("OneHotCategorical", [0.2, 0.3, 0.5]), [0.0, 1.0, 0.0]),
        (both("Multinomial", 6, [0.2, 0.3, 0.5]), [1.0, 2.0, 3.0]),
        (both("MultivariateNormal", [1.0, 0.0], [[2.0, 0.5], [0.5, 1.0]]), [0.3, -0.4]),
    ]
    for (ours, theirs), value in cases:
        what = type(ours).__name__
        v = np.asarray(value, dtype=np.float64)
        np.testing.assert_allclose(ours.log_prob(tl.tensor(v)).numpy(), theirs.log_prob(torch.tensor(v)).numpy(),
                                   rtol=1e-9, err_msg=what)
        for prop in ("mean", "variance", "mode"):
            try:
                want = getattr(theirs, prop).numpy()
            except NotImplementedError:  # Multinomial has no mode in PyTorch either
                with pytest.raises(NotImplementedError):
                    getattr(ours, prop)
                continue
            np.testing.assert_allclose(getattr(ours, prop).numpy(), want, rtol=1e-9, err_msg=f"{what}.{prop}")
        if not isinstance(ours, (D.Poisson, D.NegativeBinomial)):  # PyTorch has no entropy for these
            np.testing.assert_allclose(ours.entropy().numpy(), theirs.entropy().numpy(), rtol=1e-9, err_msg=what)
        assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) and tuple(ours.event_shape) == tuple(
            theirs.event_shape), what
    for p, q in _kl_cases()[:-2]:
        tp, tq = (getattr(TD, type(d).__name__)(*[torch.tensor(getattr(d, k).numpy()) for k in d._given_params()])
                  for d in (p, q))
        np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), TD.kl_divergence(tp, tq).numpy(), rtol=1e-9,
                                   err_msg=type(p).__name__)


def test_more_families_sample_moments():
    tl.manual_seed(27)
    d1, d2 = 6.0, 30.0
    f = D.FisherSnedecor(t(d1), t(d2)).rsample((N,)).numpy()
    mean = d2 / (d2 - 2)
    var = 2 * d2 ** 2 * (d1 + d2 - 2) / (d1 * (d2 - 2) ** 2 * (d2 - 4))
    assert abs(f.mean() - mean) < 5 * math.sqrt(var / N) and abs(f.var() / var - 1) < 0.15
    # VonMises: E[cos(x - loc)] = I1(k) / I0(k), the circular mean at loc
    loc, k = t([2.8, -0.5, 0.0]), t([4.0, 0.3, 1e-6])
    v = D.VonMises(loc, k).sample((N,)).numpy()
    assert np.all((v >= -math.pi) & (v < math.pi))
    c = np.cos(v - loc.numpy())
    r = (tl.special.i1e(k) / tl.special.i0e(k)).numpy()
    assert np.all(np.abs(c.mean(0) - r) < 5 * c.std(0) / math.sqrt(N) + 1e-12)
    assert abs(np.sin(v[:, 0] - 2.8).mean()) < 5 / math.sqrt(N)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    w = D.Wishart(t(5.0), t(cov)).rsample((N,)).numpy()
    np.testing.assert_allclose(w.mean(0), 5 * cov, rtol=0.05)
    assert np.all(np.linalg.eigvalsh(w) > 0)
    wf = np.array([[1.0, 0.0], [0.5, 1.0], [0.0, 2.0]])
    lr = D.LowRankMultivariateNormal(t([1.0, 2.0, 3.0]), t(wf), t([1.0, 2.0, 0.5])).rsample((N,)).numpy()
    np.testing.assert_allclose(np.cov(lr.T), wf @ wf.T + np.diag([1.0, 2.0, 0.5]), atol=0.15)


def test_low_rank_mvn_equals_the_full_covariance_mvn():
    rng = np.random.default_rng(3)
    w, diag, loc = rng.standard_normal((2, 4, 2)), rng.uniform(0.5, 2, (2, 4)), rng.standard_normal(4)
    lr = D.LowRankMultivariateNormal(t(loc), t(w), t(diag))
    full = D.MultivariateNormal(t(loc), t(w @ w.transpose(0, 2, 1) + np.stack([np.diag(d) for d in diag])))
    x = t(rng.standard_normal((3, 2, 4)))
    np.testing.assert_allclose(lr.log_prob(x).numpy(), full.log_prob(x).numpy(), rtol=1e-10)
    np.testing.assert_allclose(lr.entropy().numpy(), full.entropy().numpy(), rtol=1e-12)
    np.testing.assert_allclose(lr.precision_matrix.numpy(), full.precision_matrix.numpy(), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 4 x m"):
        D.LowRankMultivariateNormal(t(loc), t(w[:, :3]), t(diag))


def test_wishart_density_integrates_like_its_moments():
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    d = D.Wishart(t(4.0), t(cov))
    # importance check: E_q[p(X) / q(X)] = 1 for q = Wishart(6, cov / 1.5), whose draws cover p's support
    q = D.Wishart(t(6.0), t(cov / 1.5))
    tl.manual_seed(28)
    x = q.sample((N,))
    ratio = tl.exp(d.log_prob(x) - q.log_prob(x)).numpy()
    assert abs(ratio.mean() - 1) < 5 * ratio.std() / math.sqrt(N)
    with pytest.raises(ValueError, match="expected to be greater than ndim - 1 = 1"):
        D.Wishart(t(0.5), t(cov))


def test_exponential_family_entropy_from_the_log_normalizer():
    from torchlite.distributions.exp_family import ExponentialFamily

    cases = [D.Normal(t([0.3, 1.0]), t([2.0, 0.5])), D.Exponential(t([0.7, 3.0])),
             D.Gamma(t([0.5, 3.0]), t([2.0, 0.4])), D.Bernoulli(t([0.2, 0.9]))]
    for d in cases:
        assert isinstance(d, ExponentialFamily)
        np.testing.assert_allclose(ExponentialFamily.entropy(d).detach().numpy(), d.entropy().numpy(), rtol=1e-12)
    with pytest.raises(NotImplementedError):
        D.Poisson(t([2.0])).entropy()  # E[log k!] has no closed form (PyTorch has no entropy either)


def test_continuous_bernoulli():
    probs = np.array([0.05, 0.3, 0.4999, 0.5, 0.8])
    d = D.ContinuousBernoulli(t(probs))
    grid = (np.arange(20000) + 0.5) / 20000  # midpoint rule on [0, 1]
    dens = np.exp(d.log_prob(t(np.repeat(grid[:, None], 5, 1))).numpy())
    np.testing.assert_allclose(dens.mean(0), 1.0, rtol=1e-6)  # the normalizer
    np.testing.assert_allclose((grid[:, None] * dens).mean(0), d.mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(((grid[:, None] - d.mean.numpy()) ** 2 * dens).mean(0), d.variance.numpy(), rtol=1e-5)
    u = t(np.array([0.1, 0.3, 0.5, 0.7, 0.95]))
    np.testing.assert_allclose(d.cdf(d.icdf(u)).numpy(), u.numpy(), rtol=1e-9)
    from torchlite.distributions.exp_family import ExponentialFamily
    np.testing.assert_allclose(ExponentialFamily.entropy(d).detach().numpy(), d.entropy().numpy(), rtol=1e-7)
    tl.manual_seed(29)
    s = d.sample((N,)).numpy()
    assert np.all(np.abs(s.mean(0) - d.mean.numpy()) < 5 * np.sqrt(d.variance.numpy() / N))


def test_lkj_cholesky():
    tl.manual_seed(30)
    eta, dim = 2.0, 3
    L = D.LKJCholesky(dim, t(eta)).sample((N,))
    assert bool(D.LKJCholesky(dim, t(eta)).support.check(L).all())
    c = (L @ L.mT).numpy()
    np.testing.assert_allclose(np.diagonal(c, axis1=-2, axis2=-1), 1.0, rtol=1e-12)
    # each off-diagonal correlation r of LKJ(eta) in dim d: (r + 1) / 2 ~ Beta(a, a), a = eta - 1 + d / 2, so
    # E[r] = 0, E[r^2] = 1 / (2a + 1) and E[r^4] = 3 / ((2a + 1)(2a + 3))
    a = eta - 1 + dim / 2
    for i, j in ((1, 0), (2, 0), (2, 1)):
        r = c[:, i, j]
        for power, want in ((1, 0.0), (2, 1 / (2 * a + 1)), (4, 3 / ((2 * a + 1) * (2 * a + 3)))):
            m = r ** power
            assert abs(m.mean() - want) < 5 * m.std() / math.sqrt(N), (i, j, power, m.mean(), want)
    with pytest.raises(ValueError, match="Expected dim to be an integer greater than or equal to 2"):
        D.LKJCholesky(1)


def test_low_rank_kl():
    rng = np.random.default_rng(4)
    p = D.LowRankMultivariateNormal(t(rng.standard_normal(3)), t(rng.standard_normal((3, 1))), t([1.0, 0.5, 2.0]))
    q = D.MultivariateNormal(t(np.zeros(3)), t(np.eye(3) * 2))
    check_kl_against_monte_carlo(p, q, seed=31)
    check_kl_against_monte_carlo(q, p, seed=32)
    r = D.LowRankMultivariateNormal(t(np.ones(3)), t(rng.standard_normal((3, 2))), t([0.3, 1.0, 1.5]))
    check_kl_against_monte_carlo(p, r, seed=33)
    assert D.kl_divergence(p, p).item() == pytest.approx(0.0, abs=1e-12)


def test_inverse_gamma_generalized_pareto_straight_through():
    c, r = 3.5, 2.0
    ig = D.InverseGamma(t(c), t(r))
    x = np.array([0.2, 0.7, 1.5])
    np.testing.assert_allclose(ig.log_prob(t(x)).numpy(),
                               c * math.log(r) - (c + 1) * np.log(x) - r / x - math.lgamma(c), rtol=1e-12)
    tl.manual_seed(34)
    s = ig.rsample((N,)).numpy()
    mean, var = r / (c - 1), r ** 2 / ((c - 1) ** 2 * (c - 2))
    assert abs(s.mean() - mean) < 5 * math.sqrt(var / N)
    np.testing.assert_allclose((ig.mean.item(), ig.variance.item(), ig.mode.item()), (mean, var, r / (c + 1)))

    loc, scale = t([0.0, 1.0, 0.5]), t([1.0, 2.0, 0.5])
    xi = t([0.3, 0.0, -0.4])
    gp = D.GeneralizedPareto(loc, scale, xi)
    u = t([0.2, 0.5, 0.9])
    np.testing.assert_allclose(gp.cdf(gp.icdf(u)).numpy(), u.numpy(), rtol=1e-12)
    v = gp.icdf(u).requires_grad_()
    (g,) = tl.autograd.grad(gp.cdf(v).sum(), v)  # the density is the CDF's derivative
    np.testing.assert_allclose(np.exp(gp.log_prob(v.detach()).numpy()), g.numpy(), rtol=1e-10)
    assert gp.support.upper_bound.tolist()[2] == pytest.approx(0.5 + 0.5 / 0.4)
    tl.manual_seed(35)
    d = gp.rsample((N,)).numpy()
    assert np.all(np.abs(d.mean(0) - gp.mean.numpy()) < 5 * np.sqrt(gp.variance.numpy() / N))

    probs = t([0.2, 0.8]).requires_grad_()
    st = D.OneHotCategoricalStraightThrough(probs)
    tl.manual_seed(36)
    y = st.rsample((5,))
    assert y.requires_grad and set(y.detach().sum(-1).tolist()) == {1.0}
    (y * t([1.0, 3.0])).sum().backward()
    # straight through: the gradient of 5 sum(w * p / sum(p)) (probs are normalized): 5 (w - w . p) = [-8, 2]
    np.testing.assert_allclose(probs.grad.numpy(), [-8.0, 2.0], rtol=1e-12)
