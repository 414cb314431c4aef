"""Linear algebra: matmul in every rank case, the BLAS and plain GEMM paths, addmm-style scaling, triangles and
diagonals, einsum, tensordot, kron. References are NumPy float64; special values were checked against PyTorch 2.13."""
import numpy as np
import pytest

import torchlite as tl

FLOAT_TOL = {"float32": (2e-5, 2e-5), "float64": (1e-12, 1e-12), "float16": (1e-2, 2e-2), "bfloat16": (4e-2, 8e-2)}
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
NP = {"uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
      "float16": np.float16, "float32": np.float32, "float64": np.float64}


def rand(shape, dtype="float32", seed=0, noncontiguous=False):
    """A tensor of `shape`: uniform in [-1, 1) for floats, small integers otherwise; built transposed (same
    shape, non-contiguous strides) when asked."""
    rng = np.random.default_rng([seed, *shape])
    build = tuple(reversed(shape)) if noncontiguous else tuple(shape)
    if dtype in INT_DTYPES:
        data = rng.integers(0 if dtype == "uint8" else -3, 4, size=build)
    else:
        data = rng.uniform(-1, 1, size=build)
    if dtype == "bfloat16":
        t = tl.tensor(data.tolist(), dtype=tl.bfloat16) if data.size else tl.empty(build, dtype=tl.bfloat16)
    else:
        t = tl.tensor(data.astype(NP[dtype]))
    if noncontiguous and len(shape) > 1:
        t = t.permute(*reversed(range(len(shape))))
    return t


def f64(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def check(actual, expected, dtype):
    assert repr(actual.dtype) == f"torchlite.{dtype}", (actual.dtype, dtype)
    assert tuple(actual.shape) == np.shape(expected), (tuple(actual.shape), np.shape(expected))
    if dtype in INT_DTYPES:
        np.testing.assert_array_equal(actual.numpy(), np.asarray(expected).astype(np.int64).astype(NP[dtype]))
    else:
        rtol, atol = FLOAT_TOL[dtype]
        np.testing.assert_allclose(f64(actual), expected, rtol=rtol, atol=atol)


# ------------------------------------------------------------------------------------------ matmul
MATMUL_SHAPES = [
    ((3,), (3,)),                 # dot
    ((2, 3), (3,)),               # mv
    ((3,), (3, 4)),               # vector @ matrix
    ((2, 3), (3, 4)),             # mm
    ((2, 5, 3), (3,)),            # folded into mv
    ((2, 5, 3), (3, 4)),          # folded into mm
    ((3,), (2, 3, 4)),            # 1-D @ batch
    ((5, 3), (2, 3, 4)),          # 2-D @ batch (bmm with an expanded lhs)
    ((2, 1, 5, 3), (4, 3, 2)),    # batch dims broadcast
    ((2, 4, 3), (2, 3, 1)),       # batched
    ((1, 2, 3), (6, 3, 2)),       # batch of 1 broadcast
    ((0, 2, 3), (3,)),            # empty batch
    ((3, 5, 0), (0, 0)),          # empty inner and outer dims
    ((2, 0), (0, 3)),             # k = 0: zeros
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=[f"{a}@{b}" for a, b in MATMUL_SHAPES])
@pytest.mark.parametrize("noncontiguous", [False, True], ids=["contiguous", "transposed"])
def test_matmul_ranks(shapes, noncontiguous):
    a = rand(shapes[0], "float32", 1, noncontiguous)
    b = rand(shapes[1], "float32", 2, noncontiguous)
    expected = np.matmul(f64(a), f64(b))
    check(tl.matmul(a, b), expected, "float32")
    check(a @ b, expected, "float32")
    check(a.matmul(b), expected, "float32")
    out = tl.empty(7)
    assert tl.matmul(a, b, out=out) is out
    check(out, expected, "float32")


def test_matmul_permuted_batch_is_not_folded():
    # A batch whose leading dims cannot be flattened without a copy goes the bmm way.
    a = rand((3, 4, 5), "float64").permute(1, 0, 2)  # (4, 3, 5), non-foldable
    b = rand((5, 2), "float64", 3)
    check(tl.matmul(a, b), np.matmul(f64(a), f64(b)), "float64")


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", *INT_DTYPES])
def test_matmul_dtypes(dtype):
    for sa, sb in [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (2, 3, 4))]:
        a, b = rand(sa, dtype, 4), rand(sb, dtype, 5)
        check(tl.matmul(a, b), np.matmul(f64(a), f64(b)), dtype)


def test_matmul_bool_refused():
    b = tl.tensor([[True, False], [False, True]])
    for x, y in [(b, b), (b.select(0, 0), b.select(0, 0)), (b, b.select(0, 0)), (b.unsqueeze(0), b.unsqueeze(0))]:
        with pytest.raises(NotImplementedError, match="'Bool'"):
            tl.matmul(x, y)


def test_integer_products_wrap():
    # Values checked against torch.mm: int8 100*100*2 = 20000 wraps to 32; uint8 200*200*3 wraps to 192.
    a = tl.full((1, 2), 100, dtype=tl.int8)
    assert tl.mm(a, a.t()).tolist() == [[32]]
    u = tl.full((1, 3), 200, dtype=tl.uint8)
    assert tl.matmul(u, u.t()).tolist() == [[192]]


def test_matmul_operator_forms():
    a, b = rand((2, 3)), rand((3, 3), seed=1)
    c = a
    c @= b  # no in-place @ in PyTorch: rebinds c to a @ b
    assert c is not a and tuple(a.shape) == (2, 3)
    check(c, f64(a) @ f64(b), "float32")
    with pytest.raises(TypeError, match="unsupported operand"):
        a @ 2.0
    with pytest.raises(TypeError, match="unsupported operand"):
        [1.0, 2.0] @ a


# ------------------------------------------------------------------------------------------ bmm
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", *INT_DTYPES])
@pytest.mark.parametrize("size", [(3, 2, 4, 5), (3, 20, 20, 20)], ids=["small", "blas"])
def test_bmm(dtype, size):
    bs, m, k, n = size
    for nc in (False, True):
        a, b = rand((bs, m, k), dtype, 6, nc), rand((bs, k, n), dtype, 7, nc)
        expected = f64(a) @ f64(b)
        if dtype in ("float16", "bfloat16"):
            rtol, atol = FLOAT_TOL[dtype]
            np.testing.assert_allclose(f64(tl.bmm(a, b)), expected, rtol=rtol, atol=atol * k / 4)
        else:
            check(tl.bmm(a, b), expected, dtype)
        assert tl.bmm(a, b).is_contiguous()


def test_bmm_expanded_and_strided_operands():
    a = rand((1, 4, 5), "float64").expand(3, 4, 5)  # batch stride 0
    b = tl._slice(rand((3, 10, 6), "float64", 1), 1, None, None, 2)   # row stride 12: a BLAS layout with ld = 12
    c = rand((3, 6, 5), "float64", 2).transpose(1, 2)
    ref = f64(a) @ f64(b)
    check(tl.bmm(a, b), ref, "float64")
    check(tl.bmm(b.transpose(1, 2), c), f64(b).transpose(0, 2, 1) @ f64(c), "float64")
    x = tl._slice(rand((2, 3, 4), "float64", 3), 2, None, None, 2)      # column stride 2: copied
    check(tl.bmm(x, rand((2, 2, 3), "float64", 4)), f64(x) @ f64(rand((2, 2, 3), "float64", 4)), "float64")


