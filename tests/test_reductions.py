"""Reductions beyond the schema-driven checks: NumPy float64 references for every dtype class and layout
(non-contiguous, negative and multiple dims, keepdim, 0-dim, empty), NaN propagation, named tuples,
out= with several returns, results independent of the thread count. Literal values were checked against
PyTorch 2.13."""
import math
import pickle

import numpy as np
import pytest

import torchlite as tl

NAN, INF = float("nan"), float("inf")

NP = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
      "int8": np.int8, "int16": np.int16, "bool": np.bool_}
TOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}


def make(shape, dtype, seed=0, noncontiguous=False):
    rng = np.random.default_rng(seed)
    full = shape[::-1] if noncontiguous else shape
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        data = rng.uniform(-2, 2, size=full)
    elif dtype == "bool":
        data = rng.integers(0, 2, size=full).astype(bool)
    else:
        data = rng.integers(0 if dtype == "uint8" else -4, 5, size=full)
    if dtype in ("float16", "bfloat16"):
        t = tl.tensor(data.tolist(), dtype=getattr(tl, dtype))
    else:
        t = tl.tensor(data.astype(NP[dtype]))
    if noncontiguous:
        t = t.permute(*reversed(range(len(shape))))
        assert not t.is_contiguous()
    return t


def f64(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def close(actual, expected, dtype):
    expected = np.asarray(expected, dtype=np.float64)
    assert tuple(actual.shape) == expected.shape, (tuple(actual.shape), expected.shape)
    tol = TOL.get(dtype, 0)
    np.testing.assert_allclose(f64(actual), expected, rtol=tol, atol=tol, equal_nan=True)


FLOATS = ["float16", "bfloat16", "float32", "float64"]
DIMS = [None, 0, -1, (0, 2), (-1, 1, 0)]
LAYOUTS = [False, True]


def np_axis(dim):
    return dim if dim is None or isinstance(dim, int) else tuple(dim)


# ------------------------------------------------------------------------------------------ floating reductions
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("noncontig", LAYOUTS, ids=["contiguous", "noncontiguous"])
def test_mean_var_std_norm_logsumexp(dtype, dim, noncontig):
    x = make((3, 4, 5), dtype, seed=1, noncontiguous=noncontig)
    r = f64(x)
    ax = np_axis(dim)
    kd = dim == 0
    close(tl.mean(x, dim, keepdim=kd), np.mean(r, axis=ax, keepdims=kd), dtype)
    close(x.var(dim, keepdim=kd), np.var(r, axis=ax, ddof=1, keepdims=kd), dtype)
    close(tl.std(x, dim, correction=0, keepdim=kd), np.std(r, axis=ax, keepdims=kd), dtype)
    v, m = tl.var_mean(x, dim, correction=2)
    n = r.size if dim is None else r.size // np.mean(r, axis=ax).size
    close(v, np.sum((r - np.mean(r, axis=ax, keepdims=True)) ** 2, axis=ax) / (n - 2), dtype)
    close(m, np.mean(r, axis=ax), dtype)
    s, m = tl.std_mean(x, dim, False)
    close(s, np.std(r, axis=ax), dtype)
    for p in (2, 1, 3, 0.5, INF, -INF, 0, -1):
        ref = np.abs(r)
        if p == INF:
            e = np.max(ref, axis=ax)
        elif p == -INF:
            e = np.min(ref, axis=ax)
        elif p == 0:
            e = np.sum(ref != 0, axis=ax)
        else:
            e = np.sum(ref ** p, axis=ax) ** (1 / p)
        close(tl.norm(x, p, dim), e, dtype)
    lse_dim = dim if dim is not None else (0, 1, 2)
    e = np.log(np.sum(np.exp(r), axis=np_axis(lse_dim), keepdims=kd))
    close(tl.logsumexp(x, lse_dim, kd), e, dtype)


@pytest.mark.parametrize("dtype", FLOATS + ["int32", "uint8", "bool", "int64"])
def test_prod_nansum_sum_dtypes(dtype):
    x = make((3, 4), dtype, seed=2)
    r = f64(x)
    int_like = dtype in ("int32", "uint8", "bool", "int64")
    out_dtype = "int64" if int_like else dtype
    p = tl.prod(x)
    assert str(p.dtype) == f"torchlite.{out_dtype}"
    close(p, np.prod(r), out_dtype)
    close(tl.prod(x, 1, keepdim=True), np.prod(r, axis=1, keepdims=True), out_dtype)
    close(x.prod(-2), np.prod(r, axis=0), out_dtype)
    ns = tl.nansum(x, 0)
    assert str(ns.dtype) == f"torchlite.{out_dtype}"
    close(ns, np.sum(r, axis=0), out_dtype)
    close(tl.prod(x, 0, dtype=tl.float64), np.prod(r, axis=0), "float64")


def test_prod_values_checked_against_torch():
    assert tl.prod(tl.tensor([[2, 3], [4, 5]], dtype=tl.int8), 1).tolist() == [6, 20]
    assert tl.prod(tl.tensor([True, True])).item() == 1 and tl.prod(tl.tensor([True, True])).dtype == tl.int64
    assert tl.prod(tl.empty(0, 3), 0).tolist() == [1.0, 1.0, 1.0]
    assert tl.prod(tl.tensor(3)).item() == 3
    assert tl.prod(tl.ones(2, 3), 0, dtype=tl.int32).dtype == tl.int32


def test_mean_dtypes():
    i = tl.tensor([[1, 5, 3], [4, 2, 6]])
    assert tl.mean(i, dtype=tl.float32).item() == 3.5
    m = tl.mean(tl.tensor([1.0, 2.0], dtype=tl.bfloat16))
    assert m.dtype == tl.bfloat16 and m.item() == 1.5
    assert tl.mean(tl.ones(2, 3), 0, out=tl.empty(0, dtype=tl.float64)).dtype == tl.float64
    with pytest.raises(RuntimeError, match="Input dtype must be either a floating point or complex dtype. Got: Bool"):
        tl.mean(tl.tensor([True]))
    assert tl.mean(tl.tensor(4.0), 0).item() == 4.0


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
def test_mean_of_an_integral_input_is_refused_even_with_a_floating_out(dtype):
    x = tl.tensor([[1, 0, 1], [0, 1, 1]], dtype=getattr(tl, dtype))
    name = {"bool": "Bool", "uint8": "Byte", "int32": "Int", "int64": "Long"}[dtype]
    message = f"mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {name}"
    for out in (tl.empty(0), tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=x.dtype)):
        with pytest.raises(RuntimeError) as e:
            tl.mean(x, 0, out=out)
        assert str(e.value) == message  # the schema's check, not "mean: mean(): ..."
    with pytest.raises(RuntimeError, match="Optional dtype must be either a floating point or complex dtype. Got: Long"):
        tl.mean(tl.ones(2), dtype=tl.int64)
    # dtype= makes it legal; out= must then have that dtype.
    assert tl.mean(x, 0, dtype=tl.float64, out=tl.empty(0, dtype=tl.float64)).tolist() == [0.5, 0.5, 1.0]
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
        tl.mean(x, 0, dtype=tl.float64, out=tl.empty(0))
    # A floating input into an integral out=: the float quotient cannot be cast into it.
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        tl.mean(tl.ones(2, 3), 0, out=tl.empty(0, dtype=tl.int64))


