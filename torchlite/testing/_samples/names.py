"""Issue 18's "names code still calls": PyTorch's deprecated overloads, the small pointwise ops (logaddexp,
heaviside, gcd...), and the composites and searches of the same section of native_functions.yaml."""
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


def _sorted(shape, seed):
    return tl.tensor(np.sort(np.random.default_rng(seed).uniform(-2, 2, size=shape), -1).astype(np.float32))


def _histc(self, bins, min, max):
    return np.histogram(self, bins=bins, range=(min, max))[0].astype(np.float64)


# Batch 2 and 3: searches, histograms, scatters into slices, statistics, integration, writes at indices.


def _searchsorted_rows(sorted_sequence, self, right=False, side=None, **kw):
    side = side or ("right" if right else "left")
    if sorted_sequence.ndim == 1:
        return np.searchsorted(sorted_sequence, self, side=side)
    return np.stack([np.searchsorted(s, v, side=side) for s, v in zip(sorted_sequence, self)])


def _cumtrapz(y, x=None, dx=1.0, dim=-1):
    y = np.moveaxis(y, dim, -1)
    d = np.diff(x) if x is not None else dx
    return np.moveaxis(np.cumsum((y[..., 1:] + y[..., :-1]) / 2 * d, -1), -1, dim)


def _put_ref(self, index, source, accumulate):
    out = np.array(self, dtype=np.float64).reshape(-1)
    for i, v in zip(np.asarray(index, dtype=np.int64).reshape(-1), np.asarray(source).reshape(-1)):
        out[i] = out[i] + v if accumulate else v
    return out.reshape(np.shape(self))


def _index_reduce_ref(self, dim, index, source, reduce, include_self):
    out = np.array(self, dtype=np.float64)
    index = np.asarray(index, dtype=np.int64)
    o, s = np.moveaxis(out, dim, 0), np.moveaxis(np.asarray(source), dim, 0)
    groups = {}
    for j, i in enumerate(index):
        groups.setdefault(int(i), []).append(s[j])
    for i, rows in groups.items():
        vals = ([o[i].copy()] if include_self else []) + rows
        o[i] = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce](np.stack(vals), 0)
    return out


def _slice_scatter_ref(self, src, dim, start, end, step):
    out = np.array(self, dtype=np.float64)
    index = [slice(None)] * out.ndim
    index[dim] = slice(start, end, step)
    out[tuple(index)] = src
    return out


def _with_nan_rows():
    x = _f32((3, 5))
    x[0, 2] = float("nan")
    x[2] = float("nan")
    return x