def test_bmm_thread_count_independent():
    a, b = rand((64, 5, 7), "float32", 8), rand((64, 7, 3), "float32", 9)
    n = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        one = tl.bmm(a, b).numpy()
        tl.set_num_threads(2)
        two = tl.bmm(a, b).numpy()
    finally:
        tl.set_num_threads(n)
    np.testing.assert_array_equal(one, two)


def test_bmm_out_and_empty():
    a, b = rand((2, 3, 4)), rand((2, 4, 5), seed=1)
    out = tl.empty((2, 5, 3)).transpose(1, 2)  # a non-contiguous out of the right shape
    assert tl.bmm(a, b, out=out) is out
    check(out, f64(a) @ f64(b), "float32")
    assert tl.bmm(tl.ones(2, 3, 0), tl.ones(2, 0, 4)).tolist() == [[[0.0] * 4] * 3] * 2
    assert tuple(tl.bmm(tl.ones(0, 3, 2), tl.ones(0, 2, 4)).shape) == (0, 3, 4)


# ------------------------------------------------------------------------------------------ addmm family
def test_addmm_broadcast_and_scalars():
    s, m1, m2 = rand((4,)), rand((3, 5), seed=1, noncontiguous=True), rand((5, 4), seed=2)
    ref = 0.5 * f64(s) + -2 * (f64(m1) @ f64(m2))
    check(tl.addmm(s, m1, m2, beta=0.5, alpha=-2), ref, "float32")
    check(s.addmm(m1, m2, beta=0.5, alpha=-2), ref, "float32")
    check(tl.addmm(tl.tensor(1.5), m1, m2), 1.5 + f64(m1) @ f64(m2), "float32")


def test_add_product_beta_zero_ignores_nan():
    nan = float("nan")
    check(tl.addmm(tl.full((2, 2), nan), tl.ones(2, 3), tl.ones(3, 2), beta=0), np.full((2, 2), 3.0), "float32")
    check(tl.addmv(tl.full((2,), nan), tl.ones(2, 3), tl.ones(3), beta=0), np.full(2, 3.0), "float32")
    check(tl.baddbmm(tl.full((2, 2, 2), nan), tl.ones(2, 2, 3), tl.ones(2, 3, 2), beta=0), np.full((2, 2, 2), 3.0),
          "float32")
    check(tl.addbmm(tl.full((2, 2), nan), tl.ones(2, 2, 3), tl.ones(2, 3, 2), beta=0), np.full((2, 2), 6.0),
          "float32")
    h = tl.full((2, 2), nan, dtype=tl.float16)
    check(tl.addmm(h, tl.ones(2, 3, dtype=tl.float16), tl.ones(3, 2, dtype=tl.float16), beta=0), np.full((2, 2), 3.0),
          "float16")
    x = tl.full((2, 2), nan)
    assert x.addmm_(tl.ones(2, 3), tl.ones(3, 2), beta=0) is x
    check(x, np.full((2, 2), 3.0), "float32")


def test_addmm_integer_scalars_truncate():
    # torch.addmm(int32 ones, ..., beta=0.5, alpha=2.7) gives 6: beta casts to 0, alpha to 2.
    one = lambda *s: tl.ones(*s, dtype=tl.int32)  # noqa: E731
    check(tl.addmm(one(2, 2), one(2, 3), one(3, 2), beta=0.5, alpha=2.7), np.full((2, 2), 6), "int32")
    i64 = lambda *s: tl.full(s, 3, dtype=tl.int64)  # noqa: E731
    check(tl.addmm(i64(2, 2), i64(2, 3), i64(3, 2), beta=2, alpha=-1), np.full((2, 2), -21), "int64")


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8"])
def test_add_products_dtypes(dtype):
    s, b1, b2 = rand((3, 1, 4), dtype, 1), rand((3, 2, 5), dtype, 2), rand((3, 5, 4), dtype, 3, True)
    p = f64(b1) @ f64(b2)
    check(tl.baddbmm(s, b1, b2, beta=2, alpha=3), 2 * f64(s) + 3 * p, dtype)
    s00 = s.select(0, 0).select(0, 0)
    check(tl.addbmm(s00, b1, b2, alpha=2), f64(s00) + 2 * p.sum(0), dtype)
    check(tl.addmm(s.select(0, 0), b1.select(0, 0), b2.select(0, 0), beta=-1), -f64(s.select(0, 0)) + p[0], dtype)
    v = s00.narrow(0, 0, 2)
    check(tl.addmv(v, b1.select(0, 0), b2.select(0, 0).select(1, 0)), f64(v) + p[0, :, 0], dtype)


def test_add_products_in_place_and_out():
    s = rand((4, 3), "float64", 1, noncontiguous=True)
    m1, m2 = rand((4, 2), "float64", 2), rand((2, 3), "float64", 3)
    ref = 2 * f64(s) + f64(m1) @ f64(m2)
    assert s.addmm_(m1, m2, beta=2) is s
    check(s, ref, "float64")
    out = tl.empty(1, dtype=tl.float64)
    assert tl.addmm(s, m1, m2, out=out) is out
    check(out, f64(s) + f64(m1) @ f64(m2), "float64")
    v = rand((4,), "float64", 4)
    ref = f64(v) + f64(m1) @ f64(m2)[:, 0]
    assert v.addmv_(m1, m2.select(1, 0)) is v
    check(v, ref, "float64")
    b = rand((2, 4, 3), "float64", 5)
    w = rand((3, 3), "float64", 7)
    ref = f64(b) - f64(b) @ f64(w)
    assert b.baddbmm_(b, w.expand(2, 3, 3), alpha=-1) is b  # self is also batch1
    check(b, ref, "float64")
    m = rand((4, 3), "float64", 6)
    ref = f64(m) + (f64(b) @ np.ones((2, 3, 3))).sum(0)
    assert m.addbmm_(b, tl.ones(2, 3, 3, dtype=tl.float64)) is m
    check(m, ref, "float64")


# ------------------------------------------------------------------------------------------ vectors
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "uint8"])
def test_vector_products(dtype):
    x, y = rand((5,), dtype, 1), rand((5,), dtype, 2)
    m = rand((3, 5), dtype, 3, True)
    check(tl.dot(x, y), np.dot(f64(x), f64(y)), dtype)
    check(tl.vdot(x, y), np.dot(f64(x), f64(y)), dtype)
    check(x.dot(y), np.dot(f64(x), f64(y)), dtype)
    check(tl.mv(m, x), f64(m) @ f64(x), dtype)
    check(tl.outer(x, y.narrow(0, 0, 3)), np.outer(f64(x), f64(y.narrow(0, 0, 3))), dtype)
    check(tl.ger(x, y.narrow(0, 0, 3)), np.outer(f64(x), f64(y.narrow(0, 0, 3))), dtype)


def test_outer_promotes_and_takes_bool():
    # torch.outer(float32, int32) is float32, (float32, float64) float64; bool x bool is bool.
    r = tl.outer(tl.ones(3), tl.tensor([1, 2], dtype=tl.int32))
    assert r.dtype == tl.float32 and r.tolist() == [[1.0, 2.0]] * 3
    assert tl.outer(tl.ones(2), tl.ones(2, dtype=tl.float64)).dtype == tl.float64
    b = tl.tensor([True, False])
    assert tl.outer(b, b).tolist() == [[True, False], [False, False]]