def test_sum_and_prod_compute_in_out_dtype():
    x = tl.tensor([[1.5, 2.5], [0.7, -0.6]])
    r = x.numpy()
    o = tl.empty(0, dtype=tl.int64)
    assert tl.sum(x, 0, out=o) is o and o.tolist() == r.astype(np.int64).sum(0).tolist()  # each element cast first
    assert tl.prod(x, 0, out=o).tolist() == r.astype(np.int64).prod(0).tolist()
    b = tl.empty(0, dtype=tl.bool)
    assert tl.sum(tl.tensor([[1.0, 0.0], [0.0, 0.0]]), 0, out=b).tolist() == [True, False]
    # all/any write bool or uint8 whatever the input, and nothing else.
    assert tl.all(tl.tensor([[1, 0], [3, 4]], dtype=tl.uint8), 0, out=b).tolist() == [True, False]
    with pytest.raises(RuntimeError, match="all only supports bool tensor for result, got: Float"):
        tl.all(x, 0, out=tl.empty(0))


def test_nansum_values():
    x = tl.tensor([[1.0, NAN], [NAN, NAN]])
    assert tl.nansum(x, 1).tolist() == [1.0, 0.0]
    assert tl.nansum(x).item() == 1.0
    assert tl.nansum(tl.tensor([True, False, True])).tolist() == 2


def test_var_std_values_checked_against_torch():
    assert tl.std(tl.tensor([1.0, 2.0, 3.0, 4.0]), correction=0).item() == pytest.approx(1.1180340051651)
    v = tl.var(tl.tensor([[1.0, 2.0], [3.0, 5.0]]), (0, 1), keepdim=True)
    assert tuple(v.shape) == (1, 1) and v.item() == pytest.approx(2.9166667461395)
    assert tl.var(tl.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]), 1, False, True).flatten().tolist() == \
        pytest.approx([2.6666667461395, 2.6666667461395])
    assert tl.var(tl.ones(2, 3), True).item() == 0.0  # the `unbiased` overload
    assert math.isnan(tl.var(tl.tensor(5.0)).item())  # one element, correction 1
    assert tl.var(tl.tensor(5.0), 0, correction=0).item() == 0.0
    assert all(math.isnan(v) for v in tl.var(tl.empty(0, 3), 0).tolist())
    assert tl.var(tl.tensor([1.0, 2.0, 4.0]), correction=0.5).item() == pytest.approx(1.5555555555 * 3 / 2.5)
    v, m = tl.var_mean(tl.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]), correction=0)
    assert type(v) is tl.Tensor and v.item() == pytest.approx(2.9166667461395) and m.item() == 3.5
    assert type(tl.std_mean(tl.ones(2), 0)) is tuple  # unnamed returns: a plain tuple, as PyTorch


