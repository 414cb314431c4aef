"""Samples and error cases for reductions, scans, sorting and comparisons of whole tensors; part of torchlite.testing's op database."""

import numpy as np

from .. import _helpers as h  # make, rng_for, f32, NP_DTYPES, tl


def _x(h, shape=(2, 3, 4), noncontiguous=False):
    return h.make(shape, "float32", h.rng_for("reductions", shape, noncontiguous), noncontiguous=noncontiguous)


def _ints(h, shape=(2, 3, 4), dtype="int32"):
    return h.make(shape, dtype, h.rng_for("reductions", shape, dtype))  # values in [-4, 4]: some zeros


def samples():
    """Full overload name -> a function returning a sample call's arguments by name."""
    return {
        "mean": lambda: {"self": _x(h, (2, 3))},
        "mean.dim": lambda: {"self": _x(h), "dim": (0, 2), "keepdim": True},
        "nansum": lambda: {"self": _x(h), "dim": 1},
        "prod": lambda: {"self": _x(h, (2, 3))},
        "prod.dim_int": lambda: {"self": _x(h), "dim": -1, "keepdim": True},
        "logsumexp": lambda: {"self": _x(h), "dim": (0, 2)},
        "var": lambda: {"self": _x(h, (2, 3))},
        "var.dim": lambda: {"self": _x(h), "dim": 1, "unbiased": False, "keepdim": True},
        "var.correction": lambda: {"self": _x(h), "dim": (0, 2), "correction": 0.5},
        "std": lambda: {"self": _x(h, (2, 3))},
        "std.dim": lambda: {"self": _x(h), "dim": -1, "unbiased": True},
        "std.correction": lambda: {"self": _x(h, (4, 3), True), "dim": 0, "correction": 2, "keepdim": True},
        "var_mean": lambda: {"self": _x(h, (2, 3))},
        "var_mean.dim": lambda: {"self": _x(h), "dim": (1,), "unbiased": False},
        "var_mean.correction": lambda: {"self": _x(h), "dim": 2, "correction": 0},
        "std_mean": lambda: {"self": _x(h, (2, 3))},
        "std_mean.dim": lambda: {"self": _x(h), "dim": 0, "keepdim": True},
        "std_mean.correction": lambda: {"self": _x(h), "correction": 1},
        "norm": lambda: {"self": _x(h), "p": 3, "dim": (1, 2)},
        "isclose": lambda: {"self": _x(h, (2, 3)), "other": _x(h, (2, 3)) * 1.0000001, "rtol": 1e-4},
        "allclose": lambda: {"self": _x(h, (2, 3)), "other": _x(h, (3,)), "atol": 0.5},
        "equal": lambda: {"self": _x(h, (2, 3)), "other": _x(h, (2, 3))},
        "cumsum": lambda: {"self": _x(h, (4, 3), True), "dim": 0},
        "cumprod": lambda: {"self": _x(h), "dim": -1, "dtype": h.tl.float32},
        "sort.stable": lambda: {"self": _x(h, (4, 3), True), "stable": True, "dim": 0},
        "argsort.stable": lambda: {"self": _ints(h), "stable": True, "descending": True},
        "nanmedian": lambda: {"self": _x(h, (2, 3))},
        "nanmedian.dim": lambda: {"self": _x(h), "dim": 1, "keepdim": True},
    }


def _sorted(self, dim, descending):
    order = np.argsort(-self if descending else self, axis=dim, kind="stable")
    return np.take_along_axis(self, order, axis=dim), order


def _mode(self, dim):
    """Most frequent value along dim (the smallest among ties) and the index of its last occurrence."""
    x = np.moveaxis(self, dim, -1)
    values, indices = np.empty(x.shape[:-1]), np.empty(x.shape[:-1], dtype=np.int64)
    for pos in np.ndindex(x.shape[:-1]):
        row = x[pos]
        uniq, counts = np.unique(row, return_counts=True)
        v = uniq[np.argmax(counts)]  # the first of the most frequent, in sorted order
        values[pos], indices[pos] = v, np.nonzero(row == v)[0][-1]
    return values, indices


def _unique(self, return_inverse, return_counts, axis=None):
    u, inverse, counts = np.unique(self, return_inverse=True, return_counts=True, axis=axis)
    inverse = inverse.reshape(self.shape if axis is None else (-1,))
    return u, inverse if return_inverse else np.zeros(0), counts if return_counts else np.zeros(0)


