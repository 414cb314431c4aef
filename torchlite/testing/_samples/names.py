"""Issue 18's "names code still calls": PyTorch's deprecated overloads, the small pointwise ops (logaddexp,
heaviside, gcd...), and the composites of the same section of native_functions.yaml."""
import numpy as np

import torchlite as tl

from .._helpers import f32 as _f32


def _i64(x):
    return np.asarray(x).astype(np.int64)


POINTWISE_REFS = {
    "logaddexp": np.logaddexp,
    "logaddexp2": np.logaddexp2,
    "rad2deg": lambda self: self * (180.0 / np.pi),
    "deg2rad": lambda self: self * (np.pi / 180.0),
    # NaN compares false with 0, so it gives 0 (NumPy's heaviside gives NaN: not the reference here)
    "heaviside": lambda self, values: np.where(self == 0, values, np.where(self > 0, 1.0, 0.0)),
    "gcd": lambda self, other: np.gcd(_i64(self), _i64(other)),
    "lcm": lambda self, other: np.lcm(_i64(self), _i64(other)),
}


def _ints(shape, seed, lo=0, hi=9):
    return tl.tensor(np.random.default_rng(seed).integers(lo, hi, size=shape))


def _split_ref(indices_or_sections, axis):
    def ref(self, **kw):
        return tuple(np.array_split(self, indices_or_sections, axis) if isinstance(indices_or_sections, int)
                     else np.split(self, indices_or_sections, axis))
    return ref


def _cumulative_logsumexp(self, dim):
    return np.logaddexp.accumulate(self, axis=dim)


def _tri_indices(lower):
    def ref(row, col, offset=0, **kw):
        r, c = np.nonzero(np.tril(np.ones((row, col)), offset) if lower else np.triu(np.ones((row, col)), offset))
        return np.stack([r, c]).astype(np.float64)
    return ref


def _nanmean(self, dim=None, keepdim=False, **kw):
    axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
    with np.errstate(all="ignore"):
        return np.nanmean(self, axis=axis, keepdims=keepdim)


def _with_nan(shape):
    x = _f32(shape)
    x[0, 1] = float("nan")
    x[1, 2] = float("nan")
    return x


CASES = {
    # deprecated overloads: the same results as the overloads they stand for
    "add.deprecated": (lambda: {"self": _f32((2, 3)), "alpha": 2.5, "other": _f32((3,))},
                       lambda self, alpha, other: self + alpha * other),
    "sub.deprecated": (lambda: {"self": _f32((2, 3)), "alpha": -0.5, "other": _f32((2, 3), True)},
                       lambda self, alpha, other: self - alpha * other),
    "addcmul.deprecated": (lambda: {"self": _f32((2, 3)), "value": 0.1, "tensor1": _f32((3,)),
                                    "tensor2": _f32((2, 1))},
                           lambda self, value, tensor1, tensor2: self + value * tensor1 * tensor2),
    "addcdiv.deprecated": (lambda: {"self": _f32((2, 3)), "value": 0.1, "tensor1": _f32((3,)),
                                    "tensor2": _f32((2, 1)) + 3},
                           lambda self, value, tensor1, tensor2: self + value * tensor1 / tensor2),
    "addmm.deprecated": (lambda: {"beta": 0.5, "self": _f32((2, 4)), "alpha": 2.0, "mat1": _f32((2, 3)),
                                  "mat2": _f32((3, 4))},
                         lambda beta, self, alpha, mat1, mat2: beta * self + alpha * mat1 @ mat2),
    "addmm.deprecated_beta": (lambda: {"beta": -1.0, "self": _f32((2, 4)), "mat1": _f32((2, 3)),
                                       "mat2": _f32((3, 4))},
                              lambda beta, self, mat1, mat2: beta * self + mat1 @ mat2),
    # composites
    "float_power.Tensor_Tensor": (lambda: {"self": _f32((2, 3)).abs(), "exponent": _ints((3,), 1, 0, 3)},
                                  lambda self, exponent: np.power(self, exponent)),
    "float_power.Tensor_Scalar": (lambda: {"self": _ints((2, 3), 2, -3, 4), "exponent": 2},
                                  lambda self, exponent: np.power(self, exponent)),
    "float_power.Scalar": (lambda: {"self": 1.5, "exponent": _f32((2, 3))},
                           lambda self, exponent: np.power(self, exponent)),
    "ldexp": (lambda: {"self": _f32((2, 3)), "other": _ints((3,), 3, -2, 3)},
              lambda self, other: self * np.power(2.0, other)),
    "ravel": (lambda: {"self": _f32((3, 2), True)}, lambda self: self.reshape(-1)),
    "msort": (lambda: {"self": _f32((4, 3))}, lambda self: np.sort(self, 0)),
    "diagflat": (lambda: {"self": _f32((2, 2)), "offset": -1}, lambda self, offset: np.diagflat(self, offset)),
    "inner": (lambda: {"self": _f32((2, 3)), "other": _f32((4, 3))}, lambda self, other: np.inner(self, other)),
    "dist": (lambda: {"self": _f32((2, 3)), "other": _f32((3,)), "p": 3},
             lambda self, other, p: np.sum(np.abs(self - other) ** 3) ** (1 / 3)),
    "diff": (lambda: {"self": _f32((3, 4)), "n": 2, "dim": 1, "prepend": _f32((3, 1)), "append": _f32((3, 2))},
             lambda self, n, dim, prepend, append: np.diff(self, n, dim, prepend=prepend, append=append)),
    "logcumsumexp": (lambda: {"self": _f32((3, 5)) * 30, "dim": 1}, _cumulative_logsumexp),
    "tril_indices": (lambda: {"row": 3, "col": 4, "offset": 1}, _tri_indices(True)),
    "triu_indices": (lambda: {"row": 4, "col": 3, "offset": -1}, _tri_indices(False)),
    "nanmean": (lambda: {"self": _with_nan((2, 3)), "dim": (1,), "keepdim": True}, _nanmean),
    "column_stack": (lambda: {"tensors": (_f32((3,)), _f32((3, 2)))}, lambda tensors: np.column_stack(tensors)),
    "row_stack": (lambda: {"tensors": (_f32((3,)), _f32((2, 3)))}, lambda tensors: np.vstack(tensors)),
    "hsplit.int": (lambda: {"self": _f32((2, 4)), "sections": 2}, _split_ref(2, 1)),
    "hsplit.array": (lambda: {"self": _f32((2, 5)), "indices": (1, 3)}, _split_ref([1, 3], 1)),
    "vsplit.int": (lambda: {"self": _f32((4, 2)), "sections": 2}, _split_ref(2, 0)),
    "vsplit.array": (lambda: {"self": _f32((5, 2)), "indices": (2,)}, _split_ref([2], 0)),
    "dsplit.int": (lambda: {"self": _f32((1, 2, 4)), "sections": 4}, _split_ref(4, 2)),
    "dsplit.array": (lambda: {"self": _f32((1, 2, 4)), "indices": (1, 5)}, _split_ref([1, 5], 2)),
}