# ------------------------------------------------------------------------------------------ max / min family
ALL_DTYPES = FLOATS + ["int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("noncontig", LAYOUTS, ids=["contiguous", "noncontiguous"])
def test_extremes_match_numpy(dtype, noncontig):
    x = make((3, 4, 5), dtype, seed=3, noncontiguous=noncontig)
    r = f64(x)
    assert tl.max(x).item() == np.max(r) and tl.min(x).item() == np.min(r)
    assert tl.max(x).dtype == x.dtype
    for dim in (0, -1, (0, 2)):
        close(tl.amax(x, dim), np.max(r, axis=np_axis(dim)), dtype)
        close(x.amin(dim, True), np.min(r, axis=np_axis(dim), keepdims=True), dtype)
    for dim in (0, 1, -1):
        values, indices = tl.max(x, dim)
        close(values, np.max(r, axis=dim), dtype)
        assert values.dtype == x.dtype and indices.dtype == tl.int64
        # The index of the first maximum.
        np.testing.assert_array_equal(f64(indices), np.argmax(r, axis=dim))
        mn = x.min(dim, keepdim=True)
        np.testing.assert_array_equal(f64(mn.indices), np.expand_dims(np.argmin(r, axis=dim), dim))
        lo, hi = tl.aminmax(x, dim=dim)
        close(lo, np.min(r, axis=dim), dtype)
        close(hi, np.max(r, axis=dim), dtype)
        if dtype != "bool":
            np.testing.assert_array_equal(f64(tl.argmax(x, dim)), np.argmax(r, axis=dim))
            np.testing.assert_array_equal(f64(x.argmin(dim)), np.argmin(r, axis=dim))
    if dtype != "bool":
        assert tl.argmax(x).item() == np.argmax(r) and tl.argmin(x).item() == np.argmin(r)


def test_nan_propagation_checked_against_torch():
    x = tl.tensor([[1.0, NAN], [2.0, 1.0]])
    r = tl.max(x, 1)
    v = r.values.tolist()
    assert math.isnan(v[0]) and v[1] == 2.0 and r.indices.tolist() == [1, 0]
    r = tl.min(x, 0)
    v = r.values.tolist()
    assert v[0] == 1.0 and math.isnan(v[1]) and r.indices.tolist() == [0, 0]
    assert math.isnan(tl.max(x).item()) and math.isnan(tl.amin(x).item())
    assert tl.argmax(tl.tensor([1.0, NAN, NAN])).item() == 1
    mm = tl.aminmax(tl.tensor([1.0, NAN, 0.0]))
    assert math.isnan(mm.min.item()) and math.isnan(mm.max.item())
    assert math.isnan(tl.norm(tl.tensor([1.0, NAN]), INF).item())


def test_ties_and_shapes_checked_against_torch():
    assert tl.argmax(tl.tensor([3.0, 3.0, 1.0])).item() == 0
    assert tl.argmin(tl.tensor([[3, 1, 1], [0, 0, 2]]), 1).tolist() == [1, 0]
    assert tl.max(tl.tensor([[2.0, 2.0, 1.0]]), 1).indices.tolist() == [0]
    a = tl.argmax(tl.tensor([[1, 3], [4, 2]]), keepdim=True)
    assert a.tolist() == [[2]]
    r = tl.max(tl.tensor([[1, 2], [3, 4]], dtype=tl.int16), 0, True)
    assert r.values.tolist() == [[3, 4]] and r.values.dtype == tl.int16 and r.indices.tolist() == [[1, 1]]
    assert tl.amax(tl.tensor(5.0), 0).item() == 5.0 and tl.argmax(tl.tensor(2.0), 0, True).item() == 0
    mm = tl.aminmax(tl.tensor(3.0), dim=0, keepdim=True)
    assert mm.min.dim() == 0 and mm.max.item() == 3.0
    e = tl.max(tl.empty(0, 3), 1)
    assert tuple(e.values.shape) == (0,) and e.indices.dtype == tl.int64
    assert tuple(tl.amax(tl.empty(0, 3), 1).shape) == (0,)
    assert tl.amax(tl.ones(2, 3), dim=None).item() == 1.0


def test_max_of_two_tensors_is_maximum():
    x = tl.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    y = tl.tensor([1, 2, 9])
    assert tl.max(x, y).tolist() == [[1.0, 5.0, 9.0], [4.0, 2.0, 9.0]]
    assert x.min(other=y).tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 6.0]]
    assert math.isnan(tl.max(tl.tensor([NAN]), tl.tensor([1.0])).item())
    with pytest.raises(TypeError, match="max"):
        tl.max(x, 1.5)  # a number is not `other` (PyTorch: TypeError)
    with pytest.raises(TypeError, match="max"):
        tl.max(x, dim=(0, 1))


# ------------------------------------------------------------------------------------------ named tuples
def test_named_tuple_type_and_repr():
    x = tl.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    r = tl.max(x, 1)
    assert type(r) is tl.return_types.max and isinstance(r, tuple) and len(r) == 2
    assert type(r).__module__ == "torchlite.return_types" and type(r).__name__ == "max"
    assert r.values is r[0] and r.indices is r[1] and r[-1] is r.indices
    values, indices = r
    assert values.tolist() == [5.0, 6.0] and indices.tolist() == [1, 2]
    assert repr(r) == "torchlite.return_types.max(\nvalues=tensor([5., 6.]),\nindices=tensor([1, 2]))"
    assert type(tl.min(x, 0)) is tl.return_types.min and type(x.aminmax()) is tl.return_types.aminmax
    assert tl.return_types.aminmax.n_fields == 2
    assert tl.aminmax(x).min.item() == 1.0
    with pytest.raises(AttributeError):
        r.values = None


def test_named_tuple_pickles():
    # A named tuple of Python values pickles by its type's module and name (tensors aside).
    t = tl.return_types.max((1, 2))
    assert pickle.loads(pickle.dumps(t)) == t and type(pickle.loads(pickle.dumps(t))) is tl.return_types.max


def test_out_with_several_returns():
    x = make((3, 4), "float32", seed=4, noncontiguous=True)
    v, i = tl.empty(0), tl.empty(5, dtype=tl.int64)
    r = tl.max(x, 0, out=(v, i))
    assert type(r) is tl.return_types.max_out and r[0] is v and r[1] is i
    assert v.tolist() == tl.amax(x, 0).tolist() and i.tolist() == tl.argmax(x, 0).tolist()
    lo, hi = tl.empty(0), tl.empty(0)
    r = tl.aminmax(x, dim=1, keepdim=True, out=[lo, hi])  # a list works too
    assert type(r) is tl.return_types.aminmax_out and tuple(lo.shape) == (3, 1) and r.max is hi
    with pytest.raises(TypeError, match="expected tuple of 2 elements but got 3"):
        tl.min(x, 0, out=(v, i, v))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got int instead"):
        tl.max(x, 0, out=(tl.empty(0), tl.empty(0, dtype=tl.int32)))