def _cum_extreme(self, dim, is_max):
    """Running max/min along dim and the latest index of it (no NaN in the samples)."""
    x = np.moveaxis(self, dim, -1)
    values, indices = np.empty_like(x), np.empty(x.shape, dtype=np.int64)
    for pos in np.ndindex(x.shape[:-1]):
        best, at = None, 0
        for k, v in enumerate(x[pos]):
            if best is None or (v >= best if is_max else v <= best):
                best, at = v, k
            values[pos + (k,)], indices[pos + (k,)] = best, at
    return np.moveaxis(values, -1, dim), np.moveaxis(indices, -1, dim)


def _softmax(x, dim):
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)


def numpy_cases():
    """Full overload name -> (sample as in samples(), reference computing the result from the sample's
    arguments as float64 NumPy arrays); the sample also serves the variant tests."""
    return {
        "softmax.int": (lambda: {"self": _x(h, (4, 3), True), "dim": 0},
                        lambda self, dim: _softmax(self, dim)),
        "log_softmax.int": (lambda: {"self": _x(h), "dim": -1, "dtype": h.tl.float64},
                            lambda self, dim, dtype: np.log(_softmax(self, dim))),
        "_softmax": (lambda: {"self": _x(h), "dim": 1, "half_to_float": False},
                     lambda self, dim, half_to_float: _softmax(self, dim)),
        "_log_softmax": (lambda: {"self": _x(h, (4, 3), True), "dim": -1, "half_to_float": False},
                         lambda self, dim, half_to_float: np.log(_softmax(self, dim))),
        "_softmax_backward_data": (
            lambda: {"grad_output": _x(h), "output": h.tl.softmax(_x(h, (2, 3, 4)).transpose(0, 1).contiguous().transpose(0, 1), 2), "dim": 2,
                     "input_dtype": h.tl.float32},
            lambda grad_output, output, dim, input_dtype:
                output * (grad_output - np.sum(grad_output * output, axis=dim, keepdims=True))),
        "_log_softmax_backward_data": (
            lambda: {"grad_output": _x(h, (4, 3), True), "output": h.tl.log_softmax(_x(h, (4, 3)), 0), "dim": 0,
                     "input_dtype": h.tl.float32},
            lambda grad_output, output, dim, input_dtype:
                grad_output - np.exp(output) * np.sum(grad_output, axis=dim, keepdims=True)),
        "amax": (lambda: {"self": _x(h, (4, 3), True), "dim": (0, -1)}, lambda self, dim: np.max(self, axis=dim)),
        "amin": (lambda: {"self": _x(h), "dim": 1, "keepdim": True},
                 lambda self, dim, keepdim: np.min(self, axis=dim, keepdims=True)),
        "max": (lambda: {"self": _x(h, (4, 3), True)}, lambda self: np.max(self)),
        "min": (lambda: {"self": _ints(h)}, lambda self: np.min(self)),
        "max.dim": (lambda: {"self": _x(h), "dim": 1},
                    lambda self, dim: (np.max(self, axis=1), np.argmax(self, axis=1))),
        "min.dim": (lambda: {"self": _x(h, (4, 3), True), "dim": -1, "keepdim": True},
                    lambda self, dim, keepdim: (np.min(self, axis=-1, keepdims=True),
                                                np.argmin(self, axis=-1)[:, None])),
        "aminmax": (lambda: {"self": _x(h), "dim": 2},
                    lambda self, dim: (np.min(self, axis=2), np.max(self, axis=2))),
        "argmax": (lambda: {"self": _x(h), "dim": -2, "keepdim": True},
                   lambda self, dim, keepdim: np.argmax(self, axis=-2)[:, None, :]),
        "argmin": (lambda: {"self": _x(h, (4, 3), True)}, lambda self: np.argmin(self)),
        "all": (lambda: {"self": _ints(h)}, lambda self: np.all(self != 0)),
        "all.dim": (lambda: {"self": _ints(h), "dim": 1}, lambda self, dim: np.all(self != 0, axis=1)),
        "all.dims": (lambda: {"self": _ints(h, (2, 3, 4), "uint8"), "dim": (0, 2), "keepdim": True},
                     lambda self, dim, keepdim: np.all(self != 0, axis=(0, 2), keepdims=True)),
        "any": (lambda: {"self": _x(h)}, lambda self: np.any(self != 0)),
        "any.dim": (lambda: {"self": _ints(h, (5, 6), "int8"), "dim": 0},
                    lambda self, dim: np.any(self != 0, axis=0)),
        "any.dims": (lambda: {"self": _ints(h, (2, 3, 4), "bool"), "dim": (-1,)},
                     lambda self, dim: np.any(self != 0, axis=-1)),
        "count_nonzero": (lambda: {"self": _ints(h), "dim": 1}, lambda self, dim: np.count_nonzero(self, axis=1)),
        "count_nonzero.dim_IntList": (lambda: {"self": _ints(h), "dim": (0, 2)},
                                      lambda self, dim: np.count_nonzero(self, axis=(0, 2))),
        "cummax": (lambda: {"self": _ints(h, (3, 5), "int16"), "dim": 1},
                   lambda self, dim: _cum_extreme(self, dim, True)),
        "cummin": (lambda: {"self": _x(h, (4, 3), True), "dim": 0}, lambda self, dim: _cum_extreme(self, dim, False)),
        "sort": (lambda: {"self": _x(h), "dim": 1, "descending": True},
                 lambda self, dim, descending: _sorted(self, dim, descending)),
        "argsort": (lambda: {"self": _x(h, (4, 3), True), "dim": 0}, lambda self, dim: _sorted(self, dim, False)[1]),
        "topk": (lambda: {"self": _x(h), "k": 2, "dim": -1},
                 lambda self, k, dim: tuple(a[..., :2] for a in _sorted(self, -1, True))),
        "kthvalue": (lambda: {"self": _x(h, (4, 3), True), "k": 3, "dim": 0, "keepdim": True},
                     lambda self, k, dim, keepdim: tuple(a[2:3] for a in _sorted(self, 0, False))),
        "median": (lambda: {"self": _x(h, (2, 3))}, lambda self: np.sort(self, axis=None)[2]),
        "median.dim": (lambda: {"self": _x(h), "dim": -1},
                       lambda self, dim: tuple(a[..., 1] for a in _sorted(self, -1, False))),
        "mode": (lambda: {"self": _ints(h, (3, 8)), "dim": 1}, lambda self, dim: _mode(self, dim)),
        "_unique2": (lambda: {"self": _ints(h), "return_inverse": True, "return_counts": True},
                     lambda self, return_inverse, return_counts: _unique(self, True, True)),
        "unique_dim": (lambda: {"self": _ints(h, (6, 2), "bool"), "dim": 0, "return_counts": True},
                       lambda self, dim, return_counts: _unique(self, False, True, axis=0)),
    }