def test_dot_empty_and_out():
    assert tl.dot(tl.ones(0), tl.ones(0)).item() == 0.0
    out = tl.empty(3)
    assert tl.dot(tl.ones(3), tl.ones(3), out=out) is out and tuple(out.shape) == () and out.item() == 3.0


# ------------------------------------------------------------------------------------------ triangles, diagonals
ALL_DTYPES = ["bool", *INT_DTYPES, "float16", "bfloat16", "float32", "float64"]


def typed(shape, dtype, seed=0, noncontiguous=False):
    if dtype == "bool":
        rng = np.random.default_rng(seed)
        build = tuple(reversed(shape)) if noncontiguous else shape
        t = tl.tensor(rng.integers(0, 2, size=build).astype(np.bool_))
        return t.permute(*reversed(range(len(shape)))) if noncontiguous else t
    return rand(shape, dtype, seed, noncontiguous)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_tril_triu_dtypes(dtype):
    x = typed((2, 4, 5), dtype, 1, noncontiguous=True)
    for k in (-5, -1, 0, 2, 7):
        for fn, ref in ((tl.tril, np.tril), (tl.triu, np.triu)):
            r = fn(x, k)
            assert r.dtype == x.dtype and r.is_contiguous()
            np.testing.assert_array_equal(f64(r), ref(f64(x), k))
    y = typed((2, 4, 5), dtype, 2, noncontiguous=True)
    expected = np.triu(f64(y), -1)
    assert y.triu_(-1) is y and not y.is_contiguous()
    np.testing.assert_array_equal(f64(y), expected)