# ------------------------------------------------------------------------------------------ all / any
def test_all_any_checked_against_torch():
    u = tl.tensor([[2, 3], [4, 5]], dtype=tl.uint8)
    assert u.all(0).dtype == tl.uint8 and u.all(0).tolist() == [1, 1]
    assert tl.tensor([1, 2], dtype=tl.uint8).any(0).dtype == tl.uint8
    assert tl.all(tl.tensor([[1, 5, 3], [4, 2, 6]])).dtype == tl.bool
    assert tl.any(tl.tensor([[0.0, NAN]]), 1).tolist() == [True]  # NaN is nonzero
    assert tl.all(tl.empty(0)).item() is True and tl.any(tl.empty(0, 2), 0).tolist() == [False, False]
    assert tl.all(tl.tensor(0.0), 0, keepdim=True).item() is False
    assert tl.all(tl.ones(2, 3), 0, out=tl.empty(0, dtype=tl.uint8)).tolist() == [1, 1, 1]
    assert tl.any(tl.ones(2, 3), (0, 1)).item() is True and tl.any(tl.ones(2, 3), dim=None).dim() == 0
    # dim=() reduces nothing for all/any (elementwise), unlike amax or sum, which reduce every dim.
    assert tl.any(tl.tensor([[0.0, 2.0]]), ()).tolist() == [[False, True]] and tl.amax(tl.ones(2, 3), ()).dim() == 0
    x = make((3, 4, 5), "int8", seed=5, noncontiguous=True)
    r = f64(x)
    for dim in (0, -1, (0, 2)):
        np.testing.assert_array_equal(tl.all(x, dim).numpy(), np.all(r != 0, axis=np_axis(dim)))
        np.testing.assert_array_equal(x.any(dim, True).numpy(), np.any(r != 0, axis=np_axis(dim), keepdims=True))


def test_count_nonzero():
    x = tl.tensor([[0, 1], [2, 0]])
    assert tl.count_nonzero(x, dim=(0, 1)).item() == 2 and tl.count_nonzero(x).dtype == tl.int64
    assert x.count_nonzero(dim=1).tolist() == [1, 1] and tl.count_nonzero(tl.tensor([True, False])).item() == 1


# ------------------------------------------------------------------------------------------ norm
def test_norm_checked_against_torch():
    x = tl.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    assert tl.norm(x).item() == pytest.approx(9.5393920141695)
    assert tl.norm(x, "fro").item() == pytest.approx(9.5393920141695) and tl.norm(x, p=None).item() == \
        pytest.approx(9.5393920141695)
    assert tl.norm(x, "fro", 1).tolist() == pytest.approx([5.9160797831, 7.4833147735])
    assert tl.norm(x, INF, 1).tolist() == [5.0, 6.0] and tl.norm(x, -INF).item() == 1.0
    assert tl.norm(x, 0).item() == 6.0 and tl.norm(x, 0.5).item() == pytest.approx(117.3284, rel=1e-5)
    assert tl.norm(x, -1).item() == pytest.approx(0.40816327)
    assert tl.norm(tl.tensor([3.0, -4.0]), -2).item() == pytest.approx(2.4)
    assert x.norm(2, 1, True).flatten().tolist() == pytest.approx([5.9160797831, 7.4833147735])
    n = tl.norm(x, 3, dtype=tl.float64)
    assert n.dtype == tl.float64 and n.item() == pytest.approx(7.6116626)
    h = tl.norm(x.half(), 2, dtype=tl.float32)
    assert h.dtype == tl.float32 and h.item() == pytest.approx(9.5393920141695)
    assert tl.norm(x.half()).dtype == tl.float16
    assert tl.norm(tl.empty(0)).item() == 0.0 and tl.norm(tl.empty(0), 0).item() == 0.0
    assert tuple(tl.norm(tl.empty(0, 3), INF, 1).shape) == (0,)
    o = tl.empty(0)
    assert tl.norm(x, 2, out=o) is o and o.item() == pytest.approx(9.5393920141695)
    # The nuclear norm of a matrix: the sum of its singular values (torchlite.linalg.matrix_norm).
    m = tl.tensor([[3.0, 0.0], [0.0, -4.0]])
    assert tl.norm(m, "nuc").item() == pytest.approx(7.0)


# ------------------------------------------------------------------------------------------ logsumexp
def test_logsumexp_checked_against_torch():
    assert tl.logsumexp(tl.tensor([[1, 5, 3], [4, 2, 6]]), 0).tolist() == pytest.approx([4.0485873, 5.0485873,
                                                                                          6.0485873])
    assert tl.logsumexp(tl.tensor([True, False]), 0).item() == pytest.approx(1.3132616)
    assert tl.logsumexp(tl.tensor([INF, 1.0]), 0).item() == INF
    r = tl.logsumexp(tl.tensor([[0.0, 1.0], [-INF, -INF]]), 1, keepdim=True)
    assert tuple(r.shape) == (2, 1) and r.flatten().tolist() == [pytest.approx(1.3132616), -INF]
    assert tl.logsumexp(tl.empty(0), 0).item() == -INF
    big = tl.tensor([1000.0, 1000.0])
    assert tl.logsumexp(big, 0).item() == pytest.approx(1000 + math.log(2))


