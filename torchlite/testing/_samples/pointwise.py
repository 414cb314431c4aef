"""Pointwise ops: float64 NumPy references, and the values their Scalar arguments take in samples.

A pointwise op (`pointwise:` in the schema) is sampled by torchlite.testing on every dtype and layout
(_opinfo.LAYOUTS); it needs a reference here (POINTWISE_REFS) and, for a Scalar argument of a new name
without a default, a sample value (SCALAR_SAMPLES).
"""
import math

import numpy as np

import torchlite as tl

from .._helpers import FLOATING, NP_DTYPES, skip_reference


def _pow_ref(self, exponent, result_dtype):
    if result_dtype in FLOATING:
        return np.power(self, exponent)
    # Integer powers: a negative exponent gives 0 except for bases 1 and -1 (PyTorch's integer pow).
    neg = exponent < 0
    safe = np.power(self, np.where(neg, 0, exponent))
    odd = np.mod(exponent, 2) != 0
    return np.where(neg, np.where(self == 1, 1, np.where(self == -1, np.where(odd, -1, 1), 0)), safe)


def _shift_left(self, other, result_dtype):
    bits = 8 * np.dtype(NP_DTYPES[result_dtype]).itemsize
    a, b = np.asarray(self).astype(np.int64), np.asarray(other).astype(np.int64)
    return np.where((b < 0) | (b >= bits), 0, np.left_shift(a, np.clip(b, 0, 63)))


def _shift_right(self, other, result_dtype):
    bits = 8 * np.dtype(NP_DTYPES[result_dtype]).itemsize
    a, b = np.asarray(self).astype(np.int64), np.asarray(other).astype(np.int64)
    return np.where((b < 0) | (b >= bits), np.where(a < 0, -1, 0), np.right_shift(a, np.clip(b, 0, 63)))


def _i64(x):
    return np.asarray(x).astype(np.int64)