# float32 results against the float64 references: within float32's rounding (float_power computes in float64).
TOLERANCES = {name: {"float32": (2e-6, 1e-6), "float64": (1e-12, 1e-12)} for name in CASES}


def numpy_cases():
    return CASES


# Bad inputs: (code, exception type, substrings of the message), run in a subprocess with tl = torchlite,
# a = ones(2, 3), i = tensor([1, 2, 3]), b = tensor([True, False]).
ERRORS = [
    ("tl.logaddexp(i, i)", "NotImplementedError", ["logaddexp", "'Long'"]),
    ("tl.logaddexp(a, 2)", "TypeError", ["logaddexp()"]),
    ("tl.heaviside(i, a)", "RuntimeError", ["heaviside is not yet implemented for tensors with different dtypes"]),
    ("tl.gcd(a, a)", "NotImplementedError", ["gcd", "'Float'"]),
    ("tl.hsplit(a, 2)", "RuntimeError", ["torch.hsplit attempted to split along dimension 1, but the size of the "
                                         "dimension 3 is not divisible by the split_size 2!"]),
    ("tl.vsplit(i, 1)", "RuntimeError", ["torch.vsplit requires a tensor with at least 2 dimension, but got a "
                                         "tensor with 1 dimensions!"]),
    ("tl.diff(tl.tensor(1.0))", "RuntimeError", ["diff expects input to be at least one-dimensional"]),
    ("tl.diff(a, n=-1)", "RuntimeError", ["order must be non-negative but got -1"]),
    ("tl.diff(a, append=i)", "RuntimeError", ["diff expects prepend or append to be the same dimension as input"]),
    ("tl.tril_indices(-1, 3)", "RuntimeError", ["row must be non-negative"]),
    ("tl.tril_indices(3, 3, dtype=tl.float32)", "NotImplementedError", ["tril_indices", "'Float'"]),
    ("tl.nanmean(i)", "RuntimeError", ["nanmean(): expected input to have floating point or complex dtype but got "
                                       "Long"]),
    ("tl.inner(a, tl.ones(2, 4))", "RuntimeError", ["inner() the last dimension must match on both input tensors"]),
    ("tl.logcumsumexp(i, 0)", "NotImplementedError", ["logcumsumexp", "'Long'"]),
]