# ------------------------------------------------------------------------------------------ isclose / equal
def test_isclose_allclose_equal_checked_against_torch():
    a = tl.tensor([1.0, NAN, INF])
    b = tl.tensor([1.0 + 1e-9, NAN, -INF])
    assert tl.isclose(a, b, equal_nan=True).tolist() == [True, True, False]
    assert tl.isclose(a, b).tolist() == [True, False, False]
    assert tl.isclose(tl.tensor([INF]), tl.tensor([INF])).tolist() == [True]
    i = tl.tensor([[1, 5, 3], [4, 2, 6]])
    assert tl.isclose(i, i + 1, rtol=0.3).tolist() == [[False, True, True], [True, False, True]]
    assert tl.isclose(i, i + 1, atol=1.5).all().item()
    assert tl.isclose(tl.tensor([True, False]), tl.tensor([True, True])).tolist() == [True, False]
    x = tl.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    row = x.select(0, 0)
    assert tl.isclose(x, row).tolist() == [[True, True, True], [False, False, False]]
    assert tl.allclose(tl.tensor([1.0, 2.0]), tl.tensor([1.1, 2.0]), rtol=0, atol=0.2) is True
    assert tl.allclose(x, row) is False and x.allclose(x) is True
    assert tl.equal(x, i) is True and tl.equal(x, row) is False and tl.equal(x.half(), x) is True
    assert tl.equal(tl.tensor([NAN]), tl.tensor([NAN])) is False
    assert tl.equal(tl.empty(0), tl.empty(0, 1)) is False and x.equal(x.t().t()) is True


# ------------------------------------------------------------------------------------------ threads
@pytest.mark.parametrize("shape,dim", [((300001,), None), ((3, 100003), 1), ((70001, 3), 0)], ids=str)
def test_results_do_not_depend_on_thread_count(shape, dim, restore_threads):
    x = make(shape, "float32", seed=6) * 3 + 1
    ops = [lambda: tl.mean(x, dim), lambda: tl.var(x, dim), lambda: tl.std_mean(x, dim)[0],
           lambda: tl.norm(x, 2, dim), lambda: tl.norm(x, 1.5, dim), lambda: tl.logsumexp(x, dim if dim is not None else 0),
           lambda: tl.prod(tl.ones(shape) * 1.0000001), lambda: tl.nansum(x, dim), lambda: tl.argmax(x, dim),
           lambda: tl.amax(x, () if dim is None else dim)]
    tl.set_num_threads(1)
    one = [op().tolist() for op in ops]
    tl.set_num_threads(4)
    many = [op().tolist() for op in ops]
    assert one == many
    close(tl.mean(x, dim), np.mean(f64(x), axis=dim), "float32")


# ------------------------------------------------------------------------------------------ scans
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("noncontig", LAYOUTS, ids=["contiguous", "noncontiguous"])
def test_cumsum_cumprod_match_numpy(dtype, noncontig):
    x = make((3, 4, 5), dtype, seed=7, noncontiguous=noncontig)
    r = f64(x)
    int_like = dtype not in FLOATS
    out_dtype = "int64" if int_like else dtype
    for dim in (0, 1, -1):
        s = tl.cumsum(x, dim)
        assert str(s.dtype) == f"torchlite.{out_dtype}"
        close(s, np.cumsum(r, axis=dim), out_dtype)
        close(x.cumprod(dim), np.cumprod(r, axis=dim), out_dtype)
        close(tl.cumsum(x, dim, dtype=tl.float64), np.cumsum(r, axis=dim), "float64")


def test_scans_checked_against_torch():
    i = tl.tensor([[1, 5, 3], [4, 2, 6]], dtype=tl.int32)
    c = i.clone().cumsum_(1)
    assert c.dtype == tl.int32 and c.tolist() == [[1, 6, 9], [4, 6, 12]]
    assert i.clone().cumprod_(0).tolist() == [[1, 5, 3], [4, 10, 18]]
    assert tl.cumsum(tl.tensor([True, False, True]), 0).tolist() == [1, 1, 2]
    assert tl.cumprod(tl.tensor([True, False, True]), 0).tolist() == [1, 0, 0]
    u = tl.tensor([200, 100], dtype=tl.uint8)
    assert tl.cumsum(u, 0).tolist() == [200, 300] and tl.cumsum(u, 0, dtype=tl.uint8).tolist() == [200, 44]
    assert tl.cumsum(tl.tensor(3.0), -1).item() == 3.0 and tuple(tl.cumsum(tl.empty(0, 3), 0).shape) == (0, 3)
    s = tl.cumsum(tl.tensor([1.0, NAN, 2.0]), 0).tolist()
    assert s[0] == 1.0 and math.isnan(s[1]) and math.isnan(s[2])
    o = tl.empty(0, dtype=tl.int32)
    assert tl.cumsum(i, 0, out=o) is o and o.tolist() == [[1, 5, 3], [5, 7, 9]]
    x = tl.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    assert tl.cumsum(x.t(), 1).tolist() == [[1.0, 5.0], [5.0, 7.0], [3.0, 9.0]]
    t = x.t()
    assert t.cumsum_(0) is t and x.tolist() == [[1.0, 6.0, 9.0], [4.0, 6.0, 12.0]]  # in place through a view


def test_scans_compute_in_out_dtype():
    """cumsum and cumprod accumulate in out's dtype, whatever the input's: an integral input into a floating
    out=, a floating input into an integral one (each element cast first), a wider or narrower integer."""
    f = tl.tensor([[1.5, 2.7, -0.5], [0.5, 0.5, 3.2]])
    r = f.numpy()
    for dtype in ("int64", "int16", "float64", "float16"):
        o = tl.empty(0, dtype=getattr(tl, dtype))
        assert tl.cumsum(f, 1, out=o) is o and o.dtype == getattr(tl, dtype)
        expected = np.cumsum(r.astype(NP.get(dtype, np.float16)), 1, dtype=NP.get(dtype, np.float64))
        np.testing.assert_allclose(o.float().numpy(), expected, rtol=2e-3)
        np.testing.assert_allclose(tl.cumprod(f, 1, out=o).float().numpy(),
                                   np.cumprod(r.astype(NP.get(dtype, np.float16)), 1), rtol=2e-3)
    u = tl.tensor([100, 100], dtype=tl.uint8)
    assert tl.cumsum(u, 0, out=tl.empty(0, dtype=tl.int8)).tolist() == np.cumsum([100, 100]).astype(np.int8).tolist()
    assert tl.cumsum(u, 0, out=tl.empty(0, dtype=tl.float32)).tolist() == [100.0, 200.0]


