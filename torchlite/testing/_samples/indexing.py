"""Samples and error cases for indexing ops (index_select, gather, scatter, index_*, masked_*, take, nonzero); part of torchlite.testing's op database."""

import numpy as np

from .. import _helpers as h  # make, rng_for, f32, NP_DTYPES, tl


def _ints(h, shape, key, dtype="float32", lo=-4, hi=5):
    """Integer-valued entries (exact in float32, so accumulating ops compare exactly with float64 NumPy)."""
    data = h.rng_for("indexing", key, shape).integers(lo, hi, size=shape)
    return h.tl.tensor(data.astype(h.NP_DTYPES[dtype]))


def _long(data):
    import torchlite as tl

    return tl.tensor(np.asarray(data, dtype=np.int64))


def _i(a):
    return np.asarray(a).astype(np.int64)


# ------------------------------------------------------------------ NumPy references (sequential loops)
def _gather_ref(self, dim, index, sparse_grad=False):
    idx = _i(index)
    self = np.asarray(self)
    if self.ndim == 0:
        return np.full(idx.shape, self)
    coords = list(np.indices(idx.shape, sparse=False))
    coords[dim] = idx
    return self[tuple(coords)]


def _scatter_ref(self, dim, index, src=None, value=None, reduce=None, include_self=True):
    out = np.array(self, dtype=np.float64, copy=True)
    idx = _i(index)
    touched = {}
    for pos in np.ndindex(idx.shape):
        dst = list(pos)
        dst[dim] = idx[pos]
        dst = tuple(dst)
        v = src[pos] if src is not None else value
        if reduce is None:
            out[dst] = v
            continue
        if dst not in touched:
            touched[dst] = [out[dst]] if include_self else []
        touched[dst].append(v)
    for dst, vals in touched.items():
        out[dst] = {"sum": np.sum, "add": np.sum, "prod": np.prod, "multiply": np.prod, "amax": np.max,
                    "amin": np.min, "mean": np.mean}[reduce](vals)
    return out


def _index_add_ref(self, dim, index, source, alpha=1):
    out = np.array(self, copy=True)
    np.add.at(np.moveaxis(out, dim, 0), _i(index), alpha * np.moveaxis(np.asarray(source), dim, 0))
    return out


def _index_copy_ref(self, dim, index, source):
    out = np.array(self, copy=True)
    np.moveaxis(out, dim, 0)[_i(index)] = np.moveaxis(np.asarray(source), dim, 0)
    return out


def _index_fill_ref(self, dim, index, value):
    out = np.array(self, copy=True)
    np.moveaxis(out, dim, 0)[_i(index)] = value
    return out


def _index_tuple(indices):
    return tuple(np.asarray(t).astype(bool) if t.dtype == np.bool_ else _i(t) for t in indices)


def _index_put_ref(self, indices, values, accumulate=False):
    out = np.array(self, copy=True)
    idx = tuple(_i(t) for t in indices)
    if accumulate:
        np.add.at(out, idx, np.broadcast_to(values, out[idx].shape))
    else:
        out[idx] = values
    return out


def _masked_select_ref(self, mask):
    s, m = np.broadcast_arrays(self, np.asarray(mask) != 0)
    return s[m]


def _masked_scatter_ref(self, mask, source):
    s, m = np.broadcast_arrays(self, np.asarray(mask) != 0)
    out = np.array(s, copy=True)
    out[m] = np.ravel(source)[: int(m.sum())]
    return out


def _take_along_dim_ref(self, indices, dim=None):
    if dim is None:
        return np.ravel(self)[_i(indices).ravel()]
    return np.take_along_axis(self, _i(indices) % self.shape[dim], axis=dim)


def samples():
    """Full overload name -> a function returning a sample call's arguments by name."""
    return {}


