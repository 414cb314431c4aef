"""The rejection samplers behind torchlite.distributions (issue 18): _standard_gamma (with its implicit
reparameterization gradient _standard_gamma_grad), poisson and binomial. Each regime of each algorithm is checked
against the exact distribution (Kolmogorov-Smirnov against the CDF, or per-value counts against the pmf, with
fixed seeds: a wrong sampler fails by a wide margin), plus the edge values, determinism (seed, generator, thread
count, strides) and, optionally, PyTorch's values of the gradient."""
import math

import numpy as np
import pytest

import torchlite as tl

N = 20000


def ks_statistic(samples, cdf):
    """The Kolmogorov-Smirnov distance between the sample and the CDF (a function of a NumPy array)."""
    x = np.sort(samples)
    f = cdf(x)
    n = len(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def gamma_cdf(alpha):
    return lambda x: tl.special.gammainc(tl.full((len(x),), alpha, dtype=tl.float64),
                                         tl.tensor(x, dtype=tl.float64)).numpy()


def check_pmf(samples, log_pmf, what):
    """Counts of each value against N * pmf: every value expected 50+ times lies within 5 standard deviations,
    and the total probability of the values seen is ~1 (no mass where the pmf has none)."""
    values, counts = np.unique(samples, return_counts=True)
    assert np.all(values == np.floor(values)) and values.min() >= 0, what
    n = len(samples)
    for v, c in zip(values, counts):
        expected = n * math.exp(log_pmf(v))
        if expected >= 50:
            assert abs(c - expected) < 5 * math.sqrt(expected), f"{what}: {c} draws of {v}, expected {expected:.1f}"
    seen = sum(math.exp(log_pmf(v)) for v in values)
    assert seen > 0.99, f"{what}: the values drawn carry only {seen} of the probability"


@pytest.mark.parametrize("alpha", [0.05, 0.5, 1.0, 2.5, 30.0, 1e4])
def test_gamma_follows_its_cdf(alpha):
    tl.manual_seed(1)
    x = tl._standard_gamma(tl.full((N,), alpha, dtype=tl.float64)).numpy()
    assert ks_statistic(x, gamma_cdf(alpha)) < 1.63 / math.sqrt(N)  # the 1% critical value
    if alpha >= 0.5:  # below, float32 draws under 1.2e-38 (1.3% of them at alpha = 0.05) are clamped there
        tl.manual_seed(2)
        x32 = tl._standard_gamma(tl.full((N,), alpha)).numpy().astype(np.float64)
        assert ks_statistic(x32, gamma_cdf(alpha)) < 1.63 / math.sqrt(N)


@pytest.mark.parametrize("lam", [0.5, 4.0, 9.9, 10.0, 37.5, 2500.0])
def test_poisson_follows_its_pmf(lam):
    tl.manual_seed(3)
    k = tl.poisson(tl.full((N,), lam, dtype=tl.float64)).numpy()
    check_pmf(k, lambda v: v * math.log(lam) - lam - math.lgamma(v + 1), f"poisson({lam})")
    assert abs(k.mean() - lam) < 5 * math.sqrt(lam / N)


@pytest.mark.parametrize("n,p", [(20, 0.3), (5, 0.9), (200, 0.04), (200, 0.05), (1000, 0.7), (60, 0.5)])
def test_binomial_follows_its_pmf(n, p):
    tl.manual_seed(4)
    k = tl.binomial(tl.full((N,), float(n), dtype=tl.float64), tl.full((N,), p, dtype=tl.float64)).numpy()
    assert k.max() <= n
    check_pmf(k, lambda v: (math.lgamma(n + 1) - math.lgamma(v + 1) - math.lgamma(n - v + 1) + v * math.log(p)
                            + (n - v) * math.log1p(-p)), f"binomial({n}, {p})")


def test_large_parameters_keep_their_moments():
    tl.manual_seed(5)
    for lam in (1e8, 1e13):  # PTRS, then the normal approximation past 2^40
        k = tl.poisson(tl.full((N,), lam, dtype=tl.float64)).numpy()
        assert abs(k.mean() - lam) < 5 * math.sqrt(lam / N) and abs(k.var() / lam - 1) < 0.05
    n, p = 1e9, 0.25
    k = tl.binomial(tl.full((N,), n, dtype=tl.float64), tl.full((N,), p, dtype=tl.float64)).numpy()
    assert abs(k.mean() - n * p) < 5 * math.sqrt(n * p * (1 - p) / N)
    assert abs(k.var() / (n * p * (1 - p)) - 1) < 0.05


def test_edge_values():
    nan, inf = float("nan"), float("inf")
    for dtype, tiny in ((tl.float32, 1.1754943508222875e-38), (tl.float64, 2.2250738585072014e-308)):
        g = tl._standard_gamma(tl.tensor([0.0, -1.0, nan, inf], dtype=dtype)).tolist()
        assert g == [tiny, tiny, tiny, inf]  # PyTorch's floor for alpha <= 0 or NaN
    assert tl._standard_gamma(tl.full((1000,), 1e-3, dtype=tl.float64)).min().item() > 0
    assert tl.poisson(tl.tensor([0.0, 0.0, inf])).tolist() == [0.0, 0.0, inf]
    b = tl.binomial(tl.tensor([nan, inf, 7.9, -1.0, 0.0, 5.0, 5.0, 5.0]),
                    tl.tensor([0.5, 0.5, 1.0, 0.5, 0.5, 1.5, -0.5, nan])).tolist()
    assert math.isnan(b[0]) and math.isnan(b[1]) and math.isnan(b[7])  # PyTorch hangs on a NaN count
    assert b[2:7] == [7.0, 0.0, 0.0, 5.0, 0.0]  # floor(count); p outside [0, 1] clamps


def test_draws_depend_on_the_seed_only():
    a = tl.rand(6, 50, dtype=tl.float64) * 40
    runs = []
    for threads, layout in ((1, lambda t: t), (2, lambda t: t.t().contiguous().t())):
        tl.set_num_threads(threads)
        try:
            g = tl.Generator().manual_seed(7)
            x = layout(a)
            runs.append([tl._standard_gamma(x, g), tl.poisson(x, g), tl.binomial(x.floor(), x / 40, g)])
        finally:
            tl.set_num_threads(2)
    for ours, theirs in zip(*runs):
        assert tl.equal(ours, theirs)
    tl.manual_seed(8)
    first = tl.poisson(a)
    second = tl.poisson(a)
    tl.manual_seed(8)
    assert tl.equal(tl.poisson(a), first) and not tl.equal(first, second)


def implicit_derivative(alpha, x, h=1e-5):
    """dx/dalpha with the CDF held fixed, by solving P(alpha +- h, x') = P(alpha, x) for x' (Newton in float64)
    and differencing: independent of the kernel's formula."""
    level = tl.special.gammainc(tl.tensor(alpha, dtype=tl.float64), tl.tensor(x, dtype=tl.float64)).item()

    def solve(a):
        y = x
        for _ in range(60):
            p = tl.special.gammainc(tl.tensor(a, dtype=tl.float64), tl.tensor(y, dtype=tl.float64)).item()
            density = math.exp((a - 1) * math.log(y) - y - math.lgamma(a))
            step = (p - level) / density
            y = max(y - step, y / 10)
            if abs(step) < 1e-15 * y:
                break
        return y

    return (solve(alpha + h) - solve(alpha - h)) / (2 * h)


@pytest.mark.parametrize("alpha,x", [(0.5, 0.3), (2.0, 1.0), (2.0, 6.5), (100.0, 90.0), (100.0, 125.0), (0.05, 1e-6),
                                     (7.0, 0.4)])
def test_gamma_grad_is_the_implicit_derivative(alpha, x):
    ours = tl._standard_gamma_grad(tl.tensor([alpha], dtype=tl.float64), tl.tensor([x], dtype=tl.float64)).item()
    assert ours == pytest.approx(implicit_derivative(alpha, x), rel=1e-6)


def test_gamma_rsample_gradient():
    alpha = tl.tensor([0.3, 1.0, 4.0, 50.0], dtype=tl.float64).repeat(5000).requires_grad_()
    tl.manual_seed(9)
    x = tl._standard_gamma(alpha)
    x.sum().backward()
    assert tl.equal(alpha.grad, tl._standard_gamma_grad(alpha.detach(), x.detach()))
    # E[x] = alpha, so the mean of dx/dalpha is 1 for every alpha (unbiased pathwise gradient)
    g = alpha.grad.reshape(5000, 4).numpy()
    assert np.all(np.abs(g.mean(0) - 1) < 5 * g.std(0) / math.sqrt(5000))
    with pytest.raises(NotImplementedError, match="_standard_gamma_grad"):
        a = tl.tensor([2.0], dtype=tl.float64, requires_grad=True)
        tl.autograd.grad(tl._standard_gamma_grad(a, tl.tensor([1.0], dtype=tl.float64)).sum(), a)


def test_poisson_and_binomial_have_zero_gradients():
    rate = tl.tensor([3.0, 20.0], requires_grad=True)
    tl.poisson(rate).sum().backward()
    assert rate.grad.tolist() == [0.0, 0.0]
    p = tl.tensor([0.2, 0.7], requires_grad=True)
    tl.binomial(tl.tensor([10.0, 10.0]), p).sum().backward()
    assert p.grad.tolist() == [0.0, 0.0]


def test_gamma_grad_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison is optional")
    rng = np.random.default_rng(10)
    alpha = rng.uniform(0.05, 50, 200)
    x = rng.gamma(alpha)
    ours = tl._standard_gamma_grad(tl.tensor(alpha), tl.tensor(x)).numpy()
    theirs = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    # PyTorch approximates the derivative (series and fitted rational functions) to about 1e-4
    np.testing.assert_allclose(ours, theirs, rtol=5e-4, atol=1e-12)