def test_tril_triu_shapes_and_out():
    x = rand((3, 2), "float64")
    np.testing.assert_array_equal(f64(x.tril()), np.tril(f64(x)))
    assert tuple(tl.tril(tl.ones(0, 3)).shape) == (0, 3) and tuple(tl.triu(tl.ones(2, 0, 3)).shape) == (2, 0, 3)
    out = tl.empty(1)
    assert tl.triu(tl.ones(3, 3), 1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.triu(np.ones((3, 3)), 1))
    w = rand((5, 6), "float32", 3)
    v = tl._slice(w, 1, None, None, 2)  # a strided in-place target: the base changes only in the view
    before = f64(w)
    v.tril_()
    expected = before.copy()
    expected[:, ::2] = np.tril(before[:, ::2])
    np.testing.assert_array_equal(f64(w), expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_diag_dtypes(dtype):
    v = typed((4,), dtype, 1)
    m = typed((3, 5), dtype, 2, noncontiguous=True)
    for k in (-6, -2, 0, 1, 5):
        r = tl.diag(v, k)
        assert r.dtype == v.dtype
        np.testing.assert_array_equal(f64(r), np.diag(f64(v), k))
        d = tl.diag(m, k)
        assert d.dtype == m.dtype and d._base is None  # a copy, not a view
        np.testing.assert_array_equal(f64(d), np.diag(f64(m), k))
    assert tuple(tl.diag(tl.ones(0)).shape) == (0, 0)
    out = tl.empty(2, dtype=v.dtype)
    assert tl.diag(v, out=out) is out and tuple(out.shape) == (4, 4)


@pytest.mark.parametrize("offset,dim1,dim2", [(0, -2, -1), (1, 0, 2), (-2, 2, 0), (0, -1, 1), (3, 1, 0)])
def test_diag_embed(offset, dim1, dim2):
    x = rand((2, 3), "float64", 4)
    nd = 3
    n = abs(offset) + 3
    ref = np.zeros((2, n, n))
    for b in range(2):
        ref[b] = np.diag(f64(x)[b], offset)
    ref = np.moveaxis(ref, (1, 2), (dim1 % nd, dim2 % nd))
    np.testing.assert_array_equal(f64(tl.diag_embed(x, offset, dim1, dim2)), ref)
    np.testing.assert_array_equal(f64(x.diag_embed(offset=offset, dim1=dim1, dim2=dim2)), ref)
    b = tl.tensor([True, False])
    assert tl.diag_embed(b).tolist() == [[True, False], [False, False]]


def test_trace():
    m = rand((3, 5), "float32", 5, noncontiguous=True)
    check(tl.trace(m), np.trace(f64(m)), "float32")
    i = rand((4, 4), "int8", 6)
    r = tl.trace(i)
    assert r.dtype == tl.int64 and r.item() == int(np.trace(f64(i)))  # integral traces sum to int64 (torch)
    assert tl.trace(rand((2, 2), "float16")).dtype == tl.float16
    assert tl.trace(tl.ones(0, 3)).item() == 0.0
    assert m.trace().item() == pytest.approx(float(np.trace(f64(m))), rel=1e-6)


# ------------------------------------------------------------------------------------------ einsum, tensordot, kron
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),              # implicit output: labels seen once, in order
    ("ba,ab", [(2, 3), (3, 2)]),              # implicit: nothing left, a full contraction
    ("ii->i", [(3, 3)]),                      # repeated index: diagonal
    ("ii", [(3, 3)]),                         # trace
    ("iij->j", [(2, 2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    ("i...,i->...", [(3, 2, 2), (3,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("i,i", [(3,), (3,)]),
    ("ijk->", [(2, 3, 4)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 5)]),
    ("Ab,ba->A", [(2, 3), (3, 2)]),           # upper-case labels
    ("i,j,k", [(2,), (3,), (1,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij,ij->ij", [(2, 1), (1, 3)]),           # size-1 dims broadcast
    ("ij,kj->ik", [(2, 0), (3, 0)]),           # a zero-size contraction
    (" i j , j k -> i k ", [(2, 3), (3, 4)]),  # spaces are ignored
]


@pytest.mark.parametrize("equation,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_matches_numpy(equation, shapes):
    ops = [rand(s, "float64", i, noncontiguous=i == 1) for i, s in enumerate(shapes)]
    expected = np.einsum(equation.replace(" ", ""), *[f64(o) for o in ops])
    check(tl.einsum(equation, *ops), expected, "float64")
    check(tl.einsum(equation, ops), expected, "float64")  # operands as one list


def test_einsum_forms_and_dtypes():
    a, b = rand((2, 3), "float32"), rand((3, 4), "float32", 1)
    ref = f64(a) @ f64(b)
    check(tl.einsum(a, [0, 1], b, [1, 2], [0, 2]), ref, "float32")  # sublist form
    check(tl.einsum(a, [Ellipsis, 1], b, [1, 2]), ref, "float32")
    # PyTorch sums ellipsis dims that the output leaves out ("...->"), which NumPy refuses.
    check(tl.einsum("...->", a), f64(a).sum(), "float32")
    check(tl.einsum("i->i...", rand((3,))), f64(rand((3,))), "float32")
    assert tl.einsum("", tl.tensor(2.5)).item() == 2.5
    # Checked against torch.einsum: a lone sum of int32 is int64 (sum's rule), a product keeps int8; mul promotes.
    assert tl.einsum("ij->i", tl.ones(2, 3, dtype=tl.int32)).dtype == tl.int64
    assert tl.einsum("ij,jk", tl.ones(2, 3, dtype=tl.int8), tl.ones(3, 2, dtype=tl.int8)).dtype == tl.int8
    assert tl.einsum("i,j->ij", tl.ones(2), tl.ones(3, dtype=tl.float64)).dtype == tl.float64
    assert tl.einsum("i->", tl.tensor([True, True, False])).item() == 2
    assert tuple(tl.einsum("ij,jk->ik", tl.ones(0, 3), tl.ones(3, 4)).shape) == (0, 4)


@pytest.mark.parametrize("dims", [2, 0, ([1, 0], [0, 2]), [[2], [1]], "tensor_pair", "tensor_int"])
def test_tensordot(dims):
    a, b = rand((3, 4, 2), "float64"), rand((4, 2, 3), "float64", 1, noncontiguous=True)
    if dims == "tensor_pair":
        dims, np_dims = tl.tensor([[2], [1]]), ([2], [1])
    elif dims == "tensor_int":
        dims, np_dims = tl.tensor(1), 1
        b = rand((2, 4, 3), "float64", 1)
    else:
        np_dims = dims
    if isinstance(np_dims, int) and np_dims == 2:
        b = rand((4, 2, 3), "float64", 1)
        a = rand((3, 4, 2), "float64")
    expected = np.tensordot(f64(a), f64(b), np_dims)
    check(tl.tensordot(a, b, dims), expected, "float64")
    out = tl.empty(1, dtype=tl.float64)
    assert tl.tensordot(a, b, dims, out=out) is out
    check(out, expected, "float64")


def test_tensordot_size_one_dims_broadcast():
    # PyTorch sums a contracted dim of size 1 against any size (checked with torch.tensordot).
    a, b = rand((2, 1), "float64"), rand((3, 4), "float64", 1)
    check(tl.tensordot(a, b, ([1], [0])), f64(a) @ f64(b).sum(0, keepdims=True), "float64")


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 2)), ((2,), (3, 2)), ((2, 2, 1), (3,)), ((), (3,)), ((), ()),
                                   ((0, 2), (2, 3))])
def test_kron(sa, sb):
    a, b = rand(sa, "float64"), rand(sb, "float64", 1)
    check(tl.kron(a, b), np.kron(f64(a), f64(b)), "float64")
    check(a.kron(b), np.kron(f64(a), f64(b)), "float64")


def test_kron_dtypes():
    # torch.kron promotes: (float32, bool) is float32; (int64, int64) stays int64.
    r = tl.kron(tl.ones(2, 3), tl.tensor([True, False]))
    assert r.dtype == tl.float32 and tuple(r.shape) == (2, 6)
    r = tl.kron(tl.tensor([[1, 2], [3, 4]]), tl.tensor([1, 10]))
    assert r.dtype == tl.int64 and r.tolist() == [[1, 10, 2, 20], [3, 30, 4, 40]]


# ------------------------------------------------------------------ torch.linalg (issue 18)
LA_TOL = {"float32": dict(rtol=2e-4, atol=2e-4), "float64": dict(rtol=1e-10, atol=1e-10)}


def gauss(shape, dtype="float64", seed=0, shift=0.0):
    """Normal entries (shift * I added to the matrices when asked)."""
    x = np.random.default_rng([seed, *shape]).standard_normal(shape)
    if shift:
        x = x + shift * np.eye(shape[-1])
    return tl.tensor(x.astype(NP[dtype]))


def spd(shape, dtype="float64", seed=0):
    m = f64(gauss(shape, "float64", seed))
    return tl.tensor((m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(NP[dtype]))


def close(actual, expected, dtype="float64"):
    np.testing.assert_allclose(f64(actual), expected, **LA_TOL[dtype])


def test_linalg_namespace():
    for name in ("solve", "inv", "det", "slogdet", "cholesky", "qr", "eigh", "eigvalsh", "svd", "svdvals", "lstsq",
                 "lu_factor", "lu", "lu_solve", "solve_triangular", "inv_ex", "solve_ex", "cholesky_ex", "pinv",
                 "matrix_rank", "matrix_power", "matrix_exp", "norm", "vector_norm", "matrix_norm", "cond", "cross",
                 "multi_dot", "householder_product", "tensorinv", "tensorsolve", "vander", "vecdot", "diagonal"):
        assert callable(getattr(tl.linalg, name)), name
    assert not hasattr(tl.linalg, "linalg_solve")
    assert issubclass(tl.linalg.LinAlgError, RuntimeError)
    for name in ("det", "logdet", "slogdet", "inverse", "cholesky", "cholesky_solve", "cholesky_inverse", "qr", "svd",
                 "lu", "lu_solve", "lu_unpack", "triangular_solve", "pinverse", "matrix_power", "matrix_exp", "cross"):
        assert callable(getattr(tl, name)), name
    for name in ("det", "logdet", "slogdet", "inverse", "cholesky", "qr", "svd", "lu", "lu_solve", "triangular_solve",
                 "pinverse", "matrix_power", "matrix_exp", "cross", "cholesky_solve", "cholesky_inverse"):
        assert callable(getattr(tl.Tensor, name)), name


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("sa,sb,left", [((3, 3), (3, 2), True), ((2, 4, 4), (4,), True), ((2, 1, 3, 3), (4, 3, 2), True),
                                        ((3, 3), (2, 3), False), ((2, 3, 3), (2, 3), True), ((0, 3, 3), (3, 1), True)])
def test_solve_batched(dtype, sa, sb, left):
    A, B = gauss(sa, dtype, 1, shift=4), gauss(sb, dtype, 2)
    a, b = f64(A), f64(B)
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    if left:
        expected = np.linalg.solve(a, b[..., None])[..., 0] if vector else np.linalg.solve(a, b)
    else:
        expected = np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    x = tl.linalg.solve(A, B, left=left)
    assert x.dtype == A.dtype
    close(x, expected, dtype)
    r = tl.linalg.solve_ex(A, B, left=left)
    assert type(r).__name__ == "linalg_solve_ex" and r.info.dtype == tl.int32 and not r.info.any()


def test_singular_errors():
    z = tl.zeros(3, 3)
    with pytest.raises(tl.linalg.LinAlgError, match=r"^linalg.inv: The diagonal element 1 is zero, the inversion could "
                                                    r"not be completed because the input matrix is singular\.$"):
        tl.linalg.inv(z)
    with pytest.raises(RuntimeError, match=r"linalg.inv: \(Batch element 1\): The diagonal element 2 is zero"):
        tl.linalg.inv(tl.stack([tl.eye(3), tl.tensor([[1.0, 0, 0], [0, 0, 0], [0, 0, 1]])]))
    with pytest.raises(tl.linalg.LinAlgError, match="torch.linalg.solve: The solver failed because the input matrix "
                                                    "is singular."):
        tl.linalg.solve(z, tl.ones(3))
    with pytest.raises(tl.linalg.LinAlgError, match=r"linalg.cholesky: The factorization could not be completed "
                                                    r"because the input is not positive-definite \(the leading minor "
                                                    r"of order 2 is not positive-definite\)."):
        tl.linalg.cholesky(tl.tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(RuntimeError, match=r"torch.linalg.lu_factor: U\[1,1\] is zero"):
        tl.linalg.lu_factor(z)
    inv, info = tl.linalg.inv_ex(tl.stack([tl.eye(2), tl.zeros(2, 2)]))
    assert info.tolist() == [0, 1] and info.dtype == tl.int32
    with pytest.raises(tl.linalg.LinAlgError, match="linalg.inv_ex"):
        tl.linalg.inv_ex(z, check_errors=True)
    L, info = tl.linalg.cholesky_ex(-tl.eye(2))
    assert info.item() == 1
    with pytest.raises(tl.linalg.LinAlgError):
        tl.linalg.cholesky_ex(-tl.eye(2), check_errors=True)


@pytest.mark.parametrize("fn", [tl.linalg.inv, tl.linalg.det, tl.linalg.slogdet, tl.linalg.cholesky, tl.linalg.eigh,
                                tl.linalg.matrix_exp, tl.linalg.lu_factor, tl.linalg.svd, tl.linalg.qr])
def test_argument_errors(fn):
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        fn(tl.ones(3))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        fn(tl.ones(3, 3, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
        fn(tl.ones(3, 3, dtype=tl.float16))
    if fn not in (tl.linalg.lu_factor, tl.linalg.svd, tl.linalg.qr):
        with pytest.raises(RuntimeError, match="must be batches of square matrices, but they are 2 by 3 matrices"):
            fn(tl.ones(2, 3))


def test_more_argument_errors():
    with pytest.raises(RuntimeError, match=r"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                                           r"\(3x3 and 4x1\)"):
        tl.linalg.solve(tl.eye(3), tl.ones(4))
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype, but found A of type Float and B "
                                           "of type Double instead"):
        tl.linalg.solve(tl.eye(3), tl.ones(3, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="qr received unrecognized mode 'foo'"):
        tl.linalg.qr(tl.eye(3), mode="foo")
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        tl.linalg.eigh(tl.eye(3), UPLO="X")
    with pytest.raises(RuntimeError, match=r"parameter `driver` should be one of \(gels, gelsy, gelsd, gelss\)"):
        tl.linalg.lstsq(tl.ones(3, 2), tl.ones(3, 2), driver="foo")
    with pytest.raises(RuntimeError, match=r"input.size\(-2\) should match other.size\(-2\)"):
        tl.linalg.lstsq(tl.ones(3, 2), tl.ones(4, 2))
    with pytest.raises(RuntimeError, match="linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2"):
        tl.linalg.cross(tl.ones(3, 2), tl.ones(3, 2))
    with pytest.raises(RuntimeError, match="only supported on CUDA inputs"):
        tl.linalg.svd(tl.eye(3), driver="gesvd")
    with pytest.raises(TypeError):
        tl.linalg.solve_triangular(tl.eye(3), tl.ones(3, 1))  # upper is required
    with pytest.raises(RuntimeError, match="pivots must be between 1 and 3"):
        tl.linalg.lu_solve(tl.eye(3), tl.tensor([1, 2, 7], dtype=tl.int32), tl.ones(3, 1))
    with pytest.raises(RuntimeError, match="multi_dot\\(\\): expected at least 2 tensors but got 1"):
        tl.linalg.multi_dot([tl.eye(2)])


def test_det_slogdet_logdet():
    a = gauss((3, 4, 4), seed=3)
    close(tl.linalg.det(a), np.linalg.det(f64(a)))
    sign, logabs = tl.linalg.slogdet(a)
    es, el = np.linalg.slogdet(f64(a))
    close(sign, es)
    close(logabs, el)
    assert type(tl.slogdet(a)).__name__ == "slogdet" and type(tl.linalg.slogdet(a)).__name__ == "linalg_slogdet"
    sing = tl.tensor([[1.0, 2.0], [2.0, 4.0]])
    assert tl.linalg.det(sing).item() == 0
    assert tl.linalg.slogdet(sing).sign.item() == 0 and tl.linalg.slogdet(sing).logabsdet.item() == -np.inf
    assert np.isnan(tl.logdet(-tl.eye(3)).item()) and tl.logdet(sing).item() == -np.inf
    close(tl.logdet(2 * tl.eye(3, dtype=tl.float64)), np.log(8.0))
    assert tl.det(tl.eye(0)).item() == 1.0


def test_det_gradient_at_a_singular_matrix():
    # d det(A) / dA is the cofactor matrix, finite where A is singular (rank n - 1 here)
    a = tl.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=tl.float64, requires_grad=True)
    tl.linalg.det(a).backward()
    m = f64(a.detach())
    cof = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(m, i, 0), j, 1)) for j in range(3)]
                    for i in range(3)])
    close(a.grad, cof)


@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_qr_modes(mode, shape):
    A = gauss(shape, seed=4)
    Q, R = tl.linalg.qr(A, mode=mode)
    m, n = shape[-2:]
    k = min(m, n)
    rows = m if mode == "complete" else k
    assert tuple(R.shape) == shape[:-2] + (rows, n)
    assert np.allclose(np.tril(f64(R), -1), 0)
    if mode == "r":
        assert tuple(Q.shape) == (0,)
        return
    assert tuple(Q.shape) == shape[:-2] + (m, rows)
    close(Q @ R, f64(A))
    close(Q.mT @ Q, np.broadcast_to(np.eye(rows), shape[:-2] + (rows, rows)))
    _, Rnp = np.linalg.qr(f64(A), mode="complete" if mode == "complete" else "reduced")
    close(abs(R), np.abs(Rnp))


def test_qr_old_name():
    A = gauss((4, 3), seed=5)
    Q, R = tl.qr(A, some=False)
    assert tuple(Q.shape) == (4, 4) and tuple(R.shape) == (4, 3)
    assert type(A.qr()).__name__ == "qr"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigh_uplo_and_batching(dtype):
    m = f64(gauss((2, 5, 5), seed=6))
    L, V = tl.linalg.eigh(tl.tensor(m.astype(NP[dtype])), UPLO="U")  # only the upper triangle is read
    sym = np.triu(m) + np.swapaxes(np.triu(m, 1), -1, -2)
    w, _ = np.linalg.eigh(sym)
    close(L, w, dtype)
    close(V @ tl.diag_embed(L) @ V.mT, sym, dtype)
    close(tl.linalg.eigvalsh(tl.tensor(m.astype(NP[dtype]))), np.linalg.eigvalsh(m), dtype)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3), (0, 3), (3, 0)])
