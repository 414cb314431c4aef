"""Kernel-path samples: calls that take each path of a hand-written kernel (one thread per row, long rows
split into partials over several levels, non-contiguous inputs, reduced inner and outer dims, dtypes, NaN
and ties, empty reductions, out= casts). tests/test_cuda_kernels_on_host.py runs them through the CUDA
kernels compiled for the host and compares with the CPU kernels. Built on demand (some inputs are large):
OpInfo.kernel_samples().
"""
import contextlib

import numpy as np

import torchlite as tl


@contextlib.contextmanager
def gpu_kernels_on_host():
    """CPU tensors run the host compilation of the hand-written CUDA kernels while inside (kernels/gpu/Backend.h)."""
    previous = tl._C._set_gpu_kernels_on_host(True)
    try:
        yield
    finally:
        tl._C._set_gpu_kernels_on_host(previous)


def arr(shape, dtype="float32", seed=0, low=-3.0, high=3.0, transposed=False):
    r = np.random.default_rng(seed)
    if dtype == "bool":
        a = r.random(shape) < 0.5
    elif dtype.startswith(("int", "uint")):
        a = r.integers(int(low) if low < 0 and not dtype.startswith("uint") else 0, int(high) + 1, size=shape)
    else:
        a = r.uniform(low, high, size=shape)
    t = tl.tensor(np.asarray(a, dtype=np.float64 if dtype in ("float16", "bfloat16") else a.dtype)).to(
        getattr(tl, dtype))
    if transposed and t.dim() >= 2:
        return t.transpose(0, -1).contiguous().transpose(0, -1)  # same values, column-major
    return t


def with_nan(t, positions):
    t = t.clone()
    flat = t.view(-1)
    for p in positions:
        flat[p] = float("nan")
    return t


# ------------------------------------------------------------------------------------------ samples
# op (full name) -> list of (function, args, kwargs). Each exercises a path of the kernel: one thread per
# row, long rows split into partials (more than 256 elements, over several levels), non-contiguous
# inputs, reduced inner and outer dims, dtypes, NaN and ties, empty reductions, out= casts.

LONG = 70000  # > 256 * 256: two levels of partials


def reduction_inputs():
    return [
        arr((5, 7)),
        arr((4, 6, 3), transposed=True),
        arr((3, LONG), seed=1),
        arr((LONG,), seed=2),
        arr((2, 300, 5), "float64", seed=3),
    ]


def _reduction_samples(fn, dims_list, kw=None, dtypes=("float32",)):
    out = []
    for x in reduction_inputs():
        for d in dims_list(x):
            args = (x,) if d is None else (x, d)
            out.append((fn, args, dict(kw or {})))
    for dt in dtypes:
        out.append((fn, (arr((6, 9), dt, seed=4),), dict(kw or {})))
    return out


def _dims(x):
    return [None, 0, -1] + ([(0, 2)] if x.dim() >= 3 else [])


def _dim_only(x):
    return [0, -1]


INT_TYPES = ("int64", "int32", "uint8", "int16")
def _seeded_randperm(n, seed, dtype):
    return tl.randperm(n, generator=tl.Generator().manual_seed(seed), dtype=dtype)


def _softmax_inputs():
    """(input, dim): rows (dim innermost) short and long, slices across an inner dim wider than a lane block,
    non-contiguous, 0-dim and empty inputs, reduced floating dtypes, NaN and infinities."""
    return [(arr((5, 7)), 1), (arr((3, LONG), seed=1), -1), (arr((4, 6, 3), transposed=True), 1),
            (arr((2, 9, 130), seed=2), 1), (arr((300, 5), "float64", seed=3), 0), (arr((6, 9), "float16", seed=4), 0),
            (arr((6, 9), "bfloat16", seed=4), 1), (arr(()), 0), (arr((0, 4)), 1),
            (with_nan(arr((3, 5)), [6]), 1), (tl.tensor([[float("inf"), 1.0], [-float("inf"), -float("inf")]]), 1)]


def _softmax_samples(fn):
    return [(fn, (x, d, False), {}) for x, d in _softmax_inputs()]


def _softmax_backward_samples(fn, forward):
    return [(fn, (arr(tuple(x.shape), str(x.dtype).split(".")[-1], seed=5), forward(x, d), d, x.dtype), {})
            for x, d in _softmax_inputs()]


