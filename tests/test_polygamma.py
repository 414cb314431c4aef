"""polygamma(n, x) beyond the schema-driven checks (tests/test_ops.py, against scipy on its sample):
closed forms and identities that need no reference library, scipy over a wide range when it is installed,
poles and special values, negative x, large n, and the argument checks."""
import math

import numpy as np
import pytest

import torchlite as tl

INF, NAN = float("inf"), float("nan")


def pg(n, x, dtype=tl.float64):
    """polygamma(n, x) of a list of numbers at dtype, read back as float64."""
    t = tl.polygamma(n, tl.tensor(np.asarray(x, dtype=np.float64)).to(dtype))
    return np.array(t.tolist(), dtype=np.float64)


def zeta(s):
    """Riemann zeta(s) for an integer s >= 2: the terms below m summed directly, the rest from the first
    terms of the Euler-Maclaurin formula (the next one is below 1e-16)."""
    m = 1000
    tail = m ** (1 - s) / (s - 1) + 0.5 * m ** -s + s * m ** (-s - 1) / 12
    return math.fsum(k ** -s for k in range(1, m)) + tail


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 9])
def test_closed_forms_at_one_and_one_half(n):
    # psi_n(1) = (-1)^(n+1) n! zeta(n+1); psi_n(1/2) = (2^(n+1) - 1) psi_n(1).
    at_one = (-1) ** (n + 1) * math.factorial(n) * zeta(n + 1)
    np.testing.assert_allclose(pg(n, [1.0, 0.5]), [at_one, (2 ** (n + 1) - 1) * at_one], rtol=1e-13)


def test_trigamma_closed_forms():
    np.testing.assert_allclose(pg(1, [1.0, 0.5, 0.25]), [math.pi ** 2 / 6, math.pi ** 2 / 2,
                                                         math.pi ** 2 + 8 * 0.915965594177219015],  # Catalan's G
                               rtol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_recurrence(n):
    # psi_n(x + 1) = psi_n(x) + (-1)^n n! / x^(n+1), on both sides of 0 and across the series' switch at 10 + n.
    x = np.concatenate([np.linspace(-6.8, -0.15, 23), np.linspace(0.05, 30.0, 40)])
    lhs = pg(n, x + 1) - pg(n, x)
    rhs = (-1) ** n * math.factorial(n) / x ** (n + 1)
    scale = np.maximum(np.abs(pg(n, x)), np.abs(pg(n, x + 1)))
    assert np.all(np.abs(lhs - rhs) <= 1e-12 * scale), np.max(np.abs(lhs - rhs) / scale)


def test_trigamma_reflection():
    # psi_1(1 - x) + psi_1(x) = pi^2 / sin^2(pi x).
    x = np.linspace(-4.9, 4.9, 50)
    x = x[np.abs(x - np.round(x)) > 1e-3]
    np.testing.assert_allclose(pg(1, 1 - x) + pg(1, x), math.pi ** 2 / np.sin(math.pi * x) ** 2, rtol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 10, 20])
def test_matches_scipy(n):
    special = pytest.importorskip("scipy.special", reason="scipy is not installed: it is the reference here")
    rng = np.random.default_rng(n)
    x = np.concatenate([rng.uniform(1e-3, 1, 50), rng.uniform(1, 40, 50), rng.uniform(40, 1e5, 20)])
    if n % 2 == 1:
        # Odd n: every term of the series has the same sign, so negative x is well conditioned. (For even
        # n, psi_n changes sign between the poles and both libraries lose digits near its zeros.)
        x = np.concatenate([x, rng.uniform(-30, 0, 50)])
    np.testing.assert_allclose(pg(n, x), special.polygamma(n, x), rtol=1e-12)


def test_n_zero_is_digamma():
    x = tl.tensor([0.3, 1.0, 4.5, -2.5, 0.0, -1.0])
    np.testing.assert_array_equal(tl.polygamma(0, x).numpy(), tl.digamma(x).numpy())


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_poles_and_special_values(n):
    sign = 1.0 if n % 2 == 1 else -1.0  # (-1)^(n+1), PyTorch's and scipy's sign at a pole
    out = pg(n, [0.0, -1.0, -7.0, INF, NAN, -INF])
    np.testing.assert_array_equal(out[:3], [sign * INF] * 3)
    assert out[3] == 0 and math.isnan(out[4])
    assert out[5] == sign * INF  # every float that large is an integer: a pole


def test_far_from_zero_and_large_n_are_finite_and_fast():
    # psi_1 near a huge negative half-integer: pi^2 / sin^2(pi x) - psi_1(1 - x), psi_1(1 - x) ~ 1e-15.
    np.testing.assert_allclose(pg(1, [-1e15 + 0.5]), [math.pi ** 2], rtol=1e-14)
    np.testing.assert_allclose(pg(1, [1e12]), [1e-12], rtol=1e-9)  # ~ 1/x
    out = pg(10 ** 9, [2.0, 0.5])
    assert out[0] == 0 and out[1] == -INF  # 2^-(n+1) underflows; n! 2^(n+1) overflows


def test_dtypes():
    assert tl.polygamma(1, tl.tensor([1, 2])).dtype == tl.float32  # integers promote to the default float
    for dtype, rtol in [(tl.float32, 1e-6), (tl.float16, 1e-3), (tl.bfloat16, 1e-2)]:
        np.testing.assert_allclose(pg(2, [0.5, 1.5, 3.0], dtype), pg(2, [0.5, 1.5, 3.0]), rtol=rtol)


def test_variants():
    x = tl.tensor([0.5, 1.5, 3.0])
    expected = tl.polygamma(3, x).numpy()
    np.testing.assert_array_equal(x.polygamma(3).numpy(), expected)
    y = x.clone()
    assert y.polygamma_(3) is y
    np.testing.assert_array_equal(y.numpy(), expected)
    out = tl.empty(3)
    tl.polygamma(3, x, out=out)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_bad_arguments():
    x = tl.tensor([1.0])
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n"):
        tl.polygamma(-1, x)
    with pytest.raises(RuntimeError, match="does not support negative n"):
        x.polygamma_(-2)
    with pytest.raises(TypeError, match="must be int, not float"):
        tl.polygamma(1.5, x)
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.tensor([1, 2]).polygamma_(1)  # a float result into an integer tensor