def test_svd_shapes_and_old_svd(shape):
    A = gauss(shape, seed=7)
    m, n = shape[-2:]
    k = min(m, n)
    U, S, Vh = tl.linalg.svd(A)
    assert tuple(U.shape) == shape[:-2] + (m, m) and tuple(Vh.shape) == shape[:-2] + (n, n)
    U, S, Vh = tl.linalg.svd(A, full_matrices=False)
    assert tuple(U.shape) == shape[:-2] + (m, k) and tuple(S.shape) == shape[:-2] + (k,)
    close(S, np.linalg.svd(f64(A), compute_uv=False) if k else np.zeros(shape[:-2] + (0,)))
    close((U * S.unsqueeze(-2)) @ Vh, f64(A))
    close(tl.linalg.svdvals(A), f64(S))
    u, s, v = tl.svd(A)
    close((u * s.unsqueeze(-2)) @ v.mT, f64(A))  # torch.svd returns V, not Vh
    u, s, v = tl.svd(A, compute_uv=False)
    assert tuple(u.shape) == shape[:-2] + (m, m) and not u.any() and not v.any()


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_drivers(driver):
    A, B = gauss((2, 6, 3), seed=8), gauss((2, 6, 2), seed=9)
    r = tl.linalg.lstsq(A, B, driver=driver)
    assert type(r).__name__ == "linalg_lstsq"
    x = np.linalg.lstsq(f64(A)[0], f64(B)[0], rcond=None)[0]
    close(r.solution[0], x)
    res = ((f64(A) @ f64(r.solution) - f64(B)) ** 2).sum(-2)
    if driver == "gelsy":
        assert tuple(r.residuals.shape) == (0,)
    else:
        close(r.residuals, res)
    assert (r.rank.tolist() == [3, 3] and r.rank.dtype == tl.int64) if driver != "gels" else r.rank.numel() == 0
    if driver in ("gelsd", "gelss"):
        close(r.singular_values, np.linalg.svd(f64(A), compute_uv=False))
    else:
        assert r.singular_values.numel() == 0
    # a wide system: the minimum-norm solution; a vector right side
    A, b = gauss((3, 5), seed=10), gauss((3,), seed=11)
    close(tl.linalg.lstsq(A, b, driver="gelsd").solution, np.linalg.lstsq(f64(A), f64(b), rcond=None)[0])