def _nll_inputs():
    """(self, target, weight, reduction, ignore_index): 1-dim, 2-dim and spatial inputs, every reduction,
    weights, ignored targets, byte targets, float64 and float16, many targets, no targets."""
    t = lambda v, dt=tl.int64: tl.tensor(v, dtype=dt)
    return [(arr((5,)), t(2), None, 1, -100), (arr((4, 5)), t([1, 0, 4, 1]), None, 2, -100),
            (arr((4, 5)), t([1, -100, 4, 1]), arr((5,), low=0.5, high=2, seed=1), 1, -100),
            (arr((4, 5)), t([1, 3, 4, 3]), arr((5,), low=0.5, high=2, seed=1), 0, 3),
            (arr((2, 3, 4), "float64", transposed=True), t([[0, 2, 1, 1], [2, 2, 0, 1]], tl.uint8), None, 1, -100),
            (arr((2, 3, 2, 2), "float16"), t([[[0, 1], [2, 0]], [[1, 1], [2, 2]]]), None, 0, -100),
            (arr((3000, 7), seed=2), tl.randint(0, 7, (3000,), generator=tl.Generator().manual_seed(3)), None, 1, 5),
            (arr((0, 4)), t([]), None, 1, -100), (arr((3, 2)), t([-100, -100, -100]), None, 1, -100)]


def _nll_backward_args(self, target, weight, reduction, ignore_index):
    output, total = tl.nn.functional.nll_loss_forward(self, target, weight, reduction, ignore_index)
    grad = arr(tuple(output.shape), str(self.dtype).split(".")[-1], seed=6)
    return (grad, self, target, weight, reduction, ignore_index, total)


def _ce_backward_args(self, target, weight, reduction, ignore_index):
    output, log_probs, total = tl.nn.functional._cross_entropy_forward(self, target, weight, reduction, ignore_index)
    grad = arr(tuple(output.shape), str(self.dtype).split(".")[-1], seed=7)
    return (grad, log_probs, target, weight, reduction, ignore_index, total)