def test_bool_scans_are_not_implemented():
    """PyTorch has no bool cumsum/cumprod kernel: bool in place, dtype=bool and out= of bool raise
    NotImplementedError (a bool input into the default int64 result is fine)."""
    for op in ("cumsum", "cumprod"):
        message = f'"{op}_out_cpu" not implemented for \'Bool\''
        with pytest.raises(NotImplementedError, match=message):
            getattr(tl.tensor([True, False]), op + "_")(0)
        with pytest.raises(NotImplementedError, match=message):
            getattr(tl, op)(tl.tensor([1, 2]), 0, dtype=tl.bool)
        with pytest.raises(NotImplementedError, match=message):
            getattr(tl, op)(tl.tensor([1.0, 2.0]), 0, out=tl.empty(0, dtype=tl.bool))
        with pytest.raises(RuntimeError, match="Bad in-place call: input tensor dtype float and output tensor dtype "
                                               "double should match"):
            getattr(tl.ones(2), op + "_")(0, dtype=tl.float64)


def test_cummax_cummin_checked_against_torch():
    r = tl.cummax(tl.tensor([1.0, 3.0, 3.0, 2.0, 5.0]), 0)
    assert type(r) is tl.return_types.cummax
    assert r.values.tolist() == [1.0, 3.0, 3.0, 3.0, 5.0] and r.indices.tolist() == [0, 1, 2, 2, 4]
    r = tl.cummin(tl.tensor([3.0, 1.0, 1.0, 2.0, 0.0]), 0)
    assert r.values.tolist() == [3.0, 1.0, 1.0, 1.0, 0.0] and r.indices.tolist() == [0, 1, 2, 2, 4]
    r = tl.cummax(tl.tensor([1.0, NAN, 3.0, NAN, 5.0]), 0)
    v = r.values.tolist()
    assert v[0] == 1.0 and all(math.isnan(a) for a in v[1:]) and r.indices.tolist() == [0, 1, 1, 3, 3]
    r = tl.cummax(tl.tensor([True, False, True]), 0)
    assert r.values.tolist() == [True, True, True] and r.indices.tolist() == [0, 0, 2]
    x = tl.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    r = x.half().cummax(dim=1)
    assert r.values.dtype == tl.float16 and r.values.tolist() == [[1.0, 5.0, 5.0], [4.0, 4.0, 6.0]]
    assert r.indices.tolist() == [[0, 1, 1], [0, 0, 2]]
    r = tl.cummax(tl.tensor(2.0), 0)
    assert r.values.item() == 2.0 and r.indices.item() == 0
    v, i = tl.empty(0), tl.empty(0, dtype=tl.int64)
    r = tl.cummin(x, 0, out=(v, i))
    assert type(r) is tl.return_types.cummin_out and r.values is v and i.tolist() == [[0, 0, 0], [0, 1, 0]]


# ------------------------------------------------------------------------------------------ sorting and selection
SORTABLE = FLOATS + ["int8", "int16", "int32", "int64", "uint8"]


@pytest.mark.parametrize("dtype", SORTABLE + ["bool"])
@pytest.mark.parametrize("noncontig", LAYOUTS, ids=["contiguous", "noncontiguous"])
def test_sort_matches_numpy_stable_order(dtype, noncontig):
    x = make((3, 4, 5), dtype, seed=8, noncontiguous=noncontig)  # integer samples have many ties
    r = f64(x)
    for dim in (0, 1, -1):
        for descending in (False, True):
            order = np.argsort(-r if descending else r, axis=dim, kind="stable")
            s = tl.sort(x, dim, descending)
            np.testing.assert_array_equal(f64(s.indices), order)
            np.testing.assert_array_equal(f64(s.values), np.take_along_axis(r, order, axis=dim))
            np.testing.assert_array_equal(f64(x.argsort(dim, descending=descending)), order)
            if dtype != "bool":
                k = 2
                top = tl.topk(x, k, dim, largest=descending)
                np.testing.assert_array_equal(f64(top.indices), np.take(order, range(k), axis=dim))