def test_lu_family():
    A = gauss((2, 4, 4), seed=12)
    LU, piv = tl.linalg.lu_factor(A)
    assert piv.dtype == tl.int32 and tuple(piv.shape) == (2, 4)
    P, L, U = tl.lu_unpack(LU, piv)
    close(P @ L @ U, f64(A))
    P2, L2, U2 = tl.linalg.lu(A)
    close(P2, f64(P))
    close(L2, f64(L))
    B = gauss((2, 4, 3), seed=13)
    a, b = f64(A), f64(B)
    close(tl.linalg.lu_solve(LU, piv, B), np.linalg.solve(a, b))
    close(tl.linalg.lu_solve(LU, piv, B, adjoint=True), np.linalg.solve(np.swapaxes(a, -1, -2), b))
    C = gauss((2, 3, 4), seed=14)
    close(tl.linalg.lu_solve(LU, piv, C, left=False), np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2),
                                                                                  np.swapaxes(f64(C), -1, -2)), -1, -2))
    close(tl.lu_solve(B, LU, piv), np.linalg.solve(a, b))
    # torch.lu and Tensor.lu
    LU3, piv3 = tl.lu(A)
    close(LU3, f64(LU))
    LU4, piv4, infos = A.lu(get_infos=True)
    assert infos.tolist() == [0, 0]
    # rectangular
    R = gauss((3, 5), seed=15)
    P, L, U = tl.linalg.lu(R)
    assert tuple(L.shape) == (3, 3) and tuple(U.shape) == (3, 5)
    close(P @ L @ U, f64(R))


@pytest.mark.parametrize("upper,left,unit", [(True, True, False), (False, False, True), (False, True, False)])
def test_solve_triangular(upper, left, unit):
    A, B = gauss((2, 3, 3), seed=16, shift=3), gauss((3, 3), seed=17)
    t = np.triu(f64(A)) if upper else np.tril(f64(A))
    if unit:
        t = t * (1 - np.eye(3)) + np.eye(3)  # the diagonal is taken as ones, whatever A holds
    x = tl.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)
    expected = np.linalg.solve(t, f64(B)) if left else np.swapaxes(
        np.linalg.solve(np.swapaxes(t, -1, -2), f64(B).T), -1, -2)
    close(x, expected)
    sol, coeff = tl.triangular_solve(B, A[0], upper=upper)
    close(sol, np.linalg.solve(np.triu(f64(A)[0]) if upper else np.tril(f64(A)[0]), f64(B)))
    close(coeff, f64(A)[0])


def test_cholesky_family():
    A = spd((2, 4, 4), seed=18)
    L = tl.linalg.cholesky(A)
    close(L, np.linalg.cholesky(f64(A)))
    U = tl.linalg.cholesky(A, upper=True)
    close(U, np.swapaxes(f64(L), -1, -2))
    B = gauss((2, 4, 2), seed=19)
    close(tl.cholesky_solve(B, L), np.linalg.solve(f64(A), f64(B)))
    close(tl.cholesky_solve(B, U, upper=True), np.linalg.solve(f64(A), f64(B)))
    close(tl.cholesky_inverse(L[0]), np.linalg.inv(f64(A)[0]))
    close(tl.cholesky(A), f64(L))


@pytest.mark.parametrize("ord", [1, -1, 2, -2, float("inf"), -float("inf"), "fro", "nuc"])
def test_matrix_norm_and_cond(ord):
    A = gauss((2, 3, 3), seed=20, shift=1)
    a = f64(A)
    close(tl.linalg.matrix_norm(A, ord), np.linalg.norm(a, ord, axis=(-2, -1)))
    close(tl.linalg.matrix_norm(A, ord, dim=(0, 2), keepdim=True),
          np.linalg.norm(a, ord, axis=(0, 2), keepdims=True))
    close(tl.linalg.norm(A[0], ord), np.linalg.norm(a[0], ord))
    close(tl.linalg.cond(A, ord), np.linalg.cond(a, ord))


