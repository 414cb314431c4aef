"""torchlite.special (issue 18): float64 references of its pointwise ops, mvlgamma's sample, error cases.

References: NumPy's own functions and closed forms where they exist (sinc, xlogy, entr, ndtr, the
orthogonal polynomials through numpy.polynomial), scipy.special for the rest when scipy is installed (the
tests that need it are skipped without it, saying so). tests/test_special.py checks the functions without
scipy (closed forms, series in exact arithmetic, identities) and, when PyTorch is installed, against it.
"""
import math

import numpy as np
from numpy.polynomial import chebyshev as _cheb
from numpy.polynomial import hermite as _herm
from numpy.polynomial import hermite_e as _herme
from numpy.polynomial import laguerre as _lag
from numpy.polynomial import legendre as _leg

from .. import _helpers as h
from .._helpers import skip_reference


def _scipy(name):
    """scipy.special.<name> as a reference, called when the test runs (skipped without scipy)."""
    def ref(**args):  # the op's arguments by name, in schema order
        try:
            from scipy import special
        except ImportError:
            skip_reference(f"scipy is not installed: scipy.special.{name} is the reference")
        return getattr(special, name)(*args.values())
    return ref


def _xlogy(self, other):
    self, other = np.broadcast_arrays(np.asarray(self, dtype=np.float64), np.asarray(other, dtype=np.float64))
    return np.where(np.isnan(other), np.nan, np.where(self == 0, 0.0, self * np.log(other)))


def _xlog1py(self, other):
    self, other = np.broadcast_arrays(np.asarray(self, dtype=np.float64), np.asarray(other, dtype=np.float64))
    return np.where(np.isnan(other), np.nan, np.where(self == 0, 0.0, self * np.log1p(other)))


def _entr(self):
    x = np.asarray(self, dtype=np.float64)
    with np.errstate(all="ignore"):
        return np.where(x > 0, -x * np.log(x), np.where(x == 0, 0.0, np.where(np.isnan(x), np.nan, -np.inf)))


def _ndtr(self):
    return np.vectorize(lambda v: 0.5 * math.erfc(-v / math.sqrt(2)), otypes=[float])(self)


# ---------------------------------------------------------------- orthogonal polynomials (numpy.polynomial)
def _chebyshev_u_coefficients(n):
    """U_n in the Chebyshev T basis: 2 (T_n + T_{n-2} + ...), with T_0 counted once."""
    c = np.zeros(n + 1)
    c[n::-2] = 2.0
    if n % 2 == 0:
        c[0] = 1.0
    return c


def _chebyshev(kind):
    def value(x, n):
        if kind == "t":
            return _cheb.chebval(x, np.eye(n + 1)[n])
        u = _cheb.chebval(x, _chebyshev_u_coefficients(n))
        if kind == "u":
            return u
        u_prev = _cheb.chebval(x, _chebyshev_u_coefficients(n - 1)) if n > 0 else 0.0
        return u - u_prev if kind == "v" else u + u_prev
    return value


_POLY_VALUES = {
    "chebyshev_polynomial_t": _chebyshev("t"), "chebyshev_polynomial_u": _chebyshev("u"),
    "chebyshev_polynomial_v": _chebyshev("v"), "chebyshev_polynomial_w": _chebyshev("w"),
    "hermite_polynomial_h": lambda x, n: _herm.hermval(x, np.eye(n + 1)[n]),
    "hermite_polynomial_he": lambda x, n: _herme.hermeval(x, np.eye(n + 1)[n]),
    "laguerre_polynomial_l": lambda x, n: _lag.lagval(x, np.eye(n + 1)[n]),
    "legendre_polynomial_p": lambda x, n: _leg.legval(x, np.eye(n + 1)[n]),
}


