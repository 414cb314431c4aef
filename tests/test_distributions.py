"""torchlite.distributions: densities, CDFs, entropies and moments against closed forms in NumPy, sampling
statistics against the moments, reparameterized gradients, validation messages, KL divergences against
closed forms and Monte Carlo, and (optional) the same numbers from PyTorch."""
import math

import numpy as np
import pytest

import torchlite as tl
import torchlite.distributions as D
from torchlite.autograd import gradcheck

X = np.array([-2.5, -0.3, 0.0, 0.7, 3.1])
XPOS = np.array([0.0, 0.2, 1.0, 3.5])


def t(a, dtype=tl.float64):
    return tl.tensor(np.asarray(a, dtype=np.float64), dtype=dtype)


def erf(a):
    return np.vectorize(math.erf)(a)


def test_normal_against_closed_forms():
    mu, sigma = 0.4, 1.7
    d = D.Normal(t(mu), t(sigma))
    z = (X - mu) / sigma
    np.testing.assert_allclose(d.log_prob(t(X)).numpy(), -0.5 * z ** 2 - math.log(sigma * math.sqrt(2 * math.pi)),
                               rtol=1e-12)
    np.testing.assert_allclose(d.cdf(t(X)).numpy(), 0.5 * (1 + erf(z / math.sqrt(2))), rtol=1e-12)
    p = np.array([0.01, 0.3, 0.5, 0.99])
    np.testing.assert_allclose(d.cdf(d.icdf(t(p))).numpy(), p, rtol=1e-10)
    assert d.entropy().item() == pytest.approx(0.5 * math.log(2 * math.pi * math.e * sigma ** 2), rel=1e-12)
    assert (d.mean.item(), d.mode.item(), d.stddev.item()) == (mu, mu, sigma)
    assert d.variance.item() == pytest.approx(sigma ** 2, rel=1e-12)