def test_vector_norm_and_norm():
    x = gauss((3, 4), seed=21)
    close(tl.linalg.vector_norm(x), np.linalg.norm(f64(x).ravel()))
    close(tl.linalg.vector_norm(x, 1, dim=0), np.linalg.norm(f64(x), 1, axis=0))
    close(tl.linalg.norm(x), np.linalg.norm(f64(x)))
    close(tl.linalg.norm(x, dim=1), np.linalg.norm(f64(x), axis=1))
    close(tl.norm(x, "nuc"), np.linalg.norm(f64(x), "nuc"))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        tl.linalg.vector_norm(tl.ones(3, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: Order 3 not supported."):
        tl.linalg.matrix_norm(x, 3)


def test_forward_mode_of_the_lapack_ops():
    # jvp formulas of inv, det (a singular matrix too), slogdet, solve (vector and matrix right-hand sides, left
    # and right), solve_triangular (every flag), cholesky (lower, upper), eigh (both triangles) and the composites
    # on them (eigvalsh computes the eigenvectors when A carries a tangent), against finite differences
    gen = np.random.default_rng(8)

    def t(*shape):
        return tl.tensor(gen.standard_normal(shape)).requires_grad_()

    def fwd(f, *xs):
        return tl.autograd.gradcheck(f, xs, check_forward_ad=True, check_backward_ad=False)

    eye = tl.eye(3, dtype=tl.float64)
    A, b, B, Bl = t(2, 3, 3), t(2, 3), t(2, 3, 2), t(2, 2, 3)
    well = lambda A: A + 3 * eye  # noqa: E731
    assert fwd(lambda A: tl.linalg.inv(well(A)), A)
    assert fwd(lambda A: tl.linalg.det(A), A)
    assert fwd(lambda A: tl.linalg.det(A), tl.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=tl.float64).requires_grad_())
    assert fwd(lambda A: tl.linalg.slogdet(well(A))[1], A)
    for left, rhs in ((True, b), (True, B), (False, b), (False, Bl)):
        assert fwd(lambda A, r: tl.linalg.solve(well(A), r, left=left), A, rhs)
    for upper in (True, False):
        for left in (True, False):
            for unit in (True, False):
                assert fwd(lambda A, r: tl.linalg.solve_triangular(well(A), r, upper=upper, left=left,
                                                                   unitriangular=unit), A, B if left else Bl)
    spd = lambda A: A @ A.mT + 3 * eye  # noqa: E731
    for upper in (True, False):
        assert fwd(lambda A: tl.linalg.cholesky(spd(A), upper=upper), A)
    for uplo in ("L", "U"):
        assert fwd(lambda A: tl.linalg.eigh(A + A.mT, UPLO=uplo), A)
    assert fwd(lambda A: tl.linalg.eigvalsh(A + A.mT), A)
    # svd (tall and wide, reduced and full: PyTorch's zero tangents for the extra columns), qr (tall, wide, a
    # complete square one), lu_factor, lstsq (tall and wide, vector right-hand sides too)
    tall, wide = t(2, 4, 3), t(3, 5)
    for M in (tall, wide):
        assert fwd(lambda M: tl.linalg.svd(M, full_matrices=False), M)
        assert fwd(lambda M: tl.linalg.svdvals(M), M)
        assert fwd(lambda M: tl.linalg.qr(M), M)
    U, S, Vh = tl.linalg.svd(tall.detach())
    with tl.autograd.forward_ad.dual_level():
        dual = tl.autograd.forward_ad.make_dual(tall.detach(), tl.ones(2, 4, 3, dtype=tl.float64))
        dU = tl.autograd.forward_ad.unpack_dual(tl.linalg.svd(dual).U).tangent
        assert tuple(dU.shape) == (2, 4, 4) and dU[..., 3].abs().sum().item() == 0
    assert fwd(lambda A: tl.linalg.qr(A, mode="complete"), A)
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"):
        fwd(lambda M: tl.linalg.qr(M, mode="complete"), tall)
    assert fwd(lambda A: tl.linalg.lu_factor(well(A)).LU, A)
    assert fwd(lambda A: tl.linalg.lu(well(A))[1:], A)
    for M, rhs in ((tall, t(2, 4, 2)), (wide, t(3)), (wide, t(3, 2))):
        assert fwd(lambda M, r: tl.linalg.lstsq(M, r).solution, M, rhs)


def test_pinv_and_matrix_rank_take_tolerance_tensors():
    # atol and rtol as tensors broadcast over the batch: one tolerance per matrix (and a 2-D atol against a 1-D
    # batch broadcasts the result to 2-D), checked matrix by matrix with float tolerances; PyTorch where installed
    rng = np.random.default_rng(7)
    A = rng.standard_normal((3, 4, 5))
    A[1] = A[1][:, :1] @ rng.standard_normal((1, 5))  # rank 1
    s = np.linalg.svd(A, compute_uv=False)
    atol = np.array([(s[0, 1] + s[0, 2]) / 2, 0.0, s[2, 0] + 1.0])
    rank = tl.linalg.matrix_rank(tl.tensor(A), atol=tl.tensor(atol))
    assert rank.tolist() == [2, 1, 0]
    for i in range(3):
        assert rank[i].item() == tl.linalg.matrix_rank(tl.tensor(A[i]), atol=float(atol[i])).item()
        close(tl.linalg.pinv(tl.tensor(A), atol=tl.tensor(atol))[i], tl.linalg.pinv(tl.tensor(A[i]), atol=float(atol[i])))
    rtol = tl.tensor([0.0, 0.5, 0.9])
    assert tl.linalg.matrix_rank(tl.tensor(A), rtol=rtol).tolist() == [int((s[i] > r * s[i, 0]).sum())
                                                                      for i, r in enumerate([0.0, 0.5, 0.9])]
    assert tl.linalg.matrix_rank(tl.tensor(A), atol=tl.tensor([[100.0], [0.0]])).shape == (2, 3)
    try:
        import torch
    except ImportError:
        return
    for kw in (dict(atol=atol), dict(rtol=[0.0, 0.5, 0.9]), dict(atol=[0.0, 0.0, 2.0], rtol=[0.1, 0.1, 0.1])):
        for herm in (False, True):
            M = A[..., :4] @ np.swapaxes(A[..., :4], -1, -2) if herm else A
            ours = {k: tl.tensor(v) for k, v in kw.items()}
            theirs = {k: torch.tensor(v) for k, v in kw.items()}
            assert (tl.linalg.matrix_rank(tl.tensor(M), hermitian=herm, **ours).tolist()
                    == torch.linalg.matrix_rank(torch.tensor(M), hermitian=herm, **theirs).tolist())
            close(tl.linalg.pinv(tl.tensor(M), hermitian=herm, **ours),
                  torch.linalg.pinv(torch.tensor(M), hermitian=herm, **theirs).numpy())


def test_pinv_rank_power_exp():
    A = gauss((2, 5, 3), seed=22)
    close(tl.linalg.pinv(A), np.linalg.pinv(f64(A)))
    close(tl.pinverse(A[0]), np.linalg.pinv(f64(A)[0]))
    S = f64(gauss((4, 4), seed=23))
    S = S + S.T
    close(tl.linalg.pinv(tl.tensor(S), hermitian=True), np.linalg.pinv(S, hermitian=True))
    low = tl.tensor(np.outer([1.0, 2, 3], [1.0, 0, 1]) + np.outer([0.0, 1, 0], [2.0, 1, 0]))
    assert tl.linalg.matrix_rank(low).item() == 2 and tl.linalg.matrix_rank(low).dtype == tl.int64
    assert tl.linalg.matrix_rank(low, hermitian=False, atol=10.0).item() == 0
    M = gauss((3, 3), seed=24, shift=2)
    close(tl.linalg.matrix_power(M, 5), np.linalg.matrix_power(f64(M), 5))
    close(tl.linalg.matrix_power(M, -3), np.linalg.matrix_power(f64(M), -3))
    close(tl.matrix_power(M, 0), np.eye(3))
    assert tl.linalg.matrix_power(tl.tensor([[1, 1], [0, 1]]), 3).tolist() == [[1, 3], [0, 1]]
    # exp of a nilpotent matrix is a finite series; a rotation generator gives cos and sin; a large norm squares
    N = tl.tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]], dtype=tl.float64)
    close(tl.linalg.matrix_exp(N), np.eye(3) + f64(N) + f64(N) @ f64(N) / 2)
    t = 7.0
    G = tl.tensor([[0.0, -t], [t, 0.0]], dtype=tl.float64)
    close(tl.matrix_exp(G), np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]))
    close(tl.linalg.matrix_exp(tl.tensor([[[2.0]], [[-1.0]]], dtype=tl.float64)), np.exp([[[2.0]], [[-1.0]]]))