# Arguments that take a string besides a number (torchlite.norm's p='fro'): a stray string is a RuntimeError.
STRING_ARGS = {"norm": {"p": "not supported"}}
# Results that round (exp, division): within these of the float64 reference, per result dtype.
TOLERANCES = {"softmax.int": {"float32": (2e-6, 1e-7)}, "log_softmax.int": {"float64": (1e-12, 1e-12)},
              "_softmax": {"float32": (2e-6, 1e-7)}, "_log_softmax": {"float32": (2e-6, 1e-6)},
              "_softmax_backward_data": {"float32": (1e-5, 1e-6)},
              "_log_softmax_backward_data": {"float32": (1e-5, 1e-6)}}

# NumPy references of the pointwise overloads (max(a, b) and min(a, b) are maximum and minimum).
POINTWISE_REFS = {"max.other": np.maximum, "min.other": np.minimum}

# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]), b = tensor([True, False]). Messages checked against PyTorch 2.13.
ERRORS = [
    ("tl.softmax(i, 0)", "NotImplementedError", ["softmax", "'Long'"]),
    ("tl._softmax(a.half(), 1, True)", "RuntimeError", ["softmax with half to float conversion is not supported on CPU"]),
    ("tl._softmax(a, 1, True)", "RuntimeError", ["conversion is supported for Half type only"]),
    ("tl._softmax_backward_data(a, a[:1], 1, None)", "RuntimeError", ["does not match output of shape"]),
    ("tl._log_softmax_backward_data(a, a.double(), 0, None)", "RuntimeError", ["expected scalar type Float but found Double"]),
    ("tl.log_softmax(a, 2)", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], but got 2)"]),
    ("tl.mean(i)", "RuntimeError", ["mean(): could not infer output dtype. Input dtype must be either a floating "
                                    "point or complex dtype. Got: Long"]),
    ("tl.mean(a, dtype=tl.int64)", "RuntimeError", ["Optional dtype must be either a floating point or complex dtype. "
                                                    "Got: Long"]),
    ("tl.max(tl.empty(0))", "RuntimeError", ["max(): Expected reduction dim to be specified for input.numel() == 0. "
                                             "Specify the reduction dim with the 'dim' argument."]),
    ("tl.amin(tl.empty(2, 0))", "RuntimeError", ["amin(): Expected reduction dim to be specified for input.numel() == 0"]),
    ("tl.amax(tl.empty(0, 3), 0)", "IndexError", ["amax(): Expected reduction dim 0 to have non-zero size."]),
    ("tl.max(tl.empty(0, 3), 0)", "IndexError", ["max(): Expected reduction dim 0 to have non-zero size."]),
    ("tl.argmax(tl.empty(0))", "IndexError", ["argmax(): Expected reduction dim to be specified for input.numel() == 0."]),
    ("tl.argmin(tl.empty(3, 0), 1)", "IndexError", ["argmin(): Expected reduction dim 1 to have non-zero size."]),
    ("tl.argmax(b)", "RuntimeError", ["argmax(): does not support bool input"]),
    ("tl.aminmax(tl.empty(0))", "RuntimeError", ["aminmax(): cannot compute aminmax over an empty dimension as the "
                                                 "operation has no identity."]),
    ("tl.aminmax(tl.empty(0, 3), dim=0)", "IndexError", ["aminmax: Expected reduction dim 0 to have non-zero size."]),
    ("tl.var(i)", "RuntimeError", ["std and var only support floating point and complex dtypes"]),
    ("tl.std(b, 0)", "RuntimeError", ["std and var only support floating point and complex dtypes"]),
    ("tl.var(a, 5)", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], but got 5)"]),
    ("tl.norm(i)", "RuntimeError", ["linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"]),
    ("tl.norm(a, dtype=tl.int64)", "RuntimeError", ["linalg.vector_norm: dtype should be floating point or complex, "
                                                    "but got Long"]),
    ("tl.norm(a, 2, dtype=tl.float16)", "RuntimeError", ["the dtype of the input (Float) should be convertible without "
                                                         "narrowing to the specified dtype (Half)"]),
    ("tl.norm(tl.empty(0), float('inf'))", "RuntimeError", ["linalg.vector_norm cannot compute the inf norm on an empty "
                                                            "tensor because the operation does not have an identity"]),
    ("tl.norm(tl.empty(0), -1)", "RuntimeError", ["cannot compute the -1 norm on an empty tensor"]),
    ("tl.norm(tl.empty(0, 3), float('inf'), 0)", "RuntimeError", ["cannot compute the inf norm on the dimension 0"]),
    ("tl.norm(a, 'abc')", "RuntimeError", ["linalg.matrix_norm: Order abc not supported."]),
    ("tl.norm(tl.ones(2, 2, 2), 'fro', (0, 1, 2))", "RuntimeError", ["linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"]),
    ("tl.norm(a, 2, dtype=tl.float64, out=tl.empty(0))", "RuntimeError", ["Expected out tensor to have dtype double, but "
                                                                          "got float instead"]),
    ("tl.max(a, 0, out=(tl.empty(0),))", "TypeError", ["expected tuple of 2 elements but got 1"]),
    ("tl.max(a, 0, out=(tl.empty(0), tl.empty(0)))", "RuntimeError", ["Expected out tensor to have dtype long int, "
                                                                      "but got float instead"]),
    ("tl.aminmax(a, out=(tl.empty(0, dtype=tl.float64), tl.empty(0)))", "RuntimeError",
     ["Expected out tensor to have dtype float, but got double instead"]),
    ("tl.argmax(a, 0, out=tl.empty(0, dtype=tl.int32))", "RuntimeError", ["Expected out tensor to have dtype long int, "
                                                                          "but got int instead"]),
    ("tl.amax(a, 0, out=tl.empty(0, dtype=tl.float64))", "RuntimeError",
     ["Expected the dtype for input and out to match, but got Float for input's dtype and Double for out's dtype."]),
    ("tl.all(a, out=tl.empty(0))", "RuntimeError", ["all only supports bool tensor for result, got: Float"]),
    ("tl.any(a, 0, out=tl.empty(0, dtype=tl.int64))", "RuntimeError", ["any only supports bool tensor for result, got: Long"]),
    ("tl.sum(a, 0, dtype=tl.int64, out=tl.empty(0, dtype=tl.int32))", "RuntimeError",
     ["Expected out tensor to have dtype long int, but got int instead"]),
    ("tl.mean(a, 0, dtype=tl.float64, out=tl.empty(0))", "RuntimeError",
     ["Expected out tensor to have dtype double, but got float instead"]),
    ("tl.isclose(a, i)", "RuntimeError", ["Float did not match Long"]),
    ("tl.isclose(a, a, rtol=-1)", "RuntimeError", ["rtol must be greater than or equal to zero, but got -1"]),
    ("tl.allclose(a, a, atol=-1.5)", "RuntimeError", ["atol must be greater than or equal to zero, but got -1.5"]),
    ("tl.allclose(a, tl.ones(3, 3))", "RuntimeError", ["The size of tensor a (2) must match the size of tensor b (3) at "
                                                       "non-singleton dimension 0"]),
    ("tl.prod(a, (0, 1))", "TypeError", ["prod()"]),
    ("tl.max(a, dim=(0, 1))", "TypeError", ["max()"]),
    ("tl.logsumexp(a)", "TypeError", ["logsumexp()"]),
    ("tl.cumsum(a)", "TypeError", ["cumsum()", "dim"]),
    ("tl.cumsum(a, 2)", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], but got 2)"]),
    ("tl.cumprod(tl.tensor(3.0), 1)", "IndexError", ["Dimension out of range (expected to be in range of [-1, 0], but got 1)"]),
    ("tl.cummax(a, -3)", "IndexError", ["Dimension out of range"]),
    ("a.cumsum_(0, dtype=tl.float64)", "RuntimeError", ["Bad in-place call: input tensor dtype float and output tensor "
                                                        "dtype double should match"]),
    ("tl.cumsum(a, 0, dtype=tl.float64, out=tl.empty(0))", "RuntimeError", ["Expected out tensor to have dtype double, "
                                                                            "but got float instead"]),
    ("tl.cummin(a, 0, out=(tl.empty(0), tl.empty(0, dtype=tl.int32)))", "RuntimeError",
     ["Expected out tensor to have dtype long int, but got int instead"]),
    ("tl.max(tl.empty(0), 0)", "IndexError", ["max(): Expected reduction dim 0 to have non-zero size."]),
    ("tl.amax(tl.empty(0), 0)", "IndexError", ["amax(): Expected reduction dim 0 to have non-zero size."]),
    ("tl.argmax(tl.empty(0), 0)", "IndexError", ["argmax(): Expected reduction dim 0 to have non-zero size."]),
    ("tl.aminmax(tl.empty(0), dim=0)", "IndexError", ["aminmax: Expected reduction dim 0 to have non-zero size."]),
    ("tl.sort(a, 2)", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], but got 2)"]),
    ("tl.sort(a, stable=1)", "TypeError", ["sort()"]),
    ("tl.topk(i, 4)", "RuntimeError", ["selected index k out of range"]),
    ("tl.topk(i, -1)", "RuntimeError", ["selected index k out of range"]),
    ("tl.topk(b, 1)", "RuntimeError", ["topk does not support bool dtypes on CPU"]),
    ("tl.kthvalue(i, 0)", "RuntimeError", ["kthvalue(): selected number k out of range for dimension 0"]),
    ("tl.kthvalue(tl.empty(0), 1)", "IndexError", ["kthvalue(): Expected reduction dim 0 to have non-zero size."]),
    ("tl.kthvalue(b, 1)", "NotImplementedError", ['"kthvalue_cpu" not implemented for \'Bool\'']),
    ("tl.median(b)", "NotImplementedError", ['"median_cpu" not implemented for \'Bool\'']),
    ("tl.nanmedian(b, 0)", "NotImplementedError", ['"median_out" not implemented for \'Bool\'']),
    ("tl.nanmedian(b)", "NotImplementedError", ['"median_cpu" not implemented for \'Bool\'']),
    ("tl.median(tl.empty(0, 2), 0)", "IndexError", ["median(): Expected reduction dim 0 to have non-zero size."]),
    ("tl.nanmedian(tl.empty(0), 0)", "IndexError", ["median(): Expected reduction dim 0 to have non-zero size."]),
    ("tl.mode(tl.empty(0))", "IndexError", ["mode(): Expected reduction dim 0 to have non-zero size."]),
    ("tl.sort(i, out=(tl.empty(0, dtype=tl.int64), tl.empty(0, dtype=tl.int32)))", "RuntimeError",
     ["Expected out tensor to have dtype long int, but got int instead"]),
]