CASES.update({
    "searchsorted.Tensor": (lambda: {"sorted_sequence": _sorted((2, 6), 11), "self": _f32((2, 4)), "right": True},
                            _searchsorted_rows),
    "searchsorted.Scalar": (lambda: {"sorted_sequence": _sorted((6,), 12), "self": 0.25},
                            lambda sorted_sequence, self, **kw: np.searchsorted(sorted_sequence, self)),
    "bucketize.Tensor": (lambda: {"self": _f32((3, 4)), "boundaries": _sorted((5,), 13)},
                         lambda self, boundaries, **kw: np.searchsorted(boundaries, self)),
    "bucketize.Scalar": (lambda: {"self": 0.5, "boundaries": _sorted((5,), 14), "right": True},
                         lambda self, boundaries, right: np.searchsorted(boundaries, self, "right")),
    "bincount": (lambda: {"self": _ints((12,), 15, 0, 6), "weights": _f32((12,)), "minlength": 8},
                 lambda self, weights, minlength: np.bincount(self.astype(np.int64), weights, minlength)),
    "histc": (lambda: {"self": _f32((40,)), "bins": 6, "min": -1.5, "max": 1.0}, _histc),
    "isin.Tensor_Tensor": (lambda: {"elements": _ints((3, 4), 16), "test_elements": _ints((5,), 17)},
                           lambda elements, test_elements, **kw: np.isin(elements, test_elements)),
    "isin.Tensor_Scalar": (lambda: {"elements": _ints((3, 4), 18), "test_element": 4, "invert": True},
                           lambda elements, test_element, invert, **kw: elements != test_element),
    "isin.Scalar_Tensor": (lambda: {"element": 3, "test_elements": _ints((5,), 19)},
                           lambda element, test_elements, **kw: np.isin(element, test_elements)),
    "narrow_copy": (lambda: {"self": _f32((3, 4)), "dim": 1, "start": 1, "length": 2},
                    lambda self, dim, start, length: self[:, 1:3]),
    "addr": (lambda: {"self": _f32((2, 3)), "vec1": _f32((2,)), "vec2": _f32((3,)), "beta": 0.5, "alpha": -2.0},
             lambda self, vec1, vec2, beta, alpha: beta * self + alpha * np.outer(vec1, vec2)),
    "select_scatter": (lambda: {"self": _f32((3, 4)), "src": _f32((3,)), "dim": 1, "index": -1},
                       lambda self, src, dim, index: np.concatenate([self[:, :3], src[:, None]], 1)),
    "slice_scatter": (lambda: {"self": _f32((5, 2)), "src": _f32((2, 2)), "dim": 0, "start": 1, "end": None,
                               "step": 2},
                      _slice_scatter_ref),
    "diagonal_scatter": (lambda: {"self": _f32((3, 3)), "src": _f32((2,)), "offset": 1},
                         lambda self, src, offset: self + np.diag(src - np.diagonal(self, 1), 1)),
    "sum_to_size": (lambda: {"self": _f32((2, 3, 4)), "size": (3, 1)},
                    lambda self, size: self.sum(0).sum(1, keepdims=True)),
    "isreal": (lambda: {"self": _f32((2, 3))}, lambda self: np.isreal(self)),
    "renorm": (lambda: {"self": _f32((3, 4)) * 2, "p": 2, "dim": 0, "maxnorm": 1.5},
               lambda self, p, dim, maxnorm: self * np.where(
                   np.linalg.norm(self, axis=1, keepdims=True) > maxnorm,
                   maxnorm / (np.linalg.norm(self, axis=1, keepdims=True) + 1e-7), 1.0)),
    "frexp.Tensor": (lambda: {"self": _f32((2, 3)) * 100}, lambda self: np.frexp(self)),
    "cov": (lambda: {"self": _f32((3, 6)), "correction": 0, "fweights": _ints((6,), 20, 1, 4),
                     "aweights": _f32((6,)).abs() + 0.1},
            lambda self, correction, fweights, aweights: np.cov(self, ddof=correction, fweights=fweights.astype(int),
                                                                aweights=aweights)),
    "corrcoef": (lambda: {"self": _f32((3, 5))}, lambda self: np.corrcoef(self)),
    "trapezoid.x": (lambda: {"y": _f32((2, 5)), "x": _sorted((5,), 21)},
                    lambda y, x, dim=-1: np.trapezoid(y, x, axis=dim)),
    "trapezoid.dx": (lambda: {"y": _f32((4, 3)), "dx": 0.5, "dim": 0},
                     lambda y, dx, dim: np.trapezoid(y, dx=dx, axis=dim)),
    "trapz.x": (lambda: {"y": _f32((2, 5)), "x": _sorted((2, 5), 22)},
                lambda y, x, dim=-1: np.trapezoid(y, x, axis=dim)),
    "trapz.dx": (lambda: {"y": _f32((3, 4)), "dx": 2.0}, lambda y, dx, dim=-1: np.trapezoid(y, dx=dx, axis=dim)),
    "cumulative_trapezoid.x": (lambda: {"y": _f32((2, 5)), "x": _sorted((5,), 23)},
                               lambda y, x, dim=-1: _cumtrapz(y, x=x, dim=dim)),
    "cumulative_trapezoid.dx": (lambda: {"y": _f32((4, 3)), "dx": 0.5, "dim": 0},
                                lambda y, dx, dim: _cumtrapz(y, dx=dx, dim=dim)),
    "put": (lambda: {"self": _f32((2, 3)), "index": tl.tensor([5, 0, -1]), "source": _f32((3,)), "accumulate": True},
            _put_ref),
    "index_reduce": (lambda: {"self": _f32((4, 3)), "dim": 0, "index": tl.tensor([0, 2, 0, 3, 2]),
                              "source": _f32((5, 3)), "reduce": "amax", "include_self": True}, _index_reduce_ref),
    "quantile": (lambda: {"self": _f32((3, 5)), "q": tl.tensor([0.1, 0.5, 0.9]), "dim": 1, "keepdim": True},
                 lambda self, q, dim, keepdim, **kw: np.quantile(self, q, axis=dim, keepdims=keepdim)),
    "quantile.scalar": (lambda: {"self": _f32((3, 5)), "q": 0.3, "interpolation": "midpoint"},
                        lambda self, q, interpolation, **kw: np.quantile(self, q, method="midpoint")),
    "nanquantile": (lambda: {"self": _with_nan_rows(), "q": tl.tensor([0.25, 0.75]), "dim": 1},
                    lambda self, q, dim, **kw: np.nanquantile(self, q, axis=dim)),
    "nanquantile.scalar": (lambda: {"self": _with_nan_rows(), "q": 0.4, "dim": 0, "interpolation": "lower"},
                           lambda self, q, dim, interpolation, **kw: np.nanquantile(self, q, axis=dim,
                                                                                    method="lower")),
})