@pytest.mark.parametrize("dtype", SORTABLE)
def test_kthvalue_median_mode_match_numpy(dtype):
    x = make((4, 7), dtype, seed=9, noncontiguous=True)
    r = f64(x)
    order = np.argsort(r, axis=1, kind="stable")
    for k in (1, 4, 7):
        kv = tl.kthvalue(x, k, 1)
        np.testing.assert_array_equal(f64(kv.indices), order[:, k - 1])
        np.testing.assert_array_equal(f64(kv.values), np.sort(r, axis=1)[:, k - 1])
    med = tl.median(x, 1, keepdim=True)
    np.testing.assert_array_equal(f64(med.indices), order[:, 3:4])  # lower median of 7: the 4th
    assert tl.median(x).item() == np.sort(r, axis=None)[(r.size - 1) // 2]
    np.testing.assert_array_equal(f64(tl.nanmedian(x, 0).values), np.sort(r, axis=0)[1])
    mode = tl.mode(x, 1)
    for row in range(4):
        vals, counts = np.unique(r[row], return_counts=True)
        v = vals[np.argmax(counts)]
        assert mode.values.tolist()[row] == v and mode.indices.tolist()[row] == np.nonzero(r[row] == v)[0][-1]


def test_sorting_checked_against_torch():
    r = tl.sort(tl.tensor([2.0, NAN, 1.0, NAN]))
    assert r.indices.tolist() == [2, 0, 1, 3] and type(r) is tl.return_types.sort
    assert tl.sort(tl.tensor([2.0, NAN, 1.0, NAN]), descending=True).indices.tolist() == [1, 3, 0, 2]
    assert tl.sort(tl.tensor([2.0, 1.0, 2.0, 1.0]), descending=True).indices.tolist() == [0, 2, 1, 3]
    assert tl.sort(tl.tensor([3, 1, 2]), stable=True).indices.tolist() == [1, 2, 0]
    assert tl.sort(tl.tensor([True, False, True])).indices.tolist() == [1, 0, 2]
    s = tl.sort(tl.tensor(3.0))
    assert s.values.item() == 3.0 and s.indices.item() == 0
    assert tuple(tl.sort(tl.empty(0, 2)).values.shape) == (0, 2)
    t = tl.topk(tl.tensor([1.0, 5.0, 3.0, 5.0, 2.0]), 2)
    assert type(t) is tl.return_types.topk and t.values.tolist() == [5.0, 5.0] and t.indices.tolist() == [1, 3]
    assert tl.topk(tl.tensor([1.0, 5.0, 3.0, 5.0, 2.0]), 3, largest=False).indices.tolist() == [0, 4, 2]
    t = tl.topk(tl.tensor([1.0, NAN, 3.0]), 2)
    assert math.isnan(t.values.tolist()[0]) and t.indices.tolist() == [1, 2]
    assert tl.topk(tl.tensor([1.0, NAN, 3.0]), 2, largest=False).indices.tolist() == [0, 2]
    assert tuple(tl.topk(tl.tensor([1.0, 5.0]), 0).values.shape) == (0,)
    t = tl.topk(tl.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]), 2, 0)
    assert t.values.tolist() == [[3.0, 5.0, 4.0], [0.0, 1.0, 2.0]] and t.indices.tolist() == [[0, 1, 1], [1, 0, 0]]
    kv = tl.kthvalue(tl.tensor([3.0, 1.0, 2.0, 1.0]), 2)
    assert kv.values.item() == 1.0 and kv.indices.item() == 3 and type(kv) is tl.return_types.kthvalue
    kv = tl.kthvalue(tl.tensor([[3.0, 1.0], [2.0, 0.0]]), 1, 0, True)
    assert kv.values.tolist() == [[2.0, 0.0]] and kv.indices.tolist() == [[1, 1]]
    assert tl.kthvalue(tl.tensor([3.0, NAN, 2.0]), 3).indices.item() == 1
    assert tl.median(tl.tensor([3.0, 1.0, 2.0, 4.0])).item() == 2.0 and tl.median(tl.tensor([5, 1, 3, 3])).item() == 3
    assert math.isnan(tl.median(tl.tensor([3.0, NAN, 2.0])).item()) and math.isnan(tl.median(tl.empty(0)).item())
    m = tl.median(tl.tensor([[3.0, 1.0, 2.0, 4.0], [1.0, 1.0, 5.0, 5.0]]), 1)
    assert type(m) is tl.return_types.median and m.values.tolist() == [2.0, 1.0] and m.indices.tolist() == [2, 1]
    m = tl.median(tl.tensor([1.0, NAN, NAN, 2.0]), 0)
    assert math.isnan(m.values.item()) and m.indices.item() == 1
    assert tl.median(tl.tensor([2.0, 2.0, 1.0, 2.0]), 0).indices.item() == 0
    assert tl.nanmedian(tl.tensor([3.0, NAN, 2.0, 1.0])).item() == 2.0 and math.isnan(tl.nanmedian(tl.tensor([NAN])).item())
    m = tl.nanmedian(tl.tensor([[3.0, NAN, 2.0, 1.0], [NAN, NAN, NAN, NAN]]), 1)
    assert m.values.tolist()[0] == 2.0 and m.indices.tolist()[0] == 2 and math.isnan(m.values.tolist()[1])
    assert tl.nanmedian(tl.tensor([1, 2])).item() == 1
    md = tl.mode(tl.tensor([1, 2, 2, 3, 3]))
    assert type(md) is tl.return_types.mode and md.values.item() == 2 and md.indices.item() == 2
    md = tl.mode(tl.tensor([3.0, 1.0, 3.0, 1.0, 2.0]))
    assert md.values.item() == 1.0 and md.indices.item() == 3
    md = tl.mode(tl.tensor([[1, 1, 2], [5, 6, 6]]), 1)
    assert md.values.tolist() == [1, 6] and md.indices.tolist() == [1, 2]
    md = tl.mode(tl.tensor([True, False, False]))
    assert md.values.item() is False and md.indices.item() == 2
    # NaN: median and nanmedian match PyTorch (the first NaN's index; the non-NaN lower median). PyTorch's
    # mode counts NaNs through a sort that breaks on them (mode([5, 3, nan, 3, 5, nan, 3, 1]) is 1.0 at 7 there):
    # an accident not copied. torchlite counts each NaN on its own, so NaN is the mode only of an all-NaN row.
    m = tl.nanmedian(tl.tensor([[1.0, 2.0, NAN, 2.0, 1.0, NAN], [NAN, 0.0, NAN, 0.0, NAN, NAN]]), 1)
    assert m.values.tolist() == [1.0, 0.0] and m.indices.tolist() == [4, 1]
    assert tl.median(tl.tensor([1.0, 2.0, NAN, 2.0, NAN]), 0).indices.item() == 2
    md = tl.mode(tl.tensor([5.0, 3.0, NAN, 3.0, 5.0, NAN, 3.0, 1.0]))
    assert md.values.item() == 3.0 and md.indices.item() == 6
    md = tl.mode(tl.tensor([NAN, NAN, 1.0]))
    assert md.values.item() == 1.0 and md.indices.item() == 2
    assert math.isnan(tl.mode(tl.tensor([NAN, NAN])).values.item())
    v, i = tl.empty(0), tl.empty(0, dtype=tl.int64)
    r = tl.sort(tl.tensor([3.0, 1.0]), out=(v, i))
    assert type(r) is tl.return_types.sort_out and v.tolist() == [1.0, 3.0] and i.tolist() == [1, 0]