def _erfinv(self):
    """Newton's method on math.erf, from x = 0: an independent float64 reference."""
    erf = np.vectorize(math.erf, otypes=[float])
    y = np.asarray(self, dtype=np.float64)
    x = np.zeros_like(y)
    for _ in range(100):
        x = x - (erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return np.where(np.abs(y) == 1, np.sign(y) * np.inf, np.where(np.abs(y) > 1, np.nan, x))


def _lgamma(x):
    try:
        return math.lgamma(x)
    except ValueError:  # poles at 0, -1, -2, ...
        return math.inf


def _digamma(self):
    """Central difference of math.lgamma (error ~1e-9 on the test domain)."""
    lgamma, h = np.vectorize(_lgamma, otypes=[float]), 1e-5
    x = np.asarray(self, dtype=np.float64)
    pole = (x <= 0) & (x == np.trunc(x))
    return np.where(pole, np.where(x == 0, -np.inf, np.nan), (lgamma(x + h) - lgamma(x - h)) / (2 * h))


def _polygamma(n, self):
    """scipy.special.polygamma, an independent float64 reference (scipy is optional)."""
    try:
        from scipy import special
    except ImportError:
        skip_reference("scipy is not installed: it is polygamma's reference")
    return special.polygamma(n, self)


def _logit(self, eps):
    z = self if eps is None else np.clip(self, eps, 1 - eps)
    return np.log(z / (1 - z))


def _clamp(self, min=None, max=None):
    out = self if min is None else np.maximum(self, min)
    return out if max is None else np.minimum(out, max)


def _lerp(self, end, weight):
    return self + weight * (end - self)


# op (full name) -> NumPy function of the op's arguments (float64 arrays and Python numbers), by name. A
# reference with a `result_dtype` parameter also gets the result dtype's name.
POINTWISE_REFS = {
    "add.Tensor": lambda self, other, alpha: self + alpha * other,
    "sub.Tensor": lambda self, other, alpha: self - alpha * other,
    "rsub.Tensor": lambda self, other, alpha: other - alpha * self,
    "mul.Tensor": lambda self, other: self * other,
    "div.Tensor": lambda self, other: self / other,
    "true_divide.Tensor": lambda self, other: self / other,
    "floor_divide": lambda self, other: np.floor_divide(self, other),
    "_div_trunc": lambda self, other: np.trunc(self / other),
    "remainder.Tensor": lambda self, other: np.mod(self, other),
    "fmod.Tensor": lambda self, other: np.fmod(self, other),
    "neg": lambda self: -self,
    "abs": lambda self: np.abs(self),
    "pow.Tensor_Scalar": _pow_ref,
    "pow.Tensor_Tensor": _pow_ref,
    "pow.Scalar": _pow_ref,
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda self: 1 / np.sqrt(self), "reciprocal": lambda self: 1 / self,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "sigmoid": lambda self: 1.0 / (1.0 + np.exp(-self)),
    "expit": lambda self: 1.0 / (1.0 + np.exp(-self)),
    "logit": _logit,
    "relu": lambda self: np.maximum(self, 0),
    "erf": np.vectorize(math.erf, otypes=[float]), "erfc": np.vectorize(math.erfc, otypes=[float]),
    "erfinv": _erfinv,
    "lgamma": np.vectorize(lambda x: _lgamma(x), otypes=[float]), "digamma": _digamma, "polygamma": _polygamma,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": lambda self: np.round(self),
    "round.decimals": lambda self, decimals: np.round(self, decimals),
    "frac": lambda self: self - np.trunc(self),
    "sign": lambda self: np.nan_to_num(np.sign(self), nan=0.0), "sgn": lambda self: np.nan_to_num(np.sign(self), nan=0.0),
    "signbit": np.signbit,
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "isposinf": lambda self: np.isposinf(self),
    "isneginf": lambda self: np.isneginf(self),
    "_nan_to_num": lambda self, nan, posinf, neginf: np.nan_to_num(self, nan=nan, posinf=posinf, neginf=neginf),
    "atan2": np.arctan2, "hypot": np.hypot, "copysign.Tensor": np.copysign, "nextafter": np.nextafter,
    "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin,
    "clamp": _clamp, "clamp_min": lambda self, min: np.maximum(self, min),
    "clamp_max": lambda self, max: np.minimum(self, max),
    "where.self": lambda condition, self, other: np.where(condition != 0, self, other),
    "lerp.Scalar": _lerp, "lerp.Tensor": _lerp,
    "addcmul": lambda self, tensor1, tensor2, value: self + value * tensor1 * tensor2,
    "addcdiv": lambda self, tensor1, tensor2, value: self + value * tensor1 / tensor2,
    "eq.Tensor": np.equal, "ne.Tensor": np.not_equal, "lt.Tensor": np.less, "le.Tensor": np.less_equal,
    "gt.Tensor": np.greater, "ge.Tensor": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
    "logical_not": np.logical_not,
    "bitwise_and.Tensor": lambda self, other: np.bitwise_and(_i64(self), _i64(other)),
    "bitwise_or.Tensor": lambda self, other: np.bitwise_or(_i64(self), _i64(other)),
    "bitwise_xor.Tensor": lambda self, other: np.bitwise_xor(_i64(self), _i64(other)),
    "bitwise_not": lambda self, result_dtype: (np.logical_not(self) if result_dtype == "bool"
                                               else np.invert(_i64(self))),
    "bitwise_left_shift.Tensor": _shift_left,
    "bitwise_right_shift.Tensor": _shift_right,
    "clone": lambda self: np.array(self),
    "conj_physical": lambda self: np.conj(self),
    "fill.Scalar": lambda self, value: np.full_like(self, value),
    # nn.functional activations
    "threshold": lambda self, threshold, value: np.where(self <= threshold, value, self),
    "hardtanh": lambda self, min_val=-1.0, max_val=1.0: np.minimum(np.maximum(self, min_val), max_val),
    "relu6": lambda self: np.minimum(np.maximum(self, 0), 6),
    "elu": lambda self, alpha=1.0: np.where(self > 0, self, alpha * np.expm1(self)),
    "selu": lambda self: 1.0507009873554805 * np.where(self > 0, self, 1.6732632423543772 * np.expm1(self)),
    "celu": lambda self, alpha=1.0: np.where(self > 0, self, alpha * np.expm1(self / alpha)),
    "leaky_relu": lambda self, negative_slope=0.01: np.where(self > 0, self, self * negative_slope),
    "hardswish": lambda self: self * np.clip(self + 3, 0, 6) / 6,
    "hardsigmoid": lambda self: np.clip(self + 3, 0, 6) / 6,
    "log_sigmoid": lambda self: -np.logaddexp(0, -self),
    "hardshrink": lambda self, lambd=0.5: np.where(np.abs(self) > lambd, self, 0),
    "softshrink": lambda self, lambd=0.5: np.where(self > lambd, self - lambd, np.where(self < -lambd, self + lambd, 0)),
    "tanhshrink": lambda self: self - np.tanh(self),
    "softsign": lambda self: self / (1 + np.abs(self)),
    "softplus": lambda self, beta=1.0, threshold=20.0: np.where(self * beta > threshold, self,
                                                                np.log1p(np.exp(self * beta)) / beta),
    "silu": lambda self: self / (1 + np.exp(-self)),
    "mish": lambda self: self * np.tanh(np.log1p(np.exp(self))),
}

# Non-Tensor argument -> sample value by dtype category. Arguments that take part in type promotion
# (pow's exponent, clamp's bounds) follow the input's category, others (add's alpha) the result's, as
# PyTorch refuses a float alpha for integer results and a non-bool alpha for non-bool results.
SCALAR_SAMPLES = {
    "alpha": {"bool": True, "integral": 2, "floating": -1.5},
    "exponent": {"bool": 2, "integral": 3, "floating": 3.0},
    "self": {"bool": True, "integral": 2, "floating": 1.5},  # pow.Scalar's number base
    "value": {"bool": True, "integral": 3, "floating": -2.5},
    "min": {"bool": False, "integral": 1, "floating": -0.5},
    "max": {"bool": True, "integral": 3, "floating": 0.75},
    "weight": {"bool": True, "integral": 1, "floating": 0.3},
    "eps": {"bool": 0.1, "integral": 0.1, "floating": 0.1},
    "decimals": {"bool": 1, "integral": 1, "floating": 1},
    "n": {"bool": 2, "integral": 2, "floating": 2},  # polygamma's order (3 would overflow float16 near 0.1)
    "non_blocking": {"bool": False, "integral": False, "floating": False},
    "nan": {"bool": 0.5, "integral": 0.5, "floating": 0.5},
    "posinf": {"bool": 100.0, "integral": 100.0, "floating": 100.0},
    "neginf": {"bool": -100.0, "integral": -100.0, "floating": -100.0},
    "threshold": {"bool": 0, "integral": 1, "floating": 0.5},  # threshold's (softplus's: beta x above it is x)
    "lambd": {"bool": 0.5, "integral": 0.5, "floating": 0.75},
    "other": {"bool": True, "integral": 3, "floating": 2.5},  # xlogy.Scalar_Other's
}
# Samples PyTorch refuses although the result dtype is supported: op -> predicate over the args. The op
# must raise a RuntimeError from its `checks:` (the message starts with the op's name).
def _has_bool(*names):
    return lambda args: any(isinstance(args[n], bool) or (isinstance(args[n], tl.Tensor) and args[n].dtype == tl.bool)
                            for n in names)


def _integral(*names):
    def integral(x):
        return (isinstance(x, int) or (isinstance(x, tl.Tensor) and not x.dtype.is_floating_point))
    return lambda args: all(integral(args[n]) for n in names)


REFUSED_SAMPLES = {"sub.Tensor": _has_bool("self", "other"), "rsub.Tensor": _has_bool("self", "other"),
                   "addcdiv": _integral("tensor1", "tensor2"),
                   # hardtanh's default min_val is -1: "cannot do hardtanh on an unsigned type with negative limits"
                   "hardtanh": lambda args: args["self"].dtype == tl.uint8 and args.get("min_val", -1) < 0}
# Tensor arguments that are always bool (where's condition).
BOOL_TENSOR_ARGS = {"condition"}
# Ops that divide integers: their divisors get no zeros in integer samples (zero divisors raise, tested apart).
INTEGER_DIVISION = {"floor_divide", "_div_trunc", "remainder.Tensor", "fmod.Tensor"}