def _window(kind, window_length, periodic=True, alpha=0.54, beta=None, **kw):
    n = np.arange(window_length, dtype=np.float64)
    m = window_length if periodic else window_length - 1
    c = 2 * np.pi * n / m
    if kind == "hann":
        return 0.5 - 0.5 * np.cos(c)
    if kind == "hamming":
        return alpha - (0.46 if beta is None else beta) * np.cos(c)
    if kind == "blackman":
        return 0.42 - 0.5 * np.cos(c) + 0.08 * np.cos(2 * c)
    if kind == "bartlett":
        return 1 - np.abs(2 * n / m - 1)
    b = 12.0 if beta is None else beta
    return np.i0(b * np.sqrt(1 - (2 * n / m - 1) ** 2)) / np.i0(b)


for _kind in ("hann", "hamming", "blackman", "bartlett", "kaiser"):
    CASES[f"{_kind}_window"] = (lambda: {"window_length": 7}, lambda window_length, _k=_kind: _window(_k, window_length))
    CASES[f"{_kind}_window.periodic"] = (lambda: {"window_length": 6, "periodic": False, "dtype": tl.float64},
                                         lambda window_length, periodic, dtype, _k=_kind: _window(_k, window_length,
                                                                                                  periodic))
CASES["hamming_window.periodic_alpha"] = (lambda: {"window_length": 5, "periodic": True, "alpha": 0.6},
                                          lambda window_length, periodic, alpha: _window("hamming", window_length,
                                                                                         periodic, alpha))
CASES["hamming_window.periodic_alpha_beta"] = (
    lambda: {"window_length": 5, "periodic": False, "alpha": 0.5, "beta": 0.3},
    lambda window_length, periodic, alpha, beta: _window("hamming", window_length, periodic, alpha, beta))
CASES["kaiser_window.beta"] = (lambda: {"window_length": 8, "periodic": False, "beta": 5.0},
                               lambda window_length, periodic, beta: _window("kaiser", window_length, periodic,
                                                                             beta=beta))


# float32 results against the float64 references: within float32's rounding (float_power computes in float64).
TOLERANCES = {name: {"float32": (2e-6, 1e-6), "float64": (1e-12, 1e-12)} for name in CASES}


def numpy_cases():
    return CASES