def _polynomial(name, shifted=False):
    """The polynomial of degree trunc(n) at x (2x - 1 when shifted), 0 for a negative degree, elementwise."""
    value = _POLY_VALUES[name]

    def ref(x, n):
        x, n = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(n, dtype=np.float64))
        out = np.zeros(x.shape)
        degree = np.trunc(n)
        for d in np.unique(degree[degree >= 0]):
            sel = degree == d
            xs = 2 * x[sel] - 1 if shifted else x[sel]
            out[sel] = value(xs, int(d))
        return out
    return ref


def _polynomial_refs():
    refs = {}
    for name in _POLY_VALUES:
        refs[name] = _polynomial(name)
        if name.startswith("chebyshev"):
            refs["shifted_" + name] = _polynomial(name, shifted=True)
    return refs


POINTWISE_REFS = {
    "i0": _scipy("i0"), "i0e": _scipy("i0e"), "i1": _scipy("i1"), "i1e": _scipy("i1e"),
    "modified_bessel_i0": _scipy("i0"), "modified_bessel_i1": _scipy("i1"),
    "modified_bessel_k0": _scipy("k0"), "modified_bessel_k1": _scipy("k1"),
    "scaled_modified_bessel_k0": _scipy("k0e"), "scaled_modified_bessel_k1": _scipy("k1e"),
    "bessel_j0": _scipy("j0"), "bessel_j1": _scipy("j1"), "bessel_y0": _scipy("y0"), "bessel_y1": _scipy("y1"),
    "spherical_bessel_j0": lambda self: np.sinc(np.asarray(self) / np.pi),
    "airy_ai": lambda self: _scipy("airy")(self=self)[0],
    "sinc": lambda self: np.sinc(self),
    "entr": _entr,
    "erfcx": _scipy("erfcx"),
    "ndtr": _ndtr,
    "ndtri": _scipy("ndtri"),
    "log_ndtr": _scipy("log_ndtr"),
    "xlogy.Tensor": _xlogy, "xlogy.Scalar_Self": _xlogy, "xlogy.Scalar_Other": _xlogy,
    "xlog1py": _xlog1py,
    "igamma": _scipy("gammainc"), "igammac": _scipy("gammaincc"),
    "zeta": _scipy("zeta"),
    **_polynomial_refs(),
}


def _mvlgamma_ref(self, p):
    lgamma = np.vectorize(math.lgamma, otypes=[float])
    return p * (p - 1) / 4 * math.log(math.pi) + sum(lgamma(self - i / 2) for i in range(p))


def numpy_cases():
    """mvlgamma (a composite): inputs above (p - 1) / 2, where it is defined."""
    def sample():
        return {"self": h.make((2, 3), "float32", h.rng_for("mvlgamma"), domain=(1.6, 4.0)), "p": 3}
    return {"mvlgamma": (sample, _mvlgamma_ref)}


# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]), b = tensor([True, False]).
ERRORS = [
    ("tl.mvlgamma(a, 0)", "RuntimeError", ["mvlgamma", "p has to be greater than or equal to 1"]),
    ("tl.mvlgamma(b, 1)", "RuntimeError", ["mvlgamma", "may not be a boolean tensor"]),
    ("tl.igamma(i, i)", "NotImplementedError", ["igamma", "'Long'"]),
    ("tl.special.zeta(a.half(), a.half())", "NotImplementedError", ["zeta", "'Half'"]),
    ("tl.special.bessel_j0(a.bfloat16())", "NotImplementedError", ["bessel_j0", "'BFloat16'"]),
    ("tl.special.chebyshev_polynomial_t(a, 'x')", "TypeError", ["chebyshev_polynomial_t"]),
    ("tl.special.gammainc(a, a.view(3, 2))", "RuntimeError", ["must match the size"]),
    ("tl.xlogy(a, a, out=i)", "RuntimeError", ["Float", "Long"]),
]

# mvlgamma's float32 result against its float64 reference: lgamma and the sum round in float32.
TOLERANCES = {"mvlgamma": {"float32": (2e-6, 2e-6)}}
