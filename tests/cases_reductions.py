"""Samples and error cases for reductions, scans, sorting and comparisons of whole tensors; merged into tests/test_ops.py."""
import numpy as np


def _x(h, shape=(2, 3, 4), noncontiguous=False):
    return h.make(shape, "float32", h.rng_for("reductions", shape, noncontiguous), noncontiguous=noncontiguous)


def _ints(h, shape=(2, 3, 4), dtype="int32"):
    return h.make(shape, dtype, h.rng_for("reductions", shape, dtype))  # values in [-4, 4]: some zeros


def samples(h):
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
    }


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


def numpy_cases(h):
    """Full overload name -> (sample as in samples(), reference computing the result from the sample's
    arguments as float64 NumPy arrays); the sample also serves the variant tests."""
    return {
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
    }


# Arguments that take a string besides a number (torchlite.norm's p='fro'): a stray string is a RuntimeError.
STRING_ARGS = {"norm": {"p": "not supported"}}

# NumPy references of the pointwise overloads (max(a, b) and min(a, b) are maximum and minimum).
POINTWISE_REFS = {"max.other": np.maximum, "min.other": np.minimum}

# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]), b = tensor([True, False]). Messages checked against PyTorch 2.13.
ERRORS = [
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
]