def samples():
    # random: compared after re-seeding the default generator before each call
    return {"multinomial": lambda: {"self": _f32((2, 5)).abs() + 0.1, "num_samples": 3, "replacement": False}}


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
    ("tl.searchsorted(tl.ones(2, 2), tl.ones(3))", "RuntimeError", ["boundaries tensor should be 1 dimension or the "
                                                                    "first N-1 dimensions"]),
    ("tl.searchsorted(i, i, side='mid')", "RuntimeError", ["side can only be 'left' or 'right' but got mid"]),
    ("tl.searchsorted(i, i, side='left', right=True)", "RuntimeError", ["side and right can't be set to opposites"]),
    ("tl.bucketize(i, tl.ones(2, 2))", "RuntimeError", ["boundaries tensor must be 1 dimension, but got dim(2)"]),
    ("tl.bincount(tl.tensor([-1]))", "RuntimeError", ["bincount only supports 1-d non-negative integral inputs."]),
    ("tl.bincount(a[0])", "NotImplementedError", ["bincount", "'Float'"]),
    ("tl.histc(i)", "NotImplementedError", ["histogram_cpu", "'Long'"]),
    ("tl.histc(a, bins=4, min=3, max=0)", "RuntimeError", ["torch.histc: max must be larger than min"]),
    ("tl.select_scatter(tl.zeros(2, 2), tl.ones(3), 0, 0)", "RuntimeError",
     ["expected src to have a size equal to the slice of self. src size = [3], slice size = [2]"]),
    ("a.sum_to_size(3, 3)", "RuntimeError", ["is not expandable to size"]),
    ("tl.renorm(a, 2, 0, -1)", "RuntimeError", ["renorm: expected maxnorm to be >= 0 but got -1"]),
    ("tl.frexp(i)", "RuntimeError", ["torch.frexp() only supports floating-point dtypes"]),
    ("tl.cov(tl.ones(2, 2, 2))", "RuntimeError", ["cov(): expected input to have two or fewer dimensions"]),
    ("tl.trapezoid(a, tl.ones(2))", "RuntimeError", ["trapezoid: There must be one `x` value for each sample point"]),
    ("tl.put(a, tl.tensor([6]), tl.tensor([9.0]))", "IndexError", ["6"]),
    ("tl.index_reduce(a, 0, tl.tensor([0]), tl.ones(1, 3), 'sum')", "RuntimeError",
     ["index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum."]),
    ("tl.multinomial(tl.tensor([-1.0, 1.0]), 1)", "RuntimeError",
     ["probability tensor contains either `inf`, `nan` or element < 0"]),
    ("tl.multinomial(tl.tensor([0.0, 0.0]), 1)", "RuntimeError",
     ["invalid multinomial distribution (sum of probabilities <= 0)"]),
    ("tl.multinomial(tl.ones(2, 2, 2), 1)", "RuntimeError", ["prob_dist must be 1 or 2 dim"]),
    ("tl.quantile(a, 1.5)", "RuntimeError", ["quantile() q must be in the range [0, 1] but got 1.5"]),
    ("tl.quantile(a, 0.5, interpolation='foo')", "RuntimeError",
     ["quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got foo"]),
    ("tl.quantile(i, 0.5)", "RuntimeError", ["quantile() input tensor must be either float or double dtype"]),
    ("tl.hann_window(3, dtype=tl.int64)", "RuntimeError", ["hann_window expects floating point dtypes"]),
    ("tl.kaiser_window(-1)", "RuntimeError", ["kaiser_window requires non-negative window_length"]),
    ("tl.searchsorted(tl.tensor([1.0, 2.0]), i, sorter=tl.tensor([0, 5]))", "RuntimeError",
     ["torch.searchsorted(): sorter index out of range"]),
    ("tl.searchsorted(b, b)", "NotImplementedError", ["searchsorted", "'Bool'"]),
    ("tl.bincount(tl.tensor([1, 2]), tl.ones(3))", "RuntimeError",
     ["weights should be 1-d and have the same length as input"]),
    ("tl.histc(a, bins=0)", "RuntimeError", ["bins must be > 0, but got 0"]),
    ("tl.histc(tl.tensor([1.0, float('nan')]))", "RuntimeError", ["torch.histc: range of [", "is not finite"]),
    ("tl.addr(a, tl.ones(2), tl.ones(3, 1))", "RuntimeError", ["addr: Expected 1-D argument vec2, but got 2-D"]),
    ("tl.put(a, tl.tensor([1]), tl.tensor([9.0], dtype=tl.float64))", "RuntimeError",
     ["put_(): self and source expected to have the same dtype"]),
    ("tl.cumulative_trapezoid(a, tl.ones(2))", "RuntimeError",
     ["cumulative_trapezoid: There must be one `x` value for each sample point"]),
    ("tl.cov(a, fweights=tl.ones(3))", "RuntimeError", ["cov(): expected fweights to have integral dtype"]),
    ("tl.cov(a, aweights=-tl.ones(3))", "RuntimeError", ["cov(): aweights cannot be negative"]),
    ("tl.multinomial(tl.ones(2), 3)", "RuntimeError",
     ["cannot sample n_sample > prob_dist.size(-1) samples without replacement"]),
    ("tl.multinomial(i, 1)", "RuntimeError", ["multinomial only supports floating-point dtypes for input"]),
    ("tl.quantile(tl.ones(0), 0.5)", "RuntimeError", ["quantile() input tensor must be non-empty"]),
    ("tl.quantile(a, tl.tensor([0.5], dtype=tl.float64))", "RuntimeError",
     ["quantile() q tensor must be same dtype as the input tensor"]),
    ("tl.diagonal_scatter(a, tl.ones(5))", "RuntimeError", ["expected src to have a size equal to the slice of self"]),
    ("tl.index_reduce(a, 0, tl.tensor([5]), tl.ones(1, 3), 'amax')", "IndexError", ["index out of range in self"]),
    ("tl.trapezoid(tl.ones(2, dtype=tl.bool))", "RuntimeError",
     ["trapezoid: received a bool input for `y`, but bool is not supported"]),
    ("tl.addr(tl.ones(2, 2, dtype=tl.int64), tl.ones(2, dtype=tl.int64), tl.ones(2, dtype=tl.int64), beta=0.5)",
     "RuntimeError", ["For integral input tensors, argument beta must not be a floating point number."]),
]


def _nan_not_whole_rows():
    x = _f32((3, 5))
    x[0, 2] = float("nan")
    x[2, 0] = float("nan")
    return x


# Samples that differ from the op's for the gradient checks. nanquantile: a row of NaN only gives NaN, whose
# numerical derivative is NaN; with a NaN or two among finite values the result is finite, and the NaN inputs
# get no gradient either way.
GRADCHECK_SAMPLES = {
    "nanquantile": lambda: {"self": _nan_not_whole_rows(), "q": tl.tensor([0.25, 0.75]), "dim": 1},
    "nanquantile.scalar": lambda: {"self": _nan_not_whole_rows(), "q": 0.4, "dim": 1},
}