def test_uniform_exponential_laplace_against_closed_forms():
    u = D.Uniform(t(-1.0), t(3.0), validate_args=False)  # X has points outside the support
    inside = (X >= -1) & (X < 3)
    np.testing.assert_allclose(u.log_prob(t(X)).numpy(), np.where(inside, -math.log(4), -np.inf))
    np.testing.assert_allclose(u.cdf(t(np.clip(X, -1, 3))).numpy(), (np.clip(X, -1, 3) + 1) / 4)
    assert (u.entropy().item(), u.mean.item(), u.variance.item()) == pytest.approx((math.log(4), 1.0, 16 / 12),
                                                                                  rel=1e-12)
    assert math.isnan(u.mode.item())

    rate = 1.5
    e = D.Exponential(t(rate))
    np.testing.assert_allclose(e.log_prob(t(XPOS)).numpy(), math.log(rate) - rate * XPOS, rtol=1e-12)
    np.testing.assert_allclose(e.cdf(t(XPOS)).numpy(), 1 - np.exp(-rate * XPOS), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(e.icdf(e.cdf(t(XPOS))).numpy(), XPOS, rtol=1e-12, atol=1e-15)
    assert (e.entropy().item(), e.mean.item(), e.variance.item()) == pytest.approx(
        (1 - math.log(rate), 1 / rate, rate ** -2), rel=1e-12)

    loc, b = 0.5, 2.0
    lap = D.Laplace(t(loc), t(b))
    np.testing.assert_allclose(lap.log_prob(t(X)).numpy(), -np.log(2 * b) - np.abs(X - loc) / b, rtol=1e-12)
    ref_cdf = np.where(X < loc, 0.5 * np.exp((X - loc) / b), 1 - 0.5 * np.exp(-(X - loc) / b))
    np.testing.assert_allclose(lap.cdf(t(X)).numpy(), ref_cdf, rtol=1e-12)
    np.testing.assert_allclose(lap.icdf(lap.cdf(t(X))).numpy(), X, rtol=1e-10, atol=1e-12)
    assert (lap.entropy().item(), lap.variance.item()) == pytest.approx((1 + math.log(2 * b), 2 * b * b), rel=1e-12)


def test_bernoulli_and_categorical_against_closed_forms():
    p = np.array([0.0, 0.2, 0.5, 0.9, 1.0])
    d = D.Bernoulli(probs=t(p))
    for x in (0.0, 1.0):
        with np.errstate(divide="ignore"):
            ref = np.log(np.where(x == 1, p, 1 - p))
        np.testing.assert_allclose(d.log_prob(t(np.full(5, x))).numpy()[1:-1], ref[1:-1], rtol=1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        ref_h = -np.nan_to_num(p * np.log(p)) - np.nan_to_num((1 - p) * np.log(1 - p))
    np.testing.assert_allclose(d.entropy().numpy()[1:-1], ref_h[1:-1], rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), p * (1 - p))
    mode = d.mode.numpy()
    assert math.isnan(mode[2]) and mode.tolist()[:2] + mode.tolist()[3:] == [0, 0, 1, 1]
    logits = np.array([-3.0, 0.0, 40.0])
    dl = D.Bernoulli(logits=t(logits))
    np.testing.assert_allclose(dl.probs.numpy(), 1 / (1 + np.exp(-logits)), rtol=1e-12)
    np.testing.assert_allclose(dl.log_prob(t([1.0, 1.0, 0.0])).numpy(),
                               [-math.log1p(math.exp(3)), -math.log(2), -40 - math.log1p(math.exp(-40))],
                               rtol=1e-12)  # finite where 1 - sigmoid(40) rounds to 0
    assert dl.enumerate_support().tolist() == [[0, 0, 0], [1, 1, 1]]

    w = np.array([[1.0, 2.0, 7.0], [3.0, 3.0, 0.0]])
    c = D.Categorical(probs=t(w))
    probs = w / w.sum(1, keepdims=True)
    np.testing.assert_allclose(c.probs.numpy(), probs)
    np.testing.assert_allclose(c.log_prob(t([2, 0]).long()).numpy(), np.log([probs[0, 2], probs[1, 0]]))
    ref_h = -np.sum(np.where(probs > 0, probs * np.log(np.where(probs > 0, probs, 1)), 0), axis=1)
    np.testing.assert_allclose(c.entropy().numpy(), ref_h, rtol=1e-12)
    assert c.mode.tolist() == [2, 0] and c.batch_shape == (2,) and c.event_shape == ()
    assert c.enumerate_support().shape == (3, 2) and c.enumerate_support(expand=False).shape == (3, 1)
    zero = D.Categorical(probs=t([0.0, 0.25, 0.75]), validate_args=False)
    eps = np.finfo(np.float64).eps
    assert zero.log_prob(tl.tensor(0)).item() == pytest.approx(math.log(eps))  # PyTorch's clamp to [eps, 1 - eps]
    cl = D.Categorical(logits=t([0.0, math.log(3.0)]))
    np.testing.assert_allclose(cl.probs.numpy(), [0.25, 0.75], rtol=1e-12)


@pytest.mark.parametrize("make,mean,var", [
    (lambda: D.Normal(t([0.5, -2.0]), t([1.0, 3.0])), [0.5, -2.0], [1.0, 9.0]),
    (lambda: D.Uniform(t([0.0, -1.0]), t([1.0, 5.0])), [0.5, 2.0], [1 / 12, 3.0]),
    (lambda: D.Exponential(t([0.5, 4.0])), [2.0, 0.25], [4.0, 1 / 16]),
    (lambda: D.Laplace(t([1.0, -1.0]), t([0.5, 2.0])), [1.0, -1.0], [0.5, 8.0]),
    (lambda: D.Bernoulli(probs=t([0.1, 0.6])), [0.1, 0.6], [0.09, 0.24]),
    (lambda: D.Categorical(probs=t([[0.2, 0.3, 0.5], [0.9, 0.1, 0.0]])), [1.3, 0.1], [0.61, 0.09]),
])
def test_sample_moments(make, mean, var):
    """Means within 5 standard errors of n = 20000 draws, variances within 5 standard errors of the sample
    variance (from the fourth central moment)."""
    tl.manual_seed(7)
    d = make()
    n = 20000
    s = d.sample((n,)).double().numpy()
    assert s.shape == (n, 2)
    mean, var = np.array(mean), np.array(var)
    assert np.all(np.abs(s.mean(0) - mean) < 5 * np.sqrt(var / n))
    m4 = ((s - mean) ** 4).mean(0)
    assert np.all(np.abs(s.var(0) - var) < 5 * np.sqrt(np.maximum(m4 - var ** 2, 1e-12) / n))
    tl.manual_seed(7)
    assert np.array_equal(make().sample((n,)).double().numpy(), s), "manual_seed reproduces the draws"


@pytest.mark.parametrize("make", [
    lambda a, b: D.Normal(a, b), lambda a, b: D.Uniform(a, a + b), lambda a, b: D.Laplace(a, b),
    lambda a, b: D.Exponential(b),
])
def test_rsample_is_differentiable(make):
    a = t([0.3, -1.0]).requires_grad_()
    b = t([0.8, 2.0]).requires_grad_()

    def draw(a, b):
        tl.manual_seed(3)  # the same noise on every call, so the draw is a function of the parameters
        return make(a, b).rsample((4,))

    assert gradcheck(draw, (a, b))
    assert not make(a, b).sample((2,)).requires_grad


def test_shapes_and_expand():
    d = D.Normal(t([[0.0], [1.0]]), t([1.0, 2.0, 3.0]))
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert d.sample().shape == (2, 3) and d.sample((4, 5)).shape == (4, 5, 2, 3)
    assert d.log_prob(t([0.0, 1.0, 2.0])).shape == (2, 3)
    e = D.Normal(t(0.0), t(1.0)).expand((3, 2))
    assert e.batch_shape == (3, 2) and e.sample().shape == (3, 2) and e.loc.shape == (3, 2)
    c = D.Categorical(logits=tl.zeros(4, dtype=tl.float64)).expand((2,))
    assert c.batch_shape == (2,) and c.probs.shape == (2, 4) and c.sample((3,)).shape == (3, 2)
    with pytest.warns(UserWarning, match="sample_n will be deprecated"):
        assert D.Exponential(1.0).sample_n(3).shape == (3,)


def test_validation_messages():
    with pytest.raises(ValueError, match=r"Expected parameter scale \(Tensor of shape \(2,\)\) of distribution "
                                         r"Normal\(loc: torchlite.Size\(\[2\]\), scale: torchlite.Size\(\[2\]\)\) "
                                         r"to satisfy the constraint GreaterThan\(lower_bound=0.0\)"):
        D.Normal(t([0.0, 1.0]), t([1.0, -1.0]))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        D.Bernoulli()
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        D.Categorical(probs=t([0.5, 0.5]), logits=t([0.0, 0.0]))
    with pytest.raises(ValueError, match="Uniform is not defined when low>= high"):
        D.Uniform(1.0, 1.0)
    with pytest.raises(ValueError, match=r"to be within the support \(Boolean\(\)\) of the distribution "
                                         r"Bernoulli\(probs: 0.3"):
        D.Bernoulli(probs=0.3).log_prob(tl.tensor(0.5))
    with pytest.raises(ValueError, match=r"within the support \(IntegerInterval\(lower_bound=0, upper_bound=2\)\)"):
        D.Categorical(logits=tl.zeros(3)).log_prob(tl.tensor(3))
    with pytest.raises(ValueError, match="Value is not broadcastable with batch_shape"):
        D.Normal(tl.zeros(3), 1.0).log_prob(tl.zeros(4))
    # without validation a value outside the support gets its density's formula
    assert D.Exponential(1.0, validate_args=False).log_prob(tl.tensor(-1.0)).item() == 1.0
    D.Distribution.set_default_validate_args(False)
    try:
        assert D.Normal(0.0, -1.0).scale.item() == -1.0
    finally:
        D.Distribution.set_default_validate_args(True)
    assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(D.Categorical(logits=tl.zeros(3))) == "Categorical(logits: torchlite.Size([3]))"
    assert repr(D.constraints.unit_interval) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert repr(D.constraints.real_vector) == "IndependentConstraint(Real(), 1)"


def _kl_cases():
    return [
        (D.Normal(t([0.0, 1.0]), t([1.0, 0.5])), D.Normal(t([0.5, -1.0]), t([2.0, 1.5]))),
        (D.Exponential(t([0.5, 3.0])), D.Exponential(t([2.0, 1.0]))),
        (D.Laplace(t([0.0, 2.0]), t([1.0, 0.3])), D.Laplace(t([1.0, 2.5]), t([2.0, 1.0]))),
        (D.Uniform(t([0.0, 1.0]), t([1.0, 2.0])), D.Uniform(t([-1.0, 0.5]), t([2.0, 4.0]))),
        (D.Bernoulli(probs=t([0.2, 0.7])), D.Bernoulli(probs=t([0.5, 0.1]))),
        (D.Categorical(probs=t([[0.2, 0.3, 0.5], [0.6, 0.4, 0.0]])),
         D.Categorical(probs=t([[0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]))),
    ]


def check_kl_against_monte_carlo(p, q, seed):
    """KL(p || q) = E_p[log p - log q], estimated from 40000 draws, within 5 standard errors."""
    kl = D.kl_divergence(p, q).numpy()
    tl.manual_seed(seed)
    x = p.sample((40000,))
    diff = (p.log_prob(x) - q.log_prob(x)).numpy()
    se = diff.std(0) / math.sqrt(len(diff))
    assert np.all(np.abs(diff.mean(0) - kl) <= 5 * se + 1e-9 * np.abs(kl)), (diff.mean(0), kl)


@pytest.mark.parametrize("case", range(6))
def test_kl_against_monte_carlo(case):
    check_kl_against_monte_carlo(*_kl_cases()[case], seed=11)


def test_kl_closed_forms_and_registry():
    kl = D.kl_divergence(D.Normal(t(0.0), t(1.0)), D.Normal(t(1.0), t(2.0))).item()
    assert kl == pytest.approx(math.log(2) + (1 + 1) / 8 - 0.5, rel=1e-12)
    assert D.kl_divergence(D.Uniform(t(0.0), t(2.0)), D.Uniform(t(1.0), t(3.0))).item() == math.inf
    half = D.Categorical(probs=t([0.5, 0.5, 0.0]))
    assert D.kl_divergence(half, D.Categorical(probs=t([1.0, 0.0, 0.0]))).item() == math.inf
    assert D.kl_divergence(half, D.Categorical(probs=t([0.5, 0.25, 0.25]))).item() == pytest.approx(0.5 * math.log(2),
                                                                                                    rel=1e-12)
    assert D.kl_divergence(D.Bernoulli(probs=t(0.3)), D.Bernoulli(probs=t(0.0))).item() == math.inf
    assert D.kl_divergence(D.Bernoulli(probs=t(0.0)), D.Bernoulli(probs=t(0.4))).item() == pytest.approx(
        -math.log(0.6))
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q "
                                                  "type Bernoulli"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.3))

    class Wide(D.Normal):
        pass

    @D.register_kl(Wide, D.Normal)
    def _wide(p, q):
        return tl.tensor(-1.0)

    try:
        assert D.kl_divergence(Wide(0.0, 1.0), D.Normal(0.0, 1.0)).item() == -1.0  # the closer pair wins
        assert D.kl_divergence(D.Normal(0.0, 1.0), Wide(0.0, 1.0)).item() == 0.0
    finally:
        D.kl._REGISTRY.pop((Wide, D.Normal))
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        D.register_kl(int, D.Normal)