def kernel_samples():
    """{full name: [(function, args, kwargs)]}: calls that take each path of a hand-written kernel."""
    return {
        "sum": _reduction_samples(tl.sum, lambda x: [None], dtypes=("float64", "float16", "bfloat16") + INT_TYPES +
                                  ("bool",)),
        "sum.dim_IntList": _reduction_samples(tl.sum, _dims, dtypes=("int64", "bool")) + [
            (tl.sum, (arr((3, 4)), 1), {"keepdim": True}),
            (tl.sum, (arr((3, 4)), 1), {"dtype": tl.float64}),
            (tl.sum, (arr((0, 4)), 0), {}),  # empty rows sum to 0
        ],
        "prod": [(tl.prod, (arr((4, 5), low=0.5, high=1.5),), {}), (tl.prod, (arr((3, 4), "int64", low=-2, high=2),), {}),
                 (tl.prod, (arr((0,)),), {}), (tl.prod, (arr((2, 600), low=0.9, high=1.1, seed=5),), {})],
        "prod.dim_int": [(tl.prod, (arr((4, 5), low=0.5, high=1.5), 0), {}),
                         (tl.prod, (arr((4, 5, 2), "int32", low=-2, high=2, transposed=True), -1), {"keepdim": True})],
        "amax": _reduction_samples(tl.amax, lambda x: [(), 0] + ([(0, -1)] if x.dim() > 1 else []), dtypes=INT_TYPES + ("bool", "float16")) + [
            (tl.amax, (with_nan(arr((4, 5)), [7]), 1), {})],
        "amin": _reduction_samples(tl.amin, lambda x: [(), 0] + ([(0, -1)] if x.dim() > 1 else []), dtypes=INT_TYPES) + [
            (tl.amin, (with_nan(arr((3, LONG), seed=6), [100, LONG + 5]), 1), {})],
        "max": _reduction_samples(tl.max, lambda x: [None], dtypes=INT_TYPES + ("bool",)) + [
            (tl.max, (with_nan(arr((LONG,), seed=7), [LONG - 1]),), {})],
        "min": _reduction_samples(tl.min, lambda x: [None], dtypes=INT_TYPES),
        "max.dim": _reduction_samples(tl.max, _dim_only, dtypes=INT_TYPES) + [
            (tl.max, (tl.tensor([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, 5.0]]), 1), {}),  # ties: the first
            (tl.max, (with_nan(arr((3, 5)), [2, 3, 11]), 1), {"keepdim": True})],
        "min.dim": _reduction_samples(tl.min, _dim_only) + [
            (tl.min, (arr((2, LONG), "int64", low=-5, high=5, seed=8), 1), {})],  # ties across partials
        "argmax": _reduction_samples(tl.argmax, lambda x: [None, 0, -1], dtypes=INT_TYPES) + [
            (tl.argmax, (arr((3, LONG), "int32", low=0, high=3, seed=9), 1), {}),
            (tl.argmax, (with_nan(arr((LONG,), seed=10), [500, 30000]),), {})],
        "argmin": _reduction_samples(tl.argmin, lambda x: [None, x.dim() - 1], dtypes=("float16",)),
        "aminmax": [(tl.aminmax, (x,), kw) for x in reduction_inputs() for kw in ({}, {"dim": 0}, {"dim": -1})] + [
            (tl.aminmax, (with_nan(arr((3, 4)), [5]),), {"dim": 1, "keepdim": True})],
        "all": [(tl.all, (x,), {}) for x in (arr((3, 4), "bool"), tl.ones(LONG, dtype=tl.bool), arr((5,), "float32"),
                                            tl.zeros(0))],
        "all.dim": [(tl.all, (arr((4, 600), "int64", low=0, high=3, seed=11), 1), {}),
                    (tl.all, (arr((3, 4, 2), "bool", transposed=True), 0), {"keepdim": True})],
        "all.dims": [(tl.all, (arr((3, 4, 5), "bool"), (0, 2)), {}), (tl.all, (arr((3, 4), "uint8"), ()), {})],
        "any": [(tl.any, (x,), {}) for x in (arr((3, 4), "bool"), tl.zeros(LONG, dtype=tl.bool), arr((5,), "int32"),
                                            tl.zeros(0))],
        "any.dim": [(tl.any, (arr((4, 600), "float16", low=0, high=1, seed=12) > 0.99, 1), {})],
        "any.dims": [(tl.any, (arr((3, 4, 5), "bool"), (1,)), {"keepdim": True})],
        "var.correction": _reduction_samples(tl.var, lambda x: [None, 0, -1], dtypes=("float64", "float16")) + [
            (tl.var, (arr((4, 5)), 1), {"correction": 0}), (tl.var, (arr((1, 5)), 0), {})],  # one element: nan
        "std.correction": _reduction_samples(tl.std, lambda x: [None, 1 if x.dim() > 1 else 0]),
        "var_mean.correction": [(tl.var_mean, (x,), kw) for x in reduction_inputs()
                                for kw in ({}, {"dim": 0, "correction": 2})],
        "std_mean.correction": [(tl.std_mean, (x,), kw) for x in reduction_inputs() for kw in ({}, {"dim": -1})],
        "norm": [(tl.norm, (x,), {"p": p}) for x in reduction_inputs()
                 for p in (2, 1, 0, 3.5, float("inf"), -float("inf"), -1)] + [
            (tl.norm, (arr((3, 4)),), {"dim": 1, "dtype": tl.float64}),
            (tl.norm, (with_nan(arr((3, 4)), [1]),), {"p": float("inf"), "dim": 1})],
        "mm": [(tl.mm, (arr((5, 7)), arr((7, 3), seed=1)), {}),
               (tl.mm, (arr((5, 7), transposed=True), arr((7, 3), seed=1, transposed=True)), {}),
               (tl.mm, (arr((4, 6), "int64", low=-3, high=3), arr((6, 2), "int64", seed=2, low=-3, high=3)), {}),
               (tl.mm, (arr((4, 6), "float16"), arr((6, 2), "float16", seed=2)), {}),
               (tl.mm, (arr((3, 0)), arr((0, 4))), {}),  # k = 0: zeros
               (tl.mm, (arr((8, 5))[::2], arr((5, 9))[:, ::3]), {})],
        "bmm": [(tl.bmm, (arr((3, 4, 5)), arr((3, 5, 2), seed=1)), {}),
                (tl.bmm, (arr((2, 4, 5), "float64", transposed=True), arr((2, 5, 3), "float64", seed=3)), {})],
        "addmm": [(tl.addmm, (arr((3,)), arr((2, 4)), arr((4, 3), seed=1)), {"beta": 0.5, "alpha": 2.0}),
                  (tl.addmm, (with_nan(arr((2, 3)), [0]), arr((2, 4)), arr((4, 3), seed=1)), {"beta": 0}),
                  (tl.addmm, (arr((2, 3), "int32"), arr((2, 4), "int32"), arr((4, 3), "int32", seed=1)), {"beta": 2})],
        "baddbmm": [(tl.baddbmm, (arr((1, 4)), arr((2, 3, 5)), arr((2, 5, 4), seed=1)), {"alpha": -1.5})],
        "arange": [(tl.arange, (10,), {}), (tl.arange, (7.5,), {}), (tl.arange, (5,), {"dtype": tl.float16})],
        "arange.start_step": [(tl.arange, (-3, 10, 2), {}), (tl.arange, (0.0, 1.0, 0.1), {}),
                              (tl.arange, (10, -10, -3), {"dtype": tl.int8}), (tl.arange, (0, 1, 0.25), {"dtype": tl.float64})],
        "linspace": [(tl.linspace, (0, 1, 7), {}), (tl.linspace, (-5, 5, 1), {}), (tl.linspace, (0, 10, 6), {"dtype": tl.int64}),
                     (tl.linspace, (-1.5, 2.25, 11), {"dtype": tl.float64}), (tl.linspace, (3, 4, 0), {})],
        "logspace": [(tl.logspace, (0, 2, 5), {}), (tl.logspace, (-1, 1, 4), {"base": 2.0}),
                     (tl.logspace, (0, 3, 4), {"dtype": tl.int32})],
        "tril": [(tl.tril, (arr((4, 5)),), {}), (tl.tril, (arr((2, 4, 5), transposed=True), -1), {}),
                 (tl.tril, (arr((3, 3), "int64"), 1), {}), (tl.tril, (arr((0, 3)),), {})],
        "triu": [(tl.triu, (arr((5, 4)),), {}), (tl.triu, (arr((3, 4, 6), "bool"), 2), {}),
                 (tl.triu, (arr((4, 4), "float16")[:, ::2], -1), {})],
        "_softmax": _softmax_samples(tl._softmax),
        "_log_softmax": _softmax_samples(tl._log_softmax),
        "_softmax_backward_data": _softmax_backward_samples(tl._softmax_backward_data, tl.softmax),
        "_log_softmax_backward_data": _softmax_backward_samples(tl._log_softmax_backward_data, tl.log_softmax),
        "nll_loss_forward": [(tl.nn.functional.nll_loss_forward, args, {}) for args in _nll_inputs()],
        "nll_loss_backward": [(tl.nn.functional.nll_loss_backward, _nll_backward_args(*args), {})
                              for args in _nll_inputs()],
        "_cross_entropy_forward": [(tl.nn.functional._cross_entropy_forward, args, {}) for args in _nll_inputs()],
        "_cross_entropy_backward": [(tl.nn.functional._cross_entropy_backward, _ce_backward_args(*args), {})
                                    for args in _nll_inputs()],
        "cumsum": [(tl.cumsum, (arr((4, 5)), 1), {}), (tl.cumsum, (arr((3, 4, 2), transposed=True), 0), {}),
                   (tl.cumsum, (arr((6,), "int32"), 0), {}), (tl.cumsum, (arr((2, 3), "bool"), 1), {"dtype": tl.int64}),
                   (tl.cumsum, (arr((2, 600), seed=3), 1), {"dtype": tl.float64}), (tl.cumsum, (arr((0, 3)), 0), {})],
        "cumprod": [(tl.cumprod, (arr((4, 5), low=0.5, high=1.5), 0), {}),
                    (tl.cumprod, (arr((3, 4), "int64", low=-2, high=2), -1), {})],
        "cummax": [(tl.cummax, (arr((4, 5), "int64", low=0, high=3), 1), {}),
                   (tl.cummax, (with_nan(arr((3, 6)), [2, 9]), 1), {}), (tl.cummax, (arr((5, 3), transposed=True), 0), {})],
        "cummin": [(tl.cummin, (arr((4, 5), "int32", low=0, high=3), 0), {}),
                   (tl.cummin, (with_nan(arr((2, 5)), [3]), -1), {})],
        "sort": [(tl.sort, (arr((4, 7)),), {}), (tl.sort, (arr((5, 6), "int64", low=0, high=3), 0), {"descending": True}),
                 (tl.sort, (with_nan(arr((3, 9)), [1, 4, 20]),), {}),
                 (tl.sort, (with_nan(arr((3, 9)), [1, 4, 20]),), {"descending": True}),
                 (tl.sort, (arr((2, 1000), "int32", low=0, high=50, seed=4),), {}),  # ties: stable
                 (tl.sort, (arr((3, 4, 5), "float16", transposed=True), 1), {}), (tl.sort, (arr((4, 3), "bool"),), {}),
                 (tl.sort, (arr((0, 3)),), {})],
        "topk": [(tl.topk, (arr((4, 9)), 3), {}), (tl.topk, (arr((6, 5), "int64", low=0, high=3), 2, 0), {"largest": False}),
                 (tl.topk, (with_nan(arr((2, 8)), [3]), 4), {}), (tl.topk, (arr((3, 5)), 0), {})],
        "kthvalue": [(tl.kthvalue, (arr((4, 9)), 3), {}), (tl.kthvalue, (arr((5, 6), "int32", low=0, high=2), 2, 0), {}),
                     (tl.kthvalue, (with_nan(arr((3, 5)), [1]), 5, 1), {"keepdim": True})],
        "median": [(tl.median, (arr((5, 7)),), {}), (tl.median, (with_nan(arr((4,)), [2]),), {}),
                   (tl.median, (arr((0,)),), {}), (tl.median, (arr((6,), "int64"),), {})],
        "median.dim": [(tl.median, (arr((4, 6)), 1), {}), (tl.median, (with_nan(arr((3, 5)), [2, 3]), 1), {}),
                       (tl.median, (arr((5, 4), "int64", low=0, high=2), 0), {"keepdim": True})],
        "nanmedian": [(tl.nanmedian, (with_nan(arr((9,)), [0, 4]),), {}), (tl.nanmedian, (with_nan(arr((2,)), [0, 1]),), {})],
        "nanmedian.dim": [(tl.nanmedian, (with_nan(arr((3, 6)), [0, 1, 7, 17]), 1), {})],
        "mode": [(tl.mode, (arr((4, 9), "int64", low=0, high=3), 1), {}), (tl.mode, (arr((6, 5), "bool"), 0), {}),
                 (tl.mode, (arr((3, 7)), -1), {})],
        "index_select": [(tl.index_select, (arr((4, 5)), 1, tl.tensor([4, 0, 0, 2])), {}),
                         (tl.index_select, (arr((4, 5), "int64", transposed=True), 0, tl.tensor([3, 1], dtype=tl.int32)), {}),
                         (tl.index_select, (arr(()), 0, tl.tensor([0])), {})],
        "gather": [(tl.gather, (arr((3, 4)), 1, tl.tensor([[0, 3], [1, 1], [2, 0]])), {}),
                   (tl.gather, (arr((3, 4), "float16"), 0, tl.tensor([[2, 0, 1, 1]])), {})],
        "scatter.src": [(tl.scatter, (arr((3, 5)), 1, tl.tensor([[0, 4], [1, 1], [3, 2]]), arr((3, 2), seed=1)), {}),
                        (tl.scatter, (arr((4, 3)), 0, tl.tensor([[3, 0, 3], [3, 3, 1]]), arr((2, 3), seed=2)), {})],
        "scatter.value": [(tl.scatter, (arr((3, 5), "int32"), 1, tl.tensor([[0, 4], [2, 2], [3, 1]]), 7), {})],
        "scatter.reduce": [(tl.scatter, (arr((3, 5)), 1, tl.tensor([[0, 0], [1, 1], [4, 4]]), arr((3, 2), seed=1)),
                            {"reduce": r}) for r in ("add", "multiply")],
        "scatter.value_reduce": [(tl.scatter, (arr((3, 4)), 0, tl.tensor([[1, 1, 0, 2]]), 2.5), {"reduce": "multiply"})],
        "scatter_add": [(tl.scatter_add, (arr((3, 5)), 1, tl.tensor([[0, 0, 0], [1, 4, 1], [2, 2, 3]]), arr((3, 3), seed=1)), {}),
                        (tl.scatter_add, (arr((2, 600), "float64"), 1, tl.zeros(2, 600, dtype=tl.int64), arr((2, 600), "float64", seed=9)), {})],
        "scatter_reduce.two": [(tl.scatter_reduce, (arr((3, 5), dt), 1, tl.tensor([[0, 0, 4], [1, 3, 1], [2, 2, 2]]),
                                                    arr((3, 3), dt, seed=1), r), {"include_self": inc})
                               for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)
                               for dt in ("float32", "int64")],
        "index_add": [(tl.index_add, (arr((4, 3)), 0, tl.tensor([3, 0, 3]), arr((3, 3), seed=1)), {"alpha": 2.0}),
                      (tl.index_add, (arr((3, 4), "int32"), 1, tl.tensor([1, 1]), arr((3, 2), "int32", seed=2)), {})],
        "index_copy": [(tl.index_copy, (arr((4, 3)), 0, tl.tensor([3, 1]), arr((2, 3), seed=1)), {}),
                       (tl.index_copy, (arr((3, 4), "bool"), 1, tl.tensor([0, 2, 0]), arr((3, 3), "bool", seed=3)), {})],
        "index_fill.int_Scalar": [(tl.index_fill, (arr((4, 3)), 0, tl.tensor([3, -1, 0]), -7.5), {}),
                                  (tl.index_fill, (arr((3, 4), "int64"), 1, tl.tensor([2]), 9), {})],
        "index_fill.int_Tensor": [(tl.index_fill, (arr((4, 3)), 1, tl.tensor([0, 2]), tl.tensor(1.25)), {})],
        "take": [(tl.take, (arr((3, 4)), tl.tensor([[0, 11], [-1, 5]])), {}),
                 (tl.take, (arr((3, 4), transposed=True), tl.tensor([1, 2, 3])), {})],
        "nonzero": [(tl.nonzero, (arr((4, 5), "int64", low=0, high=1),), {}), (tl.nonzero, (arr((3000,), "bool", seed=5),), {}),
                    (tl.nonzero, (tl.zeros(3, 2),), {}), (tl.nonzero, (tl.tensor(2.0),), {})],
        "masked_fill.Scalar": [(tl.masked_fill, (arr((3, 4)), arr((4,), "bool"), -1.0), {}),
                               (tl.masked_fill, (arr((3, 4), "int32", transposed=True), arr((3, 1), "bool"), 5), {})],
        "masked_fill.Tensor": [(tl.masked_fill, (arr((3, 4)), arr((3, 4), "bool"), tl.tensor(0.5)), {})],
        "masked_select": [(tl.masked_select, (arr((3, 4)), arr((3, 4), "bool")), {}),
                          (tl.masked_select, (arr((3, 1)), arr((2, 3, 4), "bool", seed=6)), {}),
                          (tl.masked_select, (arr((5000,), seed=7), arr((5000,), "bool", seed=8)), {})],
        "masked_scatter": [(tl.masked_scatter, (arr((3, 4)), arr((3, 4), "bool"), arr((12,), seed=1)), {}),
                           (tl.masked_scatter, (arr((4, 3), transposed=True), arr((3,), "bool"), arr((4, 3), seed=2)), {})],
        "_index": [(lambda x, i: x[i], (arr((4, 5)), (tl.tensor([3, 0, 3]), tl.tensor([1, 4, 4]))), {}),
                   (lambda x, i: x[i], (arr((4, 5, 6)), (slice(None), tl.tensor([[0, 1], [4, -1]]))), {}),
                   (lambda x, i: x[i], (arr((4, 5)), (arr((4, 5), "bool", seed=3),)), {}),
                   (lambda x, i: x[i], (arr((3, 4, 5)), (tl.tensor([0, 2]), slice(None), tl.tensor([1, 3]))), {})],
        "index_put": [(lambda x, i, v, acc: x.index_put(i, v, acc), (arr((4, 5)), (tl.tensor([3, 0, 3]), tl.tensor([1, 4, 1])),
                                                                    arr((3,), seed=1), acc), {}) for acc in (False, True)] + [
            (lambda x, i, v: x.index_put(i, v, True), (arr((5, 3), "int64"), (tl.tensor([0, 0, 4, 0]),),
                                                       arr((4, 3), "int64", seed=2)), {})],
        # randperm's CUDA kernel draws on the host from the device's generator: the same seed, the same numbers
        "randperm": [(_seeded_randperm, (n, seed), {"dtype": dt}) for n, seed, dt in
                     ((50, 3, tl.int64), (20, 4, tl.int32), (0, 5, tl.int64), (2049, 6, tl.float16))],
    }
