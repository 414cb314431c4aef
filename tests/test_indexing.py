"""Indexing ops (index_select, gather, scatter*, index_*, masked_*, take, nonzero) and Tensor.__getitem__ /
__setitem__, against NumPy references. Values not computed by NumPy here were checked against PyTorch 2.13."""
import numpy as np
import pytest

import torchlite as tl
from torchlite.testing._samples import indexing as ci  # the NumPy references of the op database

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
NP = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
      "float16": np.float16, "float32": np.float32, "float64": np.float64}


def tl_dtype(name):
    return getattr(tl, name)


def make(data, dtype):
    """A tensor of `dtype` holding the (small, integer) values of `data`."""
    data = np.asarray(data)
    if dtype == "bfloat16":
        return tl.tensor(data.astype(np.float64).tolist(), dtype=tl.bfloat16)
    return tl.tensor(data.astype(NP[dtype]))


def f64(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def check(actual, expected, dtype=None):
    expected = np.asarray(expected, dtype=np.float64)
    if dtype == "float32":  # a float64 reference rounded once to the result dtype
        expected = expected.astype(np.float32).astype(np.float64)
    assert tuple(actual.shape) == expected.shape, (tuple(actual.shape), expected.shape)
    if dtype is not None:
        assert actual.dtype == tl_dtype(dtype)
    np.testing.assert_array_equal(f64(actual), expected)


def long(data):
    return tl.tensor(np.asarray(data, dtype=np.int64))


RNG = np.random.default_rng(1234)
BASE = RNG.integers(0, 5, size=(3, 4))  # small values: exact and in range for every dtype


def as_dtype_values(data, dtype):
    """What `data` holds once stored in dtype (bool keeps only zero / nonzero)."""
    return (np.asarray(data) != 0).astype(np.float64) if dtype == "bool" else np.asarray(data, dtype=np.float64)


# ------------------------------------------------------------------ every dtype
@pytest.mark.parametrize("dtype", DTYPES)
def test_gathers_every_dtype(dtype):
    x = make(BASE, dtype)
    ref = as_dtype_values(BASE, dtype)
    idx = long([2, 0, 2])
    check(tl.index_select(x, 0, idx), ref[[2, 0, 2]], dtype)
    check(x.index_select(-1, idx), ref[:, [2, 0, 2]], dtype)
    g = long([[3, 0], [1, 1], [0, 2]])
    check(tl.gather(x, 1, g), np.take_along_axis(ref, np.asarray(g.tolist()), 1), dtype)
    check(tl.take(x, long([[0, -1], [5, 7]])), ref.ravel()[[[0, -1], [5, 7]]], dtype)
    check(tl.take_along_dim(x, long([[1], [3], [-1]]), 1), ci._take_along_dim_ref(ref, np.array([[1], [3], [-1]]), 1),
          dtype)
    mask = make(BASE > 2, "bool")
    check(tl.masked_select(x, mask), ref[BASE > 2], dtype)
    check(tl.nonzero(x), np.argwhere(ref), "int64")
    check(tl._index(x, (long([0, 2]), long([3, 1]))), ref[[0, 2], [3, 1]], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatters_every_dtype(dtype):
    x = make(BASE, dtype)
    ref = as_dtype_values(BASE, dtype)
    src = make(np.ones((2, 4), dtype=np.int64), dtype)
    one = np.ones((2, 4))
    idx = long([[2, 0, 1, 2], [2, 2, 0, 1]])
    check(x.scatter(0, idx, src), ci._scatter_ref(ref, 0, idx.tolist(), one), dtype)
    check(x.scatter(0, idx, 1), ci._scatter_ref(ref, 0, idx.tolist(), value=1), dtype)
    expected_add = ci._scatter_ref(ref, 0, idx.tolist(), one, reduce="sum")
    if dtype == "bool":
        expected_add = expected_add != 0
    check(x.scatter_add(0, idx, src), expected_add, dtype)
    check(x.scatter(0, idx, src, reduce="add"), expected_add, dtype)
    check(x.scatter_reduce(0, idx, src, "amax"), ci._scatter_ref(ref, 0, idx.tolist(), one, reduce="amax"), dtype)
    check(x.index_add(0, long([0, 2]), src), expected_index_add(ref, dtype), dtype)
    check(x.index_copy(1, long([3, 0]), make(np.ones((3, 2)), dtype)), ci._index_copy_ref(ref, 1, [3, 0], np.ones((3, 2))), dtype)
    check(x.index_fill(1, long([-1]), 1), ci._index_fill_ref(ref, 1, [-1], 1), dtype)
    check(x.masked_fill(make(BASE > 2, "bool"), 1), np.where(BASE > 2, 1, ref), dtype)
    check(x.masked_scatter(make(BASE > 2, "bool"), make(np.ones(12), dtype)), np.where(BASE > 2, 1, ref), dtype)
    check(x.index_put((long([1, 1]),), make(np.ones(4), dtype), accumulate=True),
          expected_put(ref, dtype), dtype)


def expected_index_add(ref, dtype):
    out = ref.copy()
    out[[0, 2]] += 1
    return out != 0 if dtype == "bool" else out


def expected_put(ref, dtype):
    out = ref.copy()
    out[1] += 2
    return out != 0 if dtype == "bool" else out


# ------------------------------------------------------------------ scatter_reduce
def _reduce_ref(self, dim, index, src, reduce, include_self, integral):
    out = np.array(self, dtype=np.float64)
    groups = {}
    for pos in np.ndindex(index.shape):
        dst = list(pos)
        dst[dim] = index[pos]
        groups.setdefault(tuple(dst), [out[tuple(dst)]] if include_self else []).append(src[pos])
    for dst, vals in groups.items():
        if reduce == "mean":
            out[dst] = np.floor(np.sum(vals) / len(vals)) if integral else np.mean(vals)
        else:
            out[dst] = {"sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min}[reduce](vals)
    return out


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64", "int16"])
def test_scatter_reduce(reduce, include_self, dtype):
    rng = np.random.default_rng(hash((reduce, include_self, dtype)) % 2**32)
    self = rng.integers(-5, 6, size=(4, 5))
    index = rng.integers(0, 4, size=(3, 5))
    src = rng.integers(-5, 6, size=(3, 5))
    r = tl.scatter_reduce(make(self, dtype), 0, long(index), make(src, dtype), reduce, include_self=include_self)
    check(r, _reduce_ref(self, 0, index, src, reduce, include_self, dtype != "float32"), dtype)
    # in place, along the last dim of a transposed (non-contiguous) self
    t2 = make(self.T, dtype).t()
    assert not t2.is_contiguous()
    t2.scatter_reduce_(1, long(index.T[:4, :3]), make(src.T[:4, :3], dtype), reduce, include_self=include_self)
    check(t2, _reduce_ref(self, 1, index.T[:4, :3], src.T[:4, :3], reduce, include_self, dtype != "float32"), dtype)


def test_scatter_reduce_special_values():
    # Checked with PyTorch: NaN propagates through amax, integer mean floors, 'max' / 'min' are amax / amin.
    r = tl.scatter_reduce(tl.tensor([10.0, 2, 3]), 0, long([0, 0]), tl.tensor([float("nan"), 5.0]), "amax")
    assert np.isnan(r.tolist()[0]) and r.tolist()[1:] == [2.0, 3.0]
    assert tl.scatter_reduce(tl.tensor([-1, 2, 3]), 0, long([0, 0]), tl.tensor([-4, -5]), "mean").tolist() == [-4, 2, 3]
    assert tl.scatter_reduce(tl.tensor([1, 2, 3]), 0, long([0, 0]), tl.tensor([4, 5]), "mean",
                             include_self=False).tolist() == [4, 2, 3]
    x = tl.tensor([[0.0, 1, 2], [3, 4, 5]])
    assert tl.scatter_reduce(x, 0, long([[1, 0]]), tl.full((1, 2), 4.0), "max").tolist() == [[0, 4, 2], [4, 4, 5]]
    assert tl.scatter_reduce(x, 0, long([[1, 0]]), tl.full((1, 2), 4.0), "min").tolist() == [[0, 1, 2], [3, 4, 5]]
    h = tl.scatter_reduce(tl.tensor([1.0, 2], dtype=tl.float16), 0, long([0, 0, 0]),
                          tl.tensor([0.1, 0.2, 0.3], dtype=tl.float16), "mean")
    assert h.tolist() == [0.39990234375, 2.0]


def test_scatter_legacy_reduce():
    x = tl.tensor([[0.0, 1, 2], [3, 4, 5], [6, 7, 8]])
    assert x.scatter(0, long([[1, 1]]), tl.full((1, 2), 2.0), reduce="multiply").tolist() == \
        [[0, 1, 2], [6, 8, 5], [6, 7, 8]]
    assert x.scatter(0, long([[1], [1]]), 2.0, reduce="add").tolist() == [[0, 1, 2], [7, 4, 5], [6, 7, 8]]
    y = x.clone()
    assert y.scatter_(0, long([[1, 1]]), 2.0, reduce="multiply") is y
    assert y.tolist() == [[0, 1, 2], [6, 8, 5], [6, 7, 8]]


# ------------------------------------------------------------------ shapes, 0-dim, empty, layouts
def test_zero_dim_and_empty():
    s = tl.tensor(5.0)
    r = tl.index_select(s, 0, long([0]))
    assert r.shape == () and r.item() == 5.0
    assert tl.index_select(s, -1, tl.tensor(0)).item() == 5.0
    assert tl.gather(s, 0, long([0, 0])).tolist() == [5.0, 5.0]
    assert tl.gather(tl.tensor([5.0, 6.0]), 0, tl.tensor(1)).item() == 6.0
    assert tl.scatter(s, 0, tl.tensor(0), tl.tensor(2.0)).item() == 2.0
    assert tl.index_add(s, 0, long([0]), tl.tensor(2.0)).item() == 7.0
    assert tl.index_copy(s, 0, long([0]), tl.tensor(2.0)).item() == 2.0
    assert tl.index_fill(s, 0, long([0]), 2.0).item() == 2.0
    assert tl.masked_select(s, tl.tensor(True)).tolist() == [5.0]
    assert tuple(tl.nonzero(s).shape) == (1, 0) and tuple(tl.nonzero(tl.tensor(0.0)).shape) == (0, 0)
    (w,) = tl.where(tl.tensor(3.0))
    assert w.tolist() == [0]
    assert [t.tolist() for t in tl.nonzero(s, as_tuple=True)] == [[0]]
    x = tl.ones(3, 3)
    assert tuple(tl.index_select(x, 1, long([])).shape) == (3, 0)
    assert tuple(tl.nonzero(tl.zeros(0, 3)).shape) == (0, 2)
    assert [t.tolist() for t in tl.nonzero(tl.zeros(2, 3), as_tuple=True)] == [[], []]
    assert tl.scatter(x, 0, tl.zeros(0, dtype=tl.int64), 5.0).tolist() == x.tolist()
    assert tuple(tl.gather(x, 0, tl.zeros(0, 2)).shape) == (0, 2)  # an empty index may have any dtype
    assert tl.take(tl.zeros(0), long([])).tolist() == []
    assert tl.masked_select(x, x > 5).tolist() == []
    assert tl.index_add(tl.tensor([1.0, 2]), 0, tl.tensor(1), tl.tensor([5.0])).tolist() == [1.0, 7.0]
    with pytest.raises(RuntimeError, match=r"Got self.shape = \[2\] source.shape = \[\]"):
        tl.index_add(tl.tensor([1.0, 2]), 0, tl.tensor(1), tl.tensor(5.0))


def test_broadcasting_and_in_place_rules():
    x = tl.tensor([[0.0, 1, 2], [3, 4, 5], [6, 7, 8]])
    m = tl.tensor([True, False, True])
    check(x.masked_fill(m, 1.0), np.where([True, False, True], 1.0, f64(x)))
    r = x.masked_fill(tl.ones(2, 3, 3, dtype=tl.bool), 1.0)
    assert tuple(r.shape) == (2, 3, 3)
    r = tl.masked_scatter(tl.zeros(3), tl.ones(2, 3, dtype=tl.bool), tl.tensor([0.0, 1, 2, 3, 4, 5]))
    assert r.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert tl.masked_select(tl.ones(3), tl.ones(2, 3, dtype=tl.bool)).tolist() == [1.0] * 6
    # values are cast to self's dtype, as PyTorch does
    assert tl.masked_fill(x.long(), x > 4, 1.7).tolist() == [[0, 1, 2], [3, 4, 1], [1, 1, 1]]
    assert tl.masked_fill(x, x > 4, tl.tensor(2)).dtype == tl.float32
    assert tl.index_fill(x.long(), 0, long([1]), 1.7).tolist()[1] == [1, 1, 1]
    assert tl.scatter(x.long(), 0, long([[1]]), 1.7).tolist()[1] == [1, 4, 5]
    assert tl.masked_fill(tl.zeros(2, dtype=tl.bool), tl.tensor([True, False]), 2.5).tolist() == [True, False]
    # index_add's alpha, in the op-math type (float for float16), each sum rounded to the dtype
    assert tl.index_add(tl.tensor([5.0, 6.0], dtype=tl.float16), 0, long([1, 1]),
                        tl.tensor([0.1, 0.1], dtype=tl.float16), alpha=3).tolist() == [5.0, 6.6015625]
    assert tl.index_add(tl.tensor([5, 6], dtype=tl.uint8), 0, long([1]), tl.tensor([1], dtype=tl.uint8),
                        alpha=-1).tolist() == [5, 5]
    # scatter with duplicates: the last write wins; an index larger than self along dim is fine
    assert tl.scatter(x, 1, long([[0, 1, 2, 0]]), tl.tensor([[3.0, 1, 2, 9]])).tolist()[0] == [9, 1, 2]


def test_int32_indices_where_pytorch_takes_them():
    x = tl.tensor([[0.0, 1, 2], [3, 4, 5], [6, 7, 8]])
    i32 = tl.tensor([1], dtype=tl.int32)
    assert tl.index_select(x, 0, i32).tolist() == [[3, 4, 5]]
    assert tl.gather(x, 0, tl.tensor([[1]], dtype=tl.int32)).tolist() == [[3]]
    assert tl.scatter(x, 0, tl.tensor([[1]], dtype=tl.int32), 1.0).tolist()[1] == [1, 4, 5]
    assert tl.index_add(x, 0, i32, tl.ones(1, 3)).tolist()[1] == [4, 5, 6]
    assert tl.index_put(x, (i32,), tl.tensor(1.0)).tolist()[1] == [1, 1, 1]
    assert tl.take_along_dim(x, i32).tolist() == [1.0]  # dim=None gathers, which takes int32
    with pytest.raises(RuntimeError, match="dtype of indices should be Long but got Int"):
        tl.take_along_dim(x, tl.tensor([[1]], dtype=tl.int32), 1)


def test_out_variants_of_other_shapes_and_dtypes():
    x = tl.tensor([[0.0, 1, 2], [3, 4, 5]])
    out = tl.empty(5)  # resized
    r = tl.index_select(x, 1, long([2, 0]), out=out)
    assert r is out and out.tolist() == [[2, 0], [5, 3]]
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        tl.index_select(x, 1, long([2, 0]), out=tl.empty(5, dtype=tl.float64))  # as PyTorch
    out = tl.empty((2, 2)).t()  # non-contiguous out of the right shape
    tl.gather(x, 1, long([[1, 1], [0, 2]]), out=out)
    assert out.tolist() == [[1, 1], [3, 5]]
    out = tl.empty(0)
    tl.masked_select(x, x > 2, out=out)
    assert out.tolist() == [3, 4, 5]
    out = tl.empty(0, dtype=tl.int64)
    tl.nonzero(x, out=out)
    assert out.tolist() == [[0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    with pytest.raises(RuntimeError, match="nonzero does not support the out kwarg when as_tuple is True"):
        tl.nonzero(x, as_tuple=True, out=out)
    out = tl.empty(3)
    tl.scatter_add(x, 0, long([[1, 1, 1]]), x, out=out)
    assert out.tolist() == [[0, 1, 2], [3, 5, 7]]
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float"):
        tl.scatter_add(x, 0, long([[1, 1, 1]]), x, out=tl.empty(3, dtype=tl.float64))


def test_inplace_variants_write_through_views():
    base = tl.zeros(3, 4)
    v = base.t()  # a non-contiguous view
    v.index_fill_(0, long([1]), 2.0)
    v.masked_fill_(tl.tensor([True, False, False]), 5.0)
    v.scatter_add_(1, long([[2], [2], [2], [2]]), tl.ones(4, 1))
    v.index_put_((long([0, 0]), long([1, 1])), tl.tensor(3.0), accumulate=True)
    expected = np.zeros((4, 3))
    expected[1] = 2
    expected[:, 0] = 5
    expected[:, 2] += 1
    expected[0, 1] += 6
    np.testing.assert_array_equal(f64(base), expected.T)
    assert base._version > 0


def test_index_put_semantics():
    x = tl.tensor([[0.0, 1, 2], [3, 4, 5], [6, 7, 8]])
    ref = f64(x)
    # bool masks select their nonzero positions; values broadcast to the indexing result
    e = ref.copy()
    e[ref > 4] = [-1, -2, -3, -4]
    check(tl.index_put(x, (x > 4,), tl.tensor([-1.0, -2, -3, -4])), e)
    # None keeps a dim (C++ callers use it for slices; accepted from Python too)
    e = ref.copy()
    e[:, [0, 2]] = -1
    check(tl.index_put(x, (None, long([0, 2])), tl.tensor(-1.0)), e)
    # negative indices wrap; accumulate adds duplicates, in order
    e = ref.copy()
    np.add.at(e, ([-1, -1, 0],), 1.0)
    check(tl.index_put(x, (long([-1, -1, 0]),), tl.tensor(1.0), accumulate=True), e)
    # a 0-dim bool index adds a dim of size 1 (True) or 0 (False)
    assert tl.index_put(tl.zeros(2, 3), (tl.tensor(True),), tl.tensor(-1.0)).sum().item() == -6.0
    assert tl.index_put(tl.zeros(2, 3), (tl.tensor(False),), tl.tensor(-1.0)).sum().item() == 0.0
    y = x.clone()
    assert y.index_put_((long([0]), long([0])), tl.tensor(9.0)) is y and y.tolist()[0][0] == 9.0


def test_scatters_are_thread_count_independent():
    rng = np.random.default_rng(7)
    self = tl.tensor(rng.standard_normal((64, 1024)).astype(np.float32))
    index = long(rng.integers(0, 64, size=(64, 1024)))
    src = tl.tensor(rng.standard_normal((64, 1024)).astype(np.float32))
    rows = long(rng.integers(0, 1024, size=64))
    saved = tl.get_num_threads()
    try:
        results = []
        for threads in (1, 2, 4):
            tl.set_num_threads(threads)
            results.append((tl.scatter_add(self, 0, index, src), tl.scatter_add(self, 1, index, src),
                            tl.index_add(self.t(), 0, rows, src.t().narrow(0, 0, 64)),
                            tl.scatter_reduce(self, 1, index, src, "mean")))
        for r in results[1:]:
            for a, b in zip(r, results[0]):
                np.testing.assert_array_equal(a.numpy(), b.numpy())
    finally:
        tl.set_num_threads(saved)


# ------------------------------------------------------------------ Tensor.__getitem__ / __setitem__
SHAPE = (3, 4, 5)


def _random_key(rng):
    """An index expression where PyTorch and NumPy agree: ints are not mixed with advanced indices (PyTorch
    applies an int as a view first, NumPy broadcasts it with the arrays: tested apart below)."""
    nd = len(SHAPE)
    advanced = rng.random() < 0.5
    n_items = int(rng.integers(1, nd + 1))
    dims = list(range(nd))
    items, np_items, used = [], [], 0
    ellipsis_used = False
    while used < n_items:
        d = dims[used]
        size = SHAPE[d]
        r = rng.random()
        if r < 0.12:
            items.append(None)
            np_items.append(None)
            continue
        if r < 0.2 and not ellipsis_used:
            ellipsis_used = True
            items.append(Ellipsis)
            np_items.append(Ellipsis)
            used = nd - (n_items - used) + 1 if n_items - used <= nd - used else used + 1
            dims = list(range(nd))
            continue
        kind = rng.integers(0, 4) if advanced else rng.integers(0, 2)
        if kind == 0:
            start = None if rng.random() < 0.3 else int(rng.integers(-size - 2, size + 2))
            stop = None if rng.random() < 0.3 else int(rng.integers(-size - 2, size + 2))
            step = None if rng.random() < 0.4 else int(rng.integers(1, 4))
            items.append(slice(start, stop, step))
            np_items.append(slice(start, stop, step))
        elif kind == 1 and not advanced:
            i = int(rng.integers(-size, size))
            items.append(i)
            np_items.append(i)
        elif kind == 1 or kind == 2:
            shape = (int(rng.integers(1, 4)),) if rng.random() < 0.6 else (2, int(rng.integers(1, 3)))
            idx = rng.integers(-size, size, size=shape)
            items.append(idx.tolist() if idx.ndim == 1 and rng.random() < 0.5 else long(idx))
            np_items.append(idx)
        else:
            mask = rng.random(size) < 0.5
            items.append(tl.tensor(mask) if rng.random() < 0.7 else mask.tolist())
            np_items.append(mask)
        used += 1
    return tuple(items), tuple(np_items)


KEYS = [_random_key(np.random.default_rng(seed)) for seed in range(600)]


def _broadcastable(np_key):
    try:
        np.arange(60).reshape(SHAPE)[np_key]
        return True
    except IndexError:
        return False


KEYS = [k for k in KEYS if _broadcastable(k[1])]


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_getitem_matches_numpy(layout):
    a = np.arange(60, dtype=np.float32).reshape(SHAPE)
    x = tl.tensor(a)
    if layout == "transposed":  # the same values, non-contiguous
        x = tl.tensor(np.ascontiguousarray(a.transpose(2, 1, 0))).permute(2, 1, 0)
        assert not x.is_contiguous()
    assert len(KEYS) > 400
    for key, np_key in KEYS:
        expected = a[np_key]
        r = x[key]
        assert tuple(r.shape) == expected.shape, (key, tuple(r.shape), expected.shape)
        np.testing.assert_array_equal(r.numpy(), expected, err_msg=repr(key))
        basic = all(k is None or k is Ellipsis or isinstance(k, (int, slice)) for k in key)
        if basic:  # a view: shares x's storage
            assert r._base is (x if x._base is None else x._base), key
        else:
            assert r._base is None, key


def test_setitem_matches_numpy():
    rng = np.random.default_rng(5)
    for key, np_key in KEYS:
        a = np.arange(60, dtype=np.float32).reshape(SHAPE)
        x = tl.tensor(a)
        v0 = x._version
        x[key] = -1.0
        a[np_key] = -1.0
        np.testing.assert_array_equal(x.numpy(), a, err_msg=repr(key))
        assert x._version > v0
        # a tensor value of the result's shape, where no position is written twice (the order of duplicate
        # writes is not specified)
        positions = np.arange(60).reshape(SHAPE)[np_key]
        if positions.size == len(np.unique(positions)):
            value = rng.integers(-9, 9, size=positions.shape).astype(np.float32)
            x[key] = tl.tensor(value)
            a[np_key] = value
            np.testing.assert_array_equal(x.numpy(), a, err_msg=repr(key))


def test_indexing_semantics_checked_with_pytorch():
    a = np.arange(24).reshape(2, 3, 4)
    x = tl.tensor(a)
    assert x[[0.5]].shape == (1, 3, 4)  # a float list is read as int64
    assert x[[]].shape == (0, 3, 4)
    r = x[[[0, 1], [1, 0]]]  # a nested list is a tuple of indices (PyTorch, not NumPy)
    assert r.shape == (2, 4) and r.tolist() == a[[0, 1], [1, 0]].tolist()
    r = x[[0, slice(None)]]
    assert r.shape == (3, 4) and r._base is x
    assert x[True].shape == (1, 2, 3, 4) and x[False].shape == (0, 2, 3, 4)
    assert x[None, True, 1].shape == (1, 1, 3, 4)
    assert x[tl.tensor(True)].shape == (1, 2, 3, 4)
    assert x[..., 0, ...].shape == (2, 3)
    s = tl.tensor(5.0)
    assert s[...].shape == () and s[...]._base is s and s[()].shape == () and s[None].shape == (1,)
    # ints are views applied before the advanced indices: x[0, :, [0, 1]] is (3, 2) (NumPy gives (2, 3))
    r = x[0, :, [0, 1]]
    assert r.shape == (3, 2) and r.tolist() == a[0][:, [0, 1]].tolist()
    m = np.ones((2, 3), dtype=bool)
    m[0, 1] = False
    assert x[tl.tensor(m), 0].tolist() == [0, 8, 12, 16, 20]
    assert x[np.int64(1)]._base is x and x[tl.tensor(1)]._base is x
    assert x[np.array([1, 0])].tolist() == a[[1, 0]].tolist()
    assert x[(0, 1), ].shape == (2, 3, 4)
    assert x[tl.tensor([1, 0], dtype=tl.int32), 1].tolist() == a[[1, 0], 1].tolist()
    # setitem: leading size-1 dims of the value are dropped, values cast to x's dtype
    y = x.clone()
    y[0] = tl.ones(1, 1, 3, 4, dtype=tl.int64)
    assert y[0].tolist() == [[1] * 4] * 3
    y[[0, 1]] = tl.ones(1, 2, 3, 4, dtype=tl.int64) * 2
    assert y.sum().item() == 48
    y[0] = 2.7
    assert y[0, 0].tolist() == [2, 2, 2, 2]
    y[0] = tl.tensor([1.5, 2.5, 3.5, 4.5])
    assert y[0].tolist() == [[1, 2, 3, 4]] * 3
    y[y > 2] = 0
    assert int(y.max().item() if hasattr(y, "max") else max(y.numpy().ravel())) <= 2
    f = tl.zeros(2, 3)
    f[f == 0] = tl.tensor(1.0, dtype=tl.float64)
    assert f.tolist() == [[1.0] * 3] * 2
    # writes through a basic index reach the base; through a view of a view too
    base = tl.zeros(3, 4)
    v = base[1:]
    v[:, 1] = 5.0
    v[0][2] = 7.0
    assert base.tolist() == [[0, 0, 0, 0], [0, 5, 7, 0], [0, 5, 0, 0]]
    assert v._base is base


@pytest.mark.parametrize("code,exc,message", [
    ("x[5]", IndexError, "index 5 is out of bounds for dimension 0 with size 2"),
    ("x[-3]", IndexError, "index -3 is out of bounds for dimension 0 with size 2"),
    ("x[0, 7]", IndexError, "index 7 is out of bounds for dimension 1 with size 3"),
    ("x[tl.tensor(5)]", IndexError, "index 5 is out of bounds for dimension 0 with size 2"),
    ("x[[0, 2]]", IndexError, "index 2 is out of bounds for dimension 0 with size 2"),
    ("x[0, 0, 0, 0]", IndexError, "too many indices for tensor of dimension 3"),
    ("tl.tensor(5.0)[0]", IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python"),
    ("x[::0]", ValueError, "slice step cannot be zero"),
    ("x[::-1]", ValueError, "step must be greater than zero"),
    ("x[1.5]", IndexError, "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                           "valid indices (got float)"),
    ("x[2**70]", ValueError, "Overflow when unpacking long long"),
    ("x[tl.tensor([0.5])]", IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    ("x[tl.tensor([True, False, True])]", IndexError, "The shape of the mask [3] at index 0 does not match"),
    ("x[[0, 1], [0, 1, 2]]", IndexError, "shape mismatch: indexing tensors could not be broadcast together with "
                                         "shapes [2], [3]"),
    ("x.__setitem__(0, [1, 2])", TypeError, "can't assign a list to a torchlite.LongTensor"),
    ("x.__setitem__([0, 1], tl.ones(5, dtype=tl.int64))", RuntimeError,
     "shape mismatch: value tensor of shape [5] cannot be broadcast to indexing result of shape [2, 3, 4]"),
])
def test_indexing_errors(code, exc, message):
    x = tl.tensor(np.arange(24).reshape(2, 3, 4))
    with pytest.raises(exc) as info:
        eval(code, {"x": x, "tl": tl})
    assert message in str(info.value)