def test_unique_checked_against_torch():
    x = tl.tensor([3, 1, 2, 1, 3])
    assert tl.unique(x).tolist() == [1, 2, 3] and tl.unique(x, sorted=False).tolist() == [1, 2, 3]
    u, inv, cnt = tl.unique(x, return_inverse=True, return_counts=True)
    assert u.tolist() == [1, 2, 3] and inv.tolist() == [2, 0, 1, 0, 2] and cnt.tolist() == [2, 1, 2]
    u, cnt = x.unique(return_counts=True)
    assert cnt.tolist() == [2, 1, 2] and cnt.dtype == tl.int64
    u, inv = tl.unique(tl.tensor([[3, 1], [2, 1]]), return_inverse=True)
    assert inv.tolist() == [[2, 0], [1, 0]]
    u = tl.unique(tl.tensor([1.0, NAN, NAN])).tolist()
    assert u[0] == 1.0 and math.isnan(u[1]) and math.isnan(u[2])  # every NaN is distinct
    assert tl.unique(tl.tensor([True, False, True])).tolist() == [False, True]
    u, cnt = tl.unique(tl.empty(0), return_counts=True)
    assert tuple(u.shape) == (0,) and tuple(cnt.shape) == (0,)
    assert tl.unique(tl.tensor(5)).tolist() == [5]
    assert str(tl.unique(tl.tensor([-0.0, 0.0])).tolist()) == "[-0.0]"
    assert tl.unique(tl.tensor([[1, 2], [1, 2], [0, 1]]), dim=0).tolist() == [[0, 1], [1, 2]]
    u, inv, cnt = tl.unique(tl.tensor([[1, 2, 1], [3, 0, 3]]), dim=1, return_inverse=True, return_counts=True)
    assert u.tolist() == [[1, 2], [3, 0]] and inv.tolist() == [0, 1, 0] and cnt.tolist() == [2, 1]
    assert tl.unique(tl.tensor([[1, 2], [1, 2]]), dim=-1).tolist() == [[1, 2], [1, 2]]
    y = make((5, 6), "int8", seed=10, noncontiguous=True)
    r = f64(y)
    u, inv, cnt = tl.unique(y, return_inverse=True, return_counts=True)
    eu, einv, ecnt = np.unique(r, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(f64(u), eu)
    np.testing.assert_array_equal(f64(inv), einv.reshape(r.shape))
    np.testing.assert_array_equal(f64(cnt), ecnt)
    u, inv, cnt = tl.unique(y, dim=1, return_inverse=True, return_counts=True)
    eu, einv, ecnt = np.unique(r, axis=1, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(f64(u), eu)
    np.testing.assert_array_equal(f64(inv), einv.reshape(-1))
    np.testing.assert_array_equal(f64(cnt), ecnt)


@pytest.mark.parametrize("threads", [1, 2])
def test_reductions_over_leading_dims_walk_tiles(threads, restore_threads):
    """Reductions move the reduced dims last with a transposing copy, done in 32 x 32 tiles (sizes that are
    not multiples of 32, strided and permuted inputs, casts): the same values as NumPy on any thread count."""
    tl.set_num_threads(threads)
    b = np.random.default_rng(7).standard_normal((5, 37, 70, 3))
    x = tl.tensor(b)
    for dims in [(0,), (1,), (0, 2), (1, 3), (0, 1, 2)]:
        np.testing.assert_array_equal(np.asarray(x.amax(dims)), b.max(axis=dims))
        if len(dims) == 1:  # prod takes one dim, as in PyTorch
            np.testing.assert_allclose(np.asarray(x.prod(dims[0])), b.prod(axis=dims[0]), rtol=1e-12)
    p = x.permute(2, 0, 3, 1)
    bp = b.transpose(2, 0, 3, 1)
    np.testing.assert_allclose(np.asarray(p.var(0)), bp.var(axis=0, ddof=1), rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(p.float().amin(1)), bp.astype(np.float32).min(axis=1))
    np.testing.assert_array_equal(np.asarray(x[:, ::2].argmax(0)), b[:, ::2].argmax(axis=0))


def test_all_any_of_many_blocks_with_threads(restore_threads):
    # reduce_row kept the blocks' results in a std::vector<bool>, whose elements share words: two threads writing
    # neighbouring blocks raced, and all() of ~400k trues came out False a few times in a thousand.
    tl.set_num_threads(2)
    ones = tl.ones(64 * 32768 + 1, dtype=tl.bool)
    zeros = tl.zeros(64 * 32768 + 1, dtype=tl.bool)
    wrong = sum(not bool(ones.all()) or bool(zeros.any()) for _ in range(300))
    assert wrong == 0
    zeros[12345 * 64] = True
    assert bool(zeros.any()) and not bool(zeros.logical_not().all())