def test_against_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is an optional oracle")
    TD = torch.distributions
    pairs = [
        (lambda m: m.Normal(0.3, 1.5), (X,)),
        (lambda m: m.Uniform(-1.0, 4.0), (np.clip(X, -1, 3.9),)),
        (lambda m: m.Exponential(2.5), (XPOS,)),
        (lambda m: m.Laplace(-0.5, 0.7), (X,)),
        (lambda m: m.Bernoulli(probs=0.35), (np.array([0.0, 1.0]),)),
        (lambda m: m.Categorical(logits=(tl if m is D else torch).tensor([0.5, -1.0, 2.0], dtype=(
            tl if m is D else torch).float64)), (np.array([0, 2, 1]),)),
    ]
    for make, (values,) in pairs:
        ours, theirs = make(D), make(TD)
        # first: PyTorch's repr also lists the lazily derived parameter (logits of probs) once computed
        assert repr(ours) == repr(theirs).replace("torch.Size", "torchlite.Size")
        lib_values = values.astype(np.int64) if isinstance(ours, D.Categorical) else values
        np.testing.assert_allclose(ours.log_prob(tl.tensor(lib_values)).numpy(),
                                   theirs.log_prob(torch.tensor(lib_values)).numpy(), rtol=1e-6)
        np.testing.assert_allclose(ours.entropy().numpy(), theirs.entropy().numpy(), rtol=1e-6)
        if not isinstance(ours, (D.Categorical,)):
            np.testing.assert_allclose(ours.mean.numpy(), theirs.mean.numpy(), rtol=1e-6)
            np.testing.assert_allclose(ours.variance.numpy(), theirs.variance.numpy(), rtol=1e-6)
        if hasattr(theirs, "cdf") and not isinstance(ours, (D.Bernoulli, D.Categorical)):
            np.testing.assert_allclose(ours.cdf(tl.tensor(values)).numpy(), theirs.cdf(torch.tensor(values)).numpy(),
                                       rtol=1e-6, atol=1e-7)
    for p, q in _kl_cases():
        tp, tq = (getattr(TD, type(d).__name__)(**{k: torch.tensor(getattr(d, k).numpy()) for k in d._given_params()})
                  for d in (p, q))
        np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), TD.kl_divergence(tp, tq).numpy(), rtol=1e-9)
