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