def numpy_cases():
    """Full overload name -> (sample as in samples(), reference computing the result from the sample's
    arguments as float64 NumPy arrays); the sample also serves the variant tests."""
    x = lambda: h.f32((3, 4))  # noqa: E731
    xt = lambda: h.f32((4, 3), True)  # noqa: E731  (non-contiguous)
    mask = lambda: _long([[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]]).bool()  # noqa: E731
    return {
        "index_select": (lambda: {"self": xt(), "dim": 1, "index": _long([2, 0, 2])},
                         lambda self, dim, index: np.take(self, _i(index), axis=dim)),
        "gather": (lambda: {"self": x(), "dim": -1, "index": _long([[3, 0], [1, 1], [2, 0]])},
                   lambda self, dim, index: _gather_ref(self, dim, index)),
        "scatter.src": (lambda: {"self": x(), "dim": 0, "index": _long([[2, 0, 1, 2]]), "src": h.f32((2, 4))},
                        lambda self, dim, index, src: _scatter_ref(self, dim, index, src)),
        "scatter.value": (lambda: {"self": xt(), "dim": 1, "index": _long([[0, 2], [1, 1]]), "value": -2.5},
                          lambda self, dim, index, value: _scatter_ref(self, dim, index, value=value)),
        "scatter.reduce": (lambda: {"self": _ints(h, (3, 4), "sr"), "dim": 0, "index": _long([[1, 1, 0, 2], [1, 0, 0, 2]]),
                                    "src": _ints(h, (2, 4), "srs"), "reduce": "multiply"},
                           lambda self, dim, index, src, reduce: _scatter_ref(self, dim, index, src, reduce=reduce)),
        "scatter.value_reduce": (lambda: {"self": _ints(h, (3, 4), "svr"), "dim": 1, "index": _long([[0, 0], [3, 1]]),
                                          "value": 2.0, "reduce": "add"},
                                 lambda self, dim, index, value, reduce: _scatter_ref(self, dim, index, value=value,
                                                                                       reduce=reduce)),
        "scatter_add": (lambda: {"self": _ints(h, (3, 4), "sa"), "dim": 0, "index": _long([[2, 2, 0, 1], [2, 0, 0, 1]]),
                                 "src": _ints(h, (2, 4), "sas")},
                        lambda self, dim, index, src: _scatter_ref(self, dim, index, src, reduce="sum")),
        "scatter_reduce.two": (lambda: {"self": _ints(h, (3, 4), "s2"), "dim": 1,
                                        "index": _long([[0, 0, 3], [1, 2, 1], [3, 3, 3]]),
                                        "src": _ints(h, (3, 3), "s2s"), "reduce": "amax", "include_self": False},
                               lambda self, dim, index, src, reduce, include_self: _scatter_ref(
                                   self, dim, index, src, reduce=reduce, include_self=include_self)),
        "index_add": (lambda: {"self": _ints(h, (3, 4), "ia"), "dim": 0, "index": _long([2, 0, 2]),
                               "source": _ints(h, (3, 4), "ias"), "alpha": 2},
                      _index_add_ref),
        "index_copy": (lambda: {"self": x(), "dim": 1, "index": _long([3, 0]), "source": h.f32((3, 2))},
                       _index_copy_ref),
        "index_fill.int_Scalar": (lambda: {"self": xt(), "dim": -1, "index": _long([-1, 0]), "value": 1.5},
                                  _index_fill_ref),
        "index_fill.int_Tensor": (lambda: {"self": x(), "dim": 0, "index": _long([1]), "value": h.tl.tensor(-3.0)},
                                  _index_fill_ref),
        "index_put": (lambda: {"self": _ints(h, (3, 4), "ips"), "indices": (_long([0, 2, 0]), _long([1, 3, 1])),
                               "values": _ints(h, (3,), "ip"), "accumulate": True},
                      _index_put_ref),
        "_index": (lambda: {"self": h.f32((3, 4, 2)), "indices": (_long([[0, 2]]), _long([1]), _long([[1], [0]]))},
                   lambda self, indices: self[_index_tuple(indices)]),
        "masked_fill.Scalar": (lambda: {"self": xt(), "mask": _long([1, 0, 1]).bool(), "value": 7.0},
                               lambda self, mask, value: np.where(mask != 0, value, self)),
        "masked_fill.Tensor": (lambda: {"self": x(), "mask": mask(), "value": h.tl.tensor(-1.0)},
                               lambda self, mask, value: np.where(mask != 0, value, self)),
        "masked_select": (lambda: {"self": h.f32((4,)), "mask": mask()}, _masked_select_ref),
        "masked_scatter": (lambda: {"self": xt(), "mask": _long([1, 0, 1]).bool(), "source": h.f32((3, 4))},
                           _masked_scatter_ref),
        "take": (lambda: {"self": xt(), "index": _long([[0, -1], [11, 5]])},
                 lambda self, index: np.ravel(self)[_i(index)]),
        "take_along_dim": (lambda: {"self": x(), "indices": _long([[1], [3], [-1]]), "dim": 1}, _take_along_dim_ref),
        "nonzero": (lambda: {"self": _ints(h, (3, 4), "nz", lo=-1, hi=2)}, lambda self: np.argwhere(self)),
        "argwhere": (lambda: {"self": _ints(h, (2, 3), "aw", "int32", lo=0, hi=2)}, lambda self: np.argwhere(self)),
        "where": (lambda: {"condition": _ints(h, (3, 2), "wh", "float32", lo=0, hi=2)},
                  lambda condition: np.nonzero(condition)),
    }


# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]), b = tensor([True, False]). Each message was checked against PyTorch 2.13.
ERRORS = [
    ("tl.index_select(a, 0, i)", "IndexError", ["index out of range in self"]),
    ("tl.index_select(a, 0, tl.ones(2))", "RuntimeError", ["index_select(): Expected dtype int32 or int64 for index"]),
    ("tl.index_select(a, 0, a)", "IndexError", ["index_select(): Index is supposed to be a vector"]),
    ("tl.index_select(a, 0, tl.tensor([[0]]))", "IndexError", ["index_select(): Index is supposed to be a vector"]),
    ("tl.index_select(a, 2, i)", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], but got 2)"]),
    ("tl.gather(a, 1, tl.tensor([[3]]))", "RuntimeError", ["index 3 is out of bounds for dimension 1 with size 3"]),
    ("tl.gather(a, 1, tl.tensor([[-1]]))", "RuntimeError", ["index -1 is out of bounds for dimension 1 with size 3"]),
    ("tl.gather(a, 0, i)", "RuntimeError", ["Index tensor must have the same number of dimensions as input tensor"]),
    ("tl.gather(a, 0, tl.zeros(1, 4, dtype=tl.int64))", "RuntimeError",
     ["Size does not match at dimension 1 expected index [1, 4] to be no larger than self [2, 3] apart from dimension 0"]),
    ("tl.gather(a, 0, tl.zeros(1, 1, dtype=tl.int16))", "RuntimeError", ["gather(): Expected dtype int32/int64 for index"]),
    ("a.scatter(0, tl.tensor([[2]]), 1.0)", "RuntimeError", ["index 2 is out of bounds for dimension 0 with size 2"]),
    ("a.scatter(0, tl.tensor([[0]]), a.double())", "RuntimeError", ["scatter(): Expected self.dtype to be equal to src.dtype"]),
    ("a.scatter(0, tl.tensor([0]), 1.0)", "RuntimeError", ["Index tensor must have the same number of dimensions as self tensor"]),
    ("a.scatter(0, tl.zeros(1, 2, dtype=tl.int64), tl.ones(1, 1))", "RuntimeError",
     ["Expected index [1, 2] to be no larger than self [2, 3] apart from dimension 0 and to be no larger size than src [1, 1]"]),
    ("a.scatter(0, tl.tensor([[0]]), a, reduce='max')", "RuntimeError", ["reduce argument must be either add or multiply."]),
    ("a.scatter_reduce(0, tl.tensor([[0]]), a, 'foo')", "RuntimeError",
     ["reduce argument must be either sum, prod, mean, amax or amin, got foo"]),
    ("b.scatter_reduce(0, tl.tensor([0]), b, 'mean')", "NotImplementedError", ["'Bool'"]),
    ("a.scatter_add(0, tl.tensor([[0]], dtype=tl.int16), a)", "RuntimeError", ["scatter(): Expected dtype int32/int64 for index"]),
    ("a.index_add(0, tl.tensor([2]), tl.ones(1, 3))", "RuntimeError", ["index 2 is out of bounds for dimension 0 with size 2"]),
    ("a.index_add(0, i, tl.ones(1, 3))", "RuntimeError",
     ["index_add_(): Number of indices (3) should be equal to source.size(dim): (1), for dim: 0"]),
    ("a.index_add(0, tl.tensor([0]), tl.ones(1, 4))", "RuntimeError",
     ["source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [2, 3] "
      "source.shape = [1, 4]"]),
    ("a.index_add(0, tl.tensor([0]), tl.ones(1, 3, dtype=tl.float64))", "RuntimeError",
     ["index_add_(): self (Float) and source (Double) must have the same scalar type"]),
    ("a.index_add(0, tl.tensor([0.0]), tl.ones(1, 3))", "RuntimeError",
     ["index_add_(): Expected dtype int32/int64 for index but got: Float"]),
    ("a.index_copy(0, tl.tensor([-1]), tl.ones(1, 3))", "IndexError",
     ["index_copy_(): index -1 is out of bounds for dimension 0 with size 2"]),
    ("a.index_copy(0, tl.tensor([0], dtype=tl.int32), tl.ones(1, 3))", "RuntimeError",
     ["index_copy_(): Expected a long tensor for index, but got Int"]),
    ("a.index_copy(0, tl.tensor([0]), tl.ones(2, 3))", "IndexError",
     ["index_copy_(): Number of indices (1) should be equal to source.size(dim) (2)"]),
    ("a.index_copy(0, tl.tensor([0]), tl.ones(3))", "IndexError",
     ["index_copy_(): When source and destination are not scalars, their dimensionality must match. Source "
      "dimensionality (1), destination dimensionality (2)"]),
    ("a.index_fill(0, tl.tensor([2]), 1.0)", "IndexError", ["index 2 is out of bounds for dimension 0 with size 2"]),
    ("a.index_fill(0, tl.tensor([-3]), 1.0)", "IndexError", ["index -3 is out of bounds for dimension 0 with size 2"]),
    ("a.index_fill(0, tl.tensor([0], dtype=tl.int32), 1.0)", "IndexError", ["index_fill_(): Expected dtype int64 for index."]),
    ("a.index_fill(0, tl.tensor([[0]]), 1.0)", "RuntimeError", ["Index has to be a vector/scalar"]),
    ("a.index_fill(0, tl.tensor([0]), tl.ones(1))", "RuntimeError",
     ["index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."]),
    # PyTorch names the mask's dtype the C++ way here ("float", "unsigned char"), not "Float" as masked_scatter_.
    ("a.masked_fill(a, 1.0)", "RuntimeError", ["masked_fill_ only supports boolean masks, but got mask with dtype float"]),
    ("a.masked_fill(tl.ones(2, 3, dtype=tl.uint8), tl.tensor(1.0))", "RuntimeError",
     ["masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"]),
    ("a.masked_fill(tl.ones(2, 3, dtype=tl.bool), tl.ones(2))", "RuntimeError",
     ["masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."]),
    ("tl.ones(3).masked_fill_(tl.ones(2, 3, dtype=tl.bool), 1.0)", "RuntimeError",
     ["output with shape [3] doesn't match the broadcast shape [2, 3]"]),
    ("a.masked_select(a)", "RuntimeError", ["masked_select: expected BoolTensor for mask"]),
    ("a.masked_scatter(tl.ones(2, 3, dtype=tl.bool), tl.ones(5))", "RuntimeError",
     ["Number of elements of source < number of ones in mask"]),
    ("a.masked_scatter(tl.ones(2, 3, dtype=tl.bool), tl.ones(6, dtype=tl.float64))", "RuntimeError",
     ["masked_scatter: expected self and source to have same dtypes but gotFloat and Double"]),
    ("a.masked_scatter(tl.ones(2, 3, dtype=tl.uint8), tl.ones(6))", "RuntimeError",
     ["masked_scatter_ only supports boolean masks, but got mask with dtype Byte"]),
    ("tl.take(a, tl.tensor([6]))", "IndexError", ["out of range: tried to access index 6 on a tensor of 6 elements."]),
    ("tl.take(a, tl.tensor([-7]))", "IndexError", ["out of range: tried to access index -7 on a tensor of 6 elements."]),
    ("tl.take(a, tl.tensor([0], dtype=tl.int32))", "RuntimeError", ["take(): Expected a long tensor for index, but got Int"]),
    ("tl.take(tl.ones(0), tl.tensor([0]))", "IndexError", ["take(): tried to take from an empty tensor"]),
    ("tl.take_along_dim(a, tl.tensor([[0.0]]), 1)", "RuntimeError",
     ["torch.take_along_dim(): dtype of indices should be Long but got Float"]),
    ("tl.take_along_dim(a, i, 0)", "RuntimeError",
     ["torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 dimensions for "
      "input, and 1 dimensions for indices"]),
    ("tl.take_along_dim(a, tl.tensor([6]))", "RuntimeError", ["index 6 is out of bounds for dimension 0 with size 6"]),
    ("a.index_put((tl.tensor([5]),), tl.tensor(1.0))", "IndexError", ["index 5 is out of bounds for dimension 0 with size 2"]),
    ("a.index_put((tl.tensor([-3]),), tl.tensor(1.0))", "IndexError", ["index -3 is out of bounds for dimension 0 with size 2"]),
    ("a.index_put((i, i, i), tl.tensor(1.0))", "IndexError", ["too many indices for tensor of dimension 2 (got 3)"]),
    ("a.index_put((a,), tl.tensor(1.0))", "IndexError", ["tensors used as indices must be long, int, byte or bool tensors"]),
    ("a.index_put((tl.tensor([0, 1]), tl.tensor([0, 1, 2])), tl.tensor(1.0))", "IndexError",
     ["shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"]),
    ("a.index_put((tl.tensor([0]),), tl.ones(2))", "RuntimeError",
     ["shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [1, 3]"]),
    ("a.index_put((tl.tensor([0]),), tl.ones(3, dtype=tl.float64))", "RuntimeError",
     ["Index put requires the source and destination dtypes match, got Float for the destination and Double for the "
      "source."]),
    ("a.index_put((tl.tensor([True]),), tl.tensor(1.0))", "IndexError",
     ["The shape of the mask [1] at index 0 does not match the shape of the indexed tensor [2, 3] at index 0"]),
]


def _scatter_src_gradcheck_sample():
    import torchlite as tl

    return {"index": tl.tensor([[1, 0, 1, 0], [0, 1, 0, 1]]), "self": tl.zeros(2, 4), "src": tl.zeros(2, 4)}


# Samples that differ from the op's for the gradient checks, with the reason. scatter.src: an index smaller
# than src leaves src entries unused: their gradient would have index's shape, which PyTorch refuses too
# ("returned an invalid gradient"); a full index gives every src entry a place.
GRADCHECK_SAMPLES = {"scatter.src": _scatter_src_gradcheck_sample}