def test_products_and_shapes():
    a, b = gauss((4, 3), seed=25), gauss((1, 3), seed=26)
    close(tl.linalg.cross(a, b), np.cross(f64(a), f64(b)))
    close(tl.cross(a.T, b.expand(4, 3).T), np.cross(f64(a).T, np.broadcast_to(f64(b), (4, 3)).T, axis=0))
    ms = [gauss((2,), seed=27), gauss((2, 5), seed=28), gauss((5, 3), seed=29), gauss((3,), seed=30)]
    close(tl.linalg.multi_dot(ms), np.linalg.multi_dot([f64(m) for m in ms]))
    T = tl.tensor((f64(gauss((6, 6), seed=31)) + 3 * np.eye(6)).reshape(2, 3, 6))
    close(tl.linalg.tensorinv(T, ind=2), np.linalg.tensorinv(f64(T), 2))
    A = tl.tensor((f64(gauss((6, 6), seed=32)) + 4 * np.eye(6)).reshape(2, 3, 6))
    B = gauss((2, 3), seed=33)
    close(tl.linalg.tensorsolve(A, B), np.linalg.tensorsolve(f64(A), f64(B)))
    A2 = tl.tensor((f64(gauss((6, 6), seed=34)) + 4 * np.eye(6)).reshape(6, 2, 3)).movedim(0, 2)  # (2, 3, 6)
    close(tl.linalg.tensorsolve(A2, gauss((6,), seed=35), dims=(0, 1)),
          np.linalg.tensorsolve(f64(A2), f64(gauss((6,), seed=35)), axes=(0, 1)))
    x = tl.tensor([1, 2, 3])
    assert tl.linalg.vander(x).tolist() == np.vander([1, 2, 3], increasing=True).tolist()
    assert tl.linalg.vander(x).dtype == tl.int64 and tuple(tl.linalg.vander(x, N=5).shape) == (3, 5)
    close(tl.linalg.vecdot(a, b), (f64(a) * f64(b)).sum(-1))
    d = tl.linalg.diagonal(gauss((2, 3, 4), seed=36), offset=1)
    assert tuple(d.shape) == (2, 3)
    tau = tl.tensor([1.5, 0.3], dtype=tl.float64)
    H = gauss((4, 2), seed=37)
    v0 = np.array([1, *f64(H)[1:, 0]])
    v1 = np.array([0, 1, *f64(H)[2:, 1]])
    Q = (np.eye(4) - 1.5 * np.outer(v0, v0)) @ (np.eye(4) - 0.3 * np.outer(v1, v1))
    close(tl.linalg.householder_product(H, tau), Q[:, :2])


def test_gradients_through_decompositions():
    """Spot checks beyond the op database's (which gradchecks every op on one sample): the wide QR, an upper
    Cholesky factor, eigh's eigenvectors, svd's U and Vh on a wide matrix, lstsq on a wide system."""
    from torchlite.autograd import gradcheck
    A = gauss((3, 5), seed=38).requires_grad_()
    assert gradcheck(lambda a: tl.linalg.qr(a), (A,))
    S = spd((3, 3), seed=39)
    assert gradcheck(lambda a: tl.linalg.cholesky(a @ a.mT + 3 * tl.eye(3, dtype=tl.float64), upper=True),
                     (S.clone().requires_grad_(),))
    assert gradcheck(lambda a: tl.linalg.eigh(a + a.mT), (gauss((4, 4), seed=40).requires_grad_(),))
    assert gradcheck(lambda a: tl.linalg.svd(a, full_matrices=False), (gauss((3, 5), seed=41).requires_grad_(),))
    assert gradcheck(lambda a, b: tl.linalg.lstsq(a, b).solution,
                     (gauss((3, 5), seed=42).requires_grad_(), gauss((3, 2), seed=43).requires_grad_()))
    assert gradcheck(lambda a, b: tl.linalg.solve(a, b, left=False),
                     (gauss((3, 3), seed=44, shift=3).requires_grad_(), gauss((2, 3), seed=45).requires_grad_()))


def test_emulated_cuda_round_trip(tmp_path):
    """linalg kernels take CUDA tensors through the host (no cuSOLVER yet): on the emulated device the result
    lives on the input's device."""
    import subprocess
    import sys
    code = ("import torchlite as tl, numpy as np\n"
            "a = tl.eye(3, device='cuda') * 2\n"
            "x = tl.linalg.solve(a, tl.ones(3, device='cuda'))\n"
            "assert x.device.type == 'cuda' and x.cpu().tolist() == [0.5, 0.5, 0.5]\n"
            "L, V = tl.linalg.eigh(a)\n"
            "assert L.device.type == 'cuda'\n"
            "print('ok')\n")
    env = dict(__import__("os").environ, TORCHLITE_EMULATE_CUDA="1")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                       cwd=tmp_path)  # away from the repository root, whose torchlite/ has no _C
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr[-2000:]


def test_against_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is an optional oracle")
    A = gauss((2, 4, 4), seed=46, shift=2)
    tA = torch.tensor(f64(A))
    B = gauss((2, 4, 3), seed=47)
    tB = torch.tensor(f64(B))
    close(tl.linalg.solve(A, B), torch.linalg.solve(tA, tB).numpy())
    close(tl.linalg.inv(A), torch.linalg.inv(tA).numpy())
    Q, R = tl.linalg.qr(A)
    tQ, tR = torch.linalg.qr(tA)
    close(Q, tQ.numpy())
    close(R, tR.numpy())
    LU, piv = tl.linalg.lu_factor(A)
    tLU, tpiv = torch.linalg.lu_factor(tA)
    close(LU, tLU.numpy())
    assert piv.tolist() == tpiv.tolist()
    r, tr = tl.linalg.lstsq(A, B), torch.linalg.lstsq(tA, tB)
    close(r.solution, tr.solution.numpy())
    assert r.rank.tolist() == tr.rank.tolist() and tuple(r.residuals.shape) == tuple(tr.residuals.shape)
    for name in ("slogdet", "eigh", "svd", "lstsq", "lu_factor", "lu", "qr", "inv_ex", "cholesky_ex", "solve_ex"):
        assert f"linalg_{name}" in dir(torch.return_types) and f"linalg_{name}" in dir(tl.return_types), name
    for fn in (lambda m: m.linalg.inv(m.zeros(3, 3)), lambda m: m.linalg.cholesky(-m.eye(2))):
        with pytest.raises(torch.linalg.LinAlgError) as te:
            fn(torch)
        with pytest.raises(tl.linalg.LinAlgError) as le:
            fn(tl)
        assert str(te.value) == str(le.value)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 2), (2, 2, 4)])
@pytest.mark.parametrize("dtype", [tl.float64, tl.complex128])
def test_lu_derivatives_of_tall_and_wide_matrices(shape, dtype):
    """linalg.lu_factor / lu of m x n matrices, m != n: reverse mode (gradcheck, gradgradcheck) and forward mode,
    as PyTorch's derivatives of the trapezoidal factors."""
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dtype is tl.complex128 else 0)
    A = tl.tensor(a, dtype=dtype, requires_grad=True)
    assert tl.autograd.gradcheck(lambda m: tl.linalg.lu_factor(m).LU, (A,))
    assert tl.autograd.gradcheck(lambda m: tl.linalg.lu(m)[1:], (A,))
    assert tl.autograd.gradgradcheck(lambda m: tl.linalg.lu(m)[1:], (A,))
    if dtype is tl.float64:  # forward mode takes real tangents
        assert tl.autograd.gradcheck(lambda m: tl.linalg.lu_factor(m).LU, (A,), check_forward_ad=True,
                                     check_backward_ad=False)
    torch = pytest.importorskip("torch")
    t = torch.tensor(a, requires_grad=True)
    P, L, U = torch.linalg.lu(t)
    ((L * L.conj()).real.sum() + (U.sin() * U).real.sum()).backward()
    P, L, U = tl.linalg.lu(A)
    ((L * L.conj()).real.sum() + (U.sin() * U).real.sum()).backward()
    np.testing.assert_allclose(A.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
