"""complex64/complex128 and uint16/uint32/uint64 (issue 18): the dtypes, their promotion, creation, casts,
printing, NumPy/DLPack/pickle interop, the dtype-changing views, real/imag/conj/complex/polar, and the ops that
list them. Expected values are NumPy's, or PyTorch 2.13's results written out (promotion, messages, printing);
test_complex_matches_torch compares with PyTorch itself where it is installed."""
import io
import pickle

import numpy as np
import pytest
from test_cuda_emulated import run_emulated

import torchlite as tl

NEW_DTYPES = [tl.uint16, tl.uint32, tl.uint64, tl.complex64, tl.complex128]


def rng():
    return np.random.default_rng(1234)


def crandn(shape, dtype=np.complex64, seed=0):
    g = np.random.default_rng(seed)
    return (g.standard_normal(shape) + 1j * g.standard_normal(shape)).astype(dtype)


# ------------------------------------------------------------------------------------------ dtypes
@pytest.mark.parametrize("dtype,name,size,is_complex,is_signed", [
    (tl.uint16, "uint16", 2, False, False), (tl.uint32, "uint32", 4, False, False),
    (tl.uint64, "uint64", 8, False, False), (tl.complex64, "complex64", 8, True, True),
    (tl.complex128, "complex128", 16, True, True), (tl.float32, "float32", 4, False, True),
])
def test_dtype_objects(dtype, name, size, is_complex, is_signed):
    assert repr(dtype) == f"torchlite.{name}" and dtype.itemsize == size
    assert dtype.is_complex is is_complex and dtype.is_signed is is_signed and not (is_complex and dtype.is_floating_point)
    assert pickle.loads(pickle.dumps(dtype)) is dtype


def test_dtype_aliases_and_conversions():
    assert tl.cfloat is tl.complex64 and tl.cdouble is tl.complex128
    assert tl.complex64.to_real() is tl.float32 and tl.complex128.to_real() is tl.float64
    assert tl.float64.to_complex() is tl.complex128 and tl.float32.to_complex() is tl.complex64
    assert tl.int32.to_real() is tl.int32
    with pytest.raises(RuntimeError, match="to_complex"):
        tl.int32.to_complex()


@pytest.mark.parametrize("a,b,expected", [  # PyTorch 2.13's promote_types
    (tl.complex64, tl.float64, tl.complex128), (tl.complex64, tl.float16, tl.complex64),
    (tl.complex64, tl.int64, tl.complex64), (tl.complex64, tl.bool, tl.complex64),
    (tl.complex64, tl.bfloat16, tl.complex64), (tl.complex128, tl.float32, tl.complex128),
    (tl.complex64, tl.complex128, tl.complex128), (tl.uint16, tl.float16, tl.float16),
    (tl.uint32, tl.float32, tl.float32), (tl.uint64, tl.bfloat16, tl.bfloat16), (tl.uint16, tl.uint16, tl.uint16),
])
def test_promote_types(a, b, expected):
    assert tl.promote_types(a, b) is expected and tl.promote_types(b, a) is expected


@pytest.mark.parametrize("a,b", [(tl.uint16, tl.int64), (tl.uint32, tl.uint8), (tl.uint64, tl.bool),
                                 (tl.uint16, tl.uint32), (tl.uint16, tl.complex64)])
def test_promote_unsigned_with_integers_raises(a, b):
    with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
        tl.promote_types(a, b)


def test_can_cast():
    assert not tl.can_cast(tl.complex64, tl.float64) and tl.can_cast(tl.complex64, tl.complex128)
    assert tl.can_cast(tl.float32, tl.complex64) and not tl.can_cast(tl.float32, tl.uint16)
    assert tl.can_cast(tl.int64, tl.uint64)


@pytest.mark.parametrize("expr,dtype", [  # PyTorch 2.13's result dtypes (torchlite has no complex32: float16 + 1j)
    ("tl.ones(2) + 1j", tl.complex64), ("tl.ones(2, dtype=tl.float64) + 1j", tl.complex128),
    ("tl.ones(2, dtype=tl.int64) + 1j", tl.complex64), ("tl.ones(2, dtype=tl.float16) + 1j", tl.complex64),
    ("tl.ones(2, dtype=tl.complex64) + tl.ones(2, dtype=tl.float64)", tl.complex128),
    ("tl.ones(2, dtype=tl.complex64) * tl.tensor(2.0, dtype=tl.float64)", tl.complex64),
    ("tl.ones(2, dtype=tl.complex64) + 1", tl.complex64), ("tl.ones(2) * tl.tensor(1j)", tl.complex64),
    ("tl.ones(2, dtype=tl.uint16) * 3", tl.uint16), ("tl.ones(2, dtype=tl.uint32) / 2", tl.float32),
])
def test_result_dtype(expr, dtype):
    assert eval(expr).dtype is dtype


def test_python_complex_follows_the_default_dtype():
    tl.set_default_dtype(tl.float64)
    try:
        assert (tl.ones(2, dtype=tl.int32) + 1j).dtype is tl.complex128
        assert tl.tensor([1j]).dtype is tl.complex128
    finally:
        tl.set_default_dtype(tl.float32)


# ------------------------------------------------------------------------------------------ creation
def test_tensor_from_python_complex():
    t = tl.tensor([1 + 2j, 3])
    assert t.dtype is tl.complex64 and t.tolist() == [1 + 2j, 3 + 0j]
    assert tl.tensor(1j, dtype=tl.complex128).item() == 1j
    assert tl.tensor([[1, 2.5], [1j, True]]).dtype is tl.complex64
    with pytest.raises(TypeError, match="must be real number, not complex"):
        tl.tensor([1 + 2j, 3], dtype=tl.float32)


@pytest.mark.parametrize("np_dtype", [np.complex64, np.complex128, np.uint16, np.uint32, np.uint64])
def test_numpy_round_trip(np_dtype):
    a = (rng().standard_normal((3, 4)) * 100).astype(np_dtype) if np.dtype(np_dtype).kind == "c" else \
        rng().integers(0, np.iinfo(np_dtype).max, (3, 4), dtype=np_dtype, endpoint=True)
    if np.dtype(np_dtype).kind == "c":
        a = a + 1j * a[::-1]
    t = tl.tensor(a)
    assert str(t.dtype) == f"torchlite.{np.dtype(np_dtype).name}"
    np.testing.assert_array_equal(t.numpy(), a)
    shared = tl.from_numpy(a)
    a[0, 0] = 7
    assert shared[0, 0].item() == 7 and tl.as_tensor(a).numpy().dtype == a.dtype
    np.testing.assert_array_equal(tl.tensor(a[:, 1:3]).numpy(), a[:, 1:3])  # a strided array


def test_uint64_values_past_int64():
    big = 2 ** 64 - 1
    t = tl.tensor([1, big], dtype=tl.uint64)
    assert t.tolist() == [1, big] and t[1].item() == big
    assert tl.tensor([-1], dtype=tl.uint64).item() == big  # wraps, as PyTorch
    assert tl.full((2,), -1, dtype=tl.uint64).tolist() == [big, big]
    with pytest.raises(ValueError, match="Overflow"):
        tl.tensor([1, 2 ** 63])  # no dtype: int64, as PyTorch


def test_factories():
    assert tl.zeros(2, dtype=tl.complex64).tolist() == [0j, 0j]
    assert tl.ones(2, 1, dtype=tl.complex128).tolist() == [[1 + 0j], [1 + 0j]]
    f = tl.full((2,), 1 + 2j)
    assert f.dtype is tl.complex64 and f.tolist() == [1 + 2j, 1 + 2j]
    assert tl.full((1,), 7, dtype=tl.uint32).tolist() == [7] and tl.empty(3, dtype=tl.uint16).shape == (3,)
    assert tl.zeros_like(f).tolist() == [0j, 0j] and tl.ones_like(f).dtype is tl.complex64
    x = tl.zeros(3, dtype=tl.complex64)
    x.fill_(2 - 1j)
    assert x.tolist() == [2 - 1j] * 3


@pytest.mark.parametrize("dtype,value,cpp", [
    (tl.float32, 1j, "float"), (tl.int32, 1j, "int"), (tl.complex64, 1e300, "c10::complex<float>"),
    (tl.uint16, 70000, "uint16_t"), (tl.uint32, -2 ** 40, "uint32_t"),
])
def test_fill_refuses_values_that_do_not_fit(dtype, value, cpp):  # PyTorch's checked conversion
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {cpp} without overflow|"
                                           f"cannot be converted to type {cpp} without overflow"):
        tl.zeros(2, dtype=dtype).fill_(value)


# ------------------------------------------------------------------------------------------ casts
def test_casts():
    c = tl.tensor([1 + 2j, -3.5 + 0j, 0j])
    np.testing.assert_array_equal(c.to(tl.float32).numpy(), [1, -3.5, 0])  # the real part, as PyTorch
    assert c.to(tl.bool).tolist() == [True, True, False] and c.to(tl.int32).tolist() == [1, -3, 0]
    assert c.to(tl.complex128).dtype is tl.complex128 and c.to(tl.complex128).tolist() == c.tolist()
    f = tl.tensor([1.5, -2.0])
    assert f.to(tl.complex64).tolist() == [1.5 + 0j, -2 + 0j] and f.cdouble().dtype is tl.complex128
    u = tl.tensor([1, 65535], dtype=tl.uint16)
    assert u.to(tl.float32).tolist() == [1.0, 65535.0] and u.to(tl.int64).tolist() == [1, 65535]
    assert tl.tensor([3.7, 300.0]).to(tl.uint16).tolist() == [3, 300]
    assert tl.tensor([70000]).to(tl.uint16).item() == 70000 % 65536  # integers wrap, as PyTorch
    nc = tl.ones(4, 3, dtype=tl.complex128).t()  # a transposing copy
    np.testing.assert_array_equal(nc.contiguous().numpy(), np.ones((3, 4), np.complex128))
    assert c.type() == "torchlite.ComplexFloatTensor" and u.type() == "torchlite.UInt16Tensor"


# ------------------------------------------------------------------------------------------ printing
@pytest.mark.parametrize("make,text", [  # PyTorch 2.13's output, with its name
    (lambda: tl.tensor([1 + 2j, 3]), "tensor([1.+2.j, 3.+0.j])"),
    (lambda: tl.tensor([1.5, -2]).to(tl.complex64), "tensor([ 1.5000+0.j, -2.0000+0.j])"),
    (lambda: tl.tensor(1 + 2j), "tensor(1.+2.j)"),
    (lambda: tl.tensor([1 - 2.25j], dtype=tl.complex128), "tensor([1.-2.2500j], dtype=torchlite.complex128)"),
    (lambda: tl.tensor([-0.0 - 0.0j, 1e10 + 1j]), "tensor([-0.0000e+00+0.j, 1.0000e+10+1.j])"),
    (lambda: tl.complex(tl.tensor([-0.0]), tl.tensor([-0.0])), "tensor([-0.-0.j])"),
    (lambda: tl.tensor([1, 2], dtype=tl.uint16), "tensor([1, 2], dtype=torchlite.uint16)"),
    (lambda: tl.tensor([2 ** 64 - 1], dtype=tl.uint64), "tensor([18446744073709551615], dtype=torchlite.uint64)"),
    (lambda: tl.tensor([], dtype=tl.complex64), "tensor([], dtype=torchlite.complex64)"),
])
def test_printing(make, text):
    assert repr(make()) == text


# ------------------------------------------------------------------------------------------ views
def test_view_dtype():
    a = rng().standard_normal((2, 4)).astype(np.float32)
    t = tl.tensor(a)
    for dtype, np_dtype in [(tl.float64, np.float64), (tl.float16, np.float16), (tl.int32, np.int32),
                            (tl.complex64, np.complex64), (tl.uint16, np.uint16), (tl.uint8, np.uint8)]:
        v = t.view(dtype)
        np.testing.assert_array_equal(v.numpy(), a.view(np_dtype))
        assert v._base is t or v._base is t._base
    sliced = tl.ones(3, 4)[:, :2].view(tl.float64)
    assert sliced.shape == (3, 1) and sliced.stride() == (2, 1)
    w = tl.zeros(4)
    w.view(tl.int32)[1] = 1065353216  # the bits of 1.0f: writes reach the base
    assert w.tolist() == [0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("make,dtype,message", [  # PyTorch's messages
    (lambda: tl.ones(2, 3), tl.float64, "self.size\\(-1\\) must be divisible by 2 to view Float as Double"),
    (lambda: tl.ones(4, 3).t(), tl.float64, "self.stride\\(-1\\) must be 1 to view Float as Double"),
    (lambda: tl.ones(()), tl.int16, "self.dim\\(\\) cannot be 0 to view Float as Short"),
    (lambda: tl.ones(5)[1:], tl.float64, "must be divisible by 2 to view Float as Double"),
])
def test_view_dtype_errors(make, dtype, message):
    with pytest.raises(RuntimeError, match=message):
        make().view(dtype)


def test_view_as_real_and_complex():
    c = tl.tensor(crandn((3, 2)))
    r = tl.view_as_real(c)
    assert r.dtype is tl.float32 and r.shape == (3, 2, 2) and r.stride() == (4, 2, 1)
    np.testing.assert_array_equal(r.numpy(), np.stack([c.numpy().real, c.numpy().imag], -1))
    r[0, 0, 1] = 5.0  # a view: writes reach c
    assert c[0, 0].item().imag == 5.0
    back = tl.view_as_complex(r)
    assert back.dtype is tl.complex64 and back.tolist() == c.tolist()
    assert tl.view_as_complex(tl.ones(2, 2, dtype=tl.float64)).dtype is tl.complex128
    assert tl.view_as_complex(tl.ones(4, 2)[::2]).tolist() == [1 + 1j, 1 + 1j]
    for make, message in [(lambda: tl.view_as_real(tl.ones(2)), "only supported for complex tensors"),
                          (lambda: tl.view_as_complex(tl.ones(2, 3)), "last dimension of size 2"),
                          (lambda: tl.view_as_complex(tl.ones(3, 2).t().contiguous().t()), "last dimension with stride 1"),
                          (lambda: tl.view_as_complex(tl.ones(5)[1:].view(2, 2)), "storage_offset divisible by 2"),
                          (lambda: tl.view_as_complex(tl.ones(2, 2, dtype=tl.int32)), "scalar type: Int")]:
        with pytest.raises(RuntimeError, match=message):
            make()


def test_real_imag():
    a = crandn((2, 3))
    c = tl.tensor(a)
    np.testing.assert_array_equal(c.real.numpy(), a.real)
    np.testing.assert_array_equal(tl.imag(c).numpy(), a.imag)
    assert c.imag.stride() == (6, 2)
    c.imag[0, 0] = 9.0
    c.real = tl.zeros(2, 3)
    assert c[0, 0].item() == 9j and c[1, 2].item() == 1j * float(a.imag[1, 2])
    f = tl.ones(2)
    assert tl.real(f).tolist() == [1.0, 1.0] and tl.real(f).data_ptr() == f.data_ptr()
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        f.imag


def test_conj():
    a = crandn((4,))
    c = tl.tensor(a)
    np.testing.assert_array_equal(c.conj().resolve_conj().numpy(), a.conj())
    np.testing.assert_array_equal(tl.conj_physical(c).numpy(), a.conj())
    assert c.conj().is_conj() and c.resolve_conj() is c and not tl.conj_physical(c).is_conj()  # tests/test_conj_view.py
    out = tl.empty(4, dtype=tl.complex64)
    tl.conj_physical(c, out=out)
    np.testing.assert_array_equal(out.numpy(), a.conj())
    f = tl.tensor([1.0, -2.0])
    assert f.conj() is f and tl.conj_physical(f).tolist() == [1.0, -2.0]


def test_complex_and_polar():
    g = rng()
    re, im = g.standard_normal((3, 1)), g.standard_normal((4,))
    c = tl.complex(tl.tensor(re), tl.tensor(im))
    assert c.dtype is tl.complex128
    np.testing.assert_array_equal(c.numpy(), re + 1j * im)
    assert tl.complex(tl.ones(2), tl.zeros(2)).dtype is tl.complex64
    absv, ang = np.abs(g.standard_normal(5)).astype(np.float32), g.standard_normal(5).astype(np.float32)
    p = tl.polar(tl.tensor(absv), tl.tensor(ang))
    np.testing.assert_allclose(p.numpy(), absv * np.exp(1j * ang), rtol=1e-6, atol=1e-6)
    with pytest.raises(RuntimeError, match="Double but got scalar type Float"):
        tl.complex(tl.ones(2, dtype=tl.float64), tl.zeros(2))
    with pytest.raises(RuntimeError, match="Half, Float or Double tensors but got Long and Float"):
        tl.complex(tl.ones(2, dtype=tl.int64), tl.zeros(2))


# ------------------------------------------------------------------------------------------ ops
@pytest.mark.parametrize("np_dtype", [np.complex64, np.complex128])
def test_arithmetic_matches_numpy(np_dtype):
    a, b = crandn((3, 4), np_dtype, 1), crandn((4,), np_dtype, 2)
    x, y = tl.tensor(a), tl.tensor(b)
    tol = dict(rtol=1e-6, atol=1e-6) if np_dtype == np.complex64 else dict(rtol=1e-14, atol=1e-14)
    for got, want in [(x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b), (-x, -a),
                      (tl.add(x, y, alpha=2 - 1j), a + (2 - 1j) * b), (x * 2j, a * 2j), (1j - x, 1j - a),
                      (x / 2, a / 2), (tl.rsub(x, y), b - a), (tl.true_divide(x, y), a / b), (x * 3, a * 3)]:
        assert got.dtype is x.dtype
        np.testing.assert_allclose(got.numpy(), want.astype(np_dtype), **tol)
    z = x.clone()
    z.mul_(y).add_(1j)
    np.testing.assert_allclose(z.numpy(), a * b + 1j, **tol)
    assert ((x == x.clone()).all().item() and not (x != x).any().item())
    w = tl.where(tl.tensor([True, False, True, False]), x, y)
    np.testing.assert_array_equal(w.numpy(), np.where([True, False, True, False], a, b))


def test_division_by_zero_as_pytorch():
    q = tl.tensor([1 + 1j, 0j, 1 + 0j, -1 + 2j]) / 0
    assert [str(v) for v in q.tolist()] == ["(inf+infj)", "(nan+nanj)", "(inf+nanj)", "(-inf+infj)"]


def test_unsigned_ops():
    u = tl.tensor([1, 2, 65535], dtype=tl.uint16)
    assert (u * u).tolist() == [1, 4, 1] and (u == 2).tolist() == [False, True, False]
    assert (u / 2).tolist() == [0.5, 1.0, 32767.5]
    assert tl.where(u == 1, u, tl.zeros(3, dtype=tl.uint16)).tolist() == [1, 0, 0]
    with pytest.raises(NotImplementedError, match="'UInt16'"):
        u + u  # as PyTorch: add is not implemented for the barebones unsigned types
    with pytest.raises(RuntimeError, match="Promotion for uint16"):
        u * tl.ones(3, dtype=tl.int64)


def test_sum():
    a = crandn((5, 300), np.complex128, 3)
    x = tl.tensor(a)
    np.testing.assert_allclose(x.sum().item(), a.sum(), rtol=1e-13)
    np.testing.assert_allclose(x.sum(0).numpy(), a.sum(0), rtol=1e-13)
    np.testing.assert_allclose(x.sum(1, keepdim=True).numpy(), a.sum(1, keepdims=True), rtol=1e-13)
    np.testing.assert_allclose(x.t().sum(0).numpy(), a.sum(1), rtol=1e-13)
    np.testing.assert_allclose(tl.tensor(a.astype(np.complex64)).mean().item(), a.mean(), rtol=1e-5)
    u = tl.tensor([1, 65535], dtype=tl.uint16)
    assert u.sum().dtype is tl.int64 and u.sum().item() == 65536  # as PyTorch


UNARY_NUMPY = {  # torchlite name: NumPy's function (C99's branch cuts, as PyTorch's)
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10,
    "log1p": np.log1p, "sqrt": np.sqrt, "rsqrt": lambda a: 1 / np.sqrt(a), "reciprocal": np.reciprocal,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "square": np.square,
    "sgn": lambda a: np.where(a == 0, 0, a / np.where(a == 0, 1, np.abs(a))), "neg": np.negative,
}


@pytest.mark.parametrize("np_dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(UNARY_NUMPY))
def test_unary_math_matches_numpy(name, np_dtype):
    # Values across the branch cuts (the real axis beyond +-1, the imaginary axis beyond +-i) and near 0.
    a = np.concatenate([crandn((40,), np.complex128, 7) * 2,
                        [0j, 1e-9 + 1e-9j, -1e-12j, 2 + 0j, -2 + 0j, 0.5 - 1e-20j, 3j, -3j, 1 + 1j, -0.3 - 0.7j]])
    a = a.astype(np_dtype)
    got = getattr(tl, name)(tl.tensor(a))
    with np.errstate(all="ignore"):
        want = UNARY_NUMPY[name](a.astype(np.complex128))
    assert got.dtype is tl.tensor(a).dtype
    tol = dict(rtol=2e-5, atol=1e-6) if np_dtype == np.complex64 else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got.numpy(), want, **tol, err_msg=name)


def test_log1p_and_expm1_keep_small_values():  # where log(1 + z) and exp(z) - 1 lose every digit
    z = tl.tensor([1e-10 + 1e-10j, -1e-12 + 3e-12j], dtype=tl.complex128)
    np.testing.assert_allclose(tl.log1p(z).numpy(), [1e-10 + 1e-10j, -1e-12 + 3e-12j], rtol=1e-9)
    np.testing.assert_allclose(tl.expm1(z).numpy(), [1e-10 + 1e-10j, -1e-12 + 3e-12j], rtol=1e-9)
    assert tl.log1p(tl.tensor([-1 + 0j])).tolist() == [complex(-np.inf, 0)]


def test_abs_is_real():
    a = crandn((6,), np.complex128, 8)
    x = tl.tensor(a)
    for dtype, real in [(tl.complex64, tl.float32), (tl.complex128, tl.float64)]:
        assert tl.abs(x.to(dtype)).dtype is real and x.to(dtype).abs().dtype is real
    np.testing.assert_allclose(x.abs().numpy(), np.abs(a), rtol=1e-15)
    assert tl.tensor([3e300 + 4e300j], dtype=tl.complex128).abs().item() == pytest.approx(5e300)  # hypot
    out = tl.empty(6, dtype=tl.float64)
    assert tl.abs(x, out=out) is out and np.allclose(out.numpy(), np.abs(a))
    with pytest.raises(RuntimeError, match="dtype double, but got float"):  # exact_out_dtype
        tl.abs(x, out=tl.empty(6))
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors"):
        x.abs_()
    np.testing.assert_allclose(tl.angle(x).numpy(), np.angle(a), rtol=1e-14)


def test_pow_of_complex_numbers():
    a, b = crandn((5,), np.complex128, 9), crandn((5,), np.complex128, 10)
    x, y = tl.tensor(a), tl.tensor(b)
    np.testing.assert_allclose((x ** y).numpy(), a ** b, rtol=1e-12)
    np.testing.assert_allclose((x ** 3).numpy(), a ** 3, rtol=1e-12)
    np.testing.assert_allclose((x ** (0.5 + 1j)).numpy(), a ** (0.5 + 1j), rtol=1e-12)
    np.testing.assert_allclose(tl.pow(2, x).numpy(), 2 ** a, rtol=1e-12)
    r = tl.tensor([1.0, 4.0]) ** 0.5j  # a real tensor to a complex power is complex, as PyTorch
    assert r.dtype is tl.complex64
    np.testing.assert_allclose(r.numpy(), np.array([1.0, 4.0]) ** 0.5j, rtol=1e-6)


def test_predicates_logical_and_fused_ops():
    inf, nan = float("inf"), float("nan")
    x = tl.tensor([complex(1, 2), complex(inf, 0), complex(0, nan), 0j, complex(-inf, nan)])
    assert tl.isnan(x).tolist() == [False, False, True, False, True]
    assert tl.isinf(x).tolist() == [False, True, False, False, True]
    assert tl.isfinite(x).tolist() == [True, False, False, True, False]
    y = tl.tensor([0j, 1j, 0j, 2 + 0j, 0j])
    assert tl.logical_and(x, y).tolist() == [False, True, False, False, False]
    assert tl.logical_or(x, y).tolist() == [True, True, True, True, True]
    assert tl.logical_xor(x, y).tolist() == [True, False, True, True, True]
    assert tl.logical_not(y).tolist() == [True, False, True, False, True]
    a, b, c = (crandn((4,), np.complex128, s) for s in (11, 12, 13))
    t1, t2, t3 = tl.tensor(a), tl.tensor(b), tl.tensor(c)
    np.testing.assert_allclose(tl.addcmul(t1, t2, t3, value=2j).numpy(), a + 2j * b * c, rtol=1e-14)
    np.testing.assert_allclose(tl.addcdiv(t1, t2, t3, value=0.5).numpy(), a + 0.5 * b / c, rtol=1e-14)
    for w in (0.25, 0.75 + 0.1j):  # both ends of lerp's formula
        np.testing.assert_allclose(tl.lerp(t1, t2, w).numpy(), a + w * (b - a), rtol=1e-14)
    np.testing.assert_allclose(tl.lerp(t1, t2, t3).numpy(), a + c * (b - a), rtol=1e-13)
    np.testing.assert_allclose(tl.nn.functional.silu(t1).numpy(), a / (1 + np.exp(-a)), rtol=1e-13)
    np.testing.assert_allclose(tl.nn.functional.softsign(t1).numpy(), a / (1 + np.abs(a)), rtol=1e-14)
    np.testing.assert_allclose(tl.nn.functional.tanhshrink(t1).numpy(), a - np.tanh(a), rtol=1e-13)
    np.testing.assert_allclose(tl.sinc(t1).numpy(), np.sinc(a), rtol=1e-12)


def test_indexing_ops():
    a = crandn((4, 5), np.complex128, 14)
    x = tl.tensor(a)
    i = np.array([3, 0, 3])
    idx = tl.tensor(i)
    np.testing.assert_array_equal(x[idx].numpy(), a[i])
    np.testing.assert_array_equal(x[:, idx].numpy(), a[:, i])
    np.testing.assert_array_equal(x[x.real > 0].numpy(), a[a.real > 0])
    np.testing.assert_array_equal(tl.index_select(x, 1, idx).numpy(), a[:, i])
    np.testing.assert_array_equal(x.flip(0, 1).numpy(), a[::-1, ::-1])
    g = np.array([[0, 4], [1, 1], [2, 0], [3, 3]])
    np.testing.assert_array_equal(tl.gather(x, 1, tl.tensor(g)).numpy(), np.take_along_axis(a, g, 1))
    np.testing.assert_array_equal(tl.take(x, tl.tensor([0, 19, 7])).numpy(), a.ravel()[[0, 19, 7]])
    np.testing.assert_array_equal(tl.nonzero(tl.tensor([0j, 1j, 0j, 2 + 0j])).flatten().tolist(), [1, 3])
    assert tl.count_nonzero(tl.tensor([0j, 1j, 1 + 0j])).item() == 2
    m = a.real > 0
    np.testing.assert_array_equal(x.masked_fill(tl.tensor(m), 2 - 3j).numpy(), np.where(m, 2 - 3j, a))
    np.testing.assert_array_equal(tl.masked_select(x, tl.tensor(m)).numpy(), a[m])
    src = crandn((20,), np.complex128, 15)
    want = a.copy()
    want[m] = src[:m.sum()]
    np.testing.assert_array_equal(x.masked_scatter(tl.tensor(m), tl.tensor(src)).numpy(), want)
    s = crandn((3, 5), np.complex128, 16)
    want = a.copy()
    np.add.at(want, i, 2j * s)
    np.testing.assert_allclose(x.index_add(0, idx, tl.tensor(s), alpha=2j).numpy(), want, rtol=1e-14)
    want = a.copy()
    want[[1, 2]] = s[:2]
    np.testing.assert_array_equal(x.index_copy(0, tl.tensor([1, 2]), tl.tensor(s[:2])).numpy(), want)
    want = a.copy()
    want[:, [0, 2]] = 1j
    np.testing.assert_array_equal(x.index_fill(1, tl.tensor([0, 2]), 1j).numpy(), want)
    y = x.clone()
    y.index_put_((idx,), tl.tensor(s), accumulate=True)
    want = a.copy()
    np.add.at(want, i, s)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-14)
    y = x.clone()
    y[1] = 5j
    assert y[1].tolist() == [5j] * 5
    sc = tl.zeros(3, dtype=tl.complex128).scatter_add(0, tl.tensor([0, 2, 0]), tl.tensor([1j, 2 + 0j, 3 + 1j], dtype=tl.complex128))
    assert sc.tolist() == [3 + 2j, 0j, 2 + 0j]
    sc = tl.ones(3, dtype=tl.complex128).scatter_reduce(0, tl.tensor([0, 0]), tl.tensor([1j, 2j], dtype=tl.complex128), "prod")
    assert sc.tolist() == [-2 + 0j, 1 + 0j, 1 + 0j]
    with pytest.raises(NotImplementedError, match="ComplexDouble"):
        tl.ones(3, dtype=tl.complex128).scatter_reduce(0, tl.tensor([0, 0]), tl.tensor([1j, 2j], dtype=tl.complex128), "amax")


def test_prod_cumsum_any():
    a = crandn((3, 4), np.complex128, 17)
    x = tl.tensor(a)
    np.testing.assert_allclose(x.prod().item(), a.prod(), rtol=1e-13)
    np.testing.assert_allclose(x.prod(1).numpy(), a.prod(1), rtol=1e-13)
    np.testing.assert_allclose(x.cumsum(1).numpy(), a.cumsum(1), rtol=1e-13)
    np.testing.assert_allclose(x.cumprod(0).numpy(), a.cumprod(0), rtol=1e-13)
    np.testing.assert_allclose(tl.tensor(a.astype(np.complex64)).cumsum(0).numpy(), a.cumsum(0), rtol=1e-5)
    z = tl.tensor([[0j, 1j], [0j, 0j]])
    assert z.any().item() and not z.all().item() and z.any(1).tolist() == [True, False]
    assert tl.tensor([1j, 2 + 0j]).all().item()


@pytest.mark.parametrize("np_dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("n", [3, 40])  # the plain loop and BLAS's cgemm/zgemm
def test_matrix_products(np_dtype, n):
    a, b, c = crandn((n, n + 1), np_dtype, 18), crandn((n + 1, n - 1), np_dtype, 19), crandn((n, n - 1), np_dtype, 20)
    x, y, z = tl.tensor(a), tl.tensor(b), tl.tensor(c)
    tol = dict(rtol=1e-5, atol=1e-5) if np_dtype == np.complex64 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose((x @ y).numpy(), a @ b, **tol)
    np.testing.assert_allclose(x.t().conj().mm(z).numpy(), a.T.conj() @ c, **tol)  # a transposed operand
    np.testing.assert_allclose(tl.addmm(z, x, y, beta=1j, alpha=2 - 1j).numpy(), 1j * c + (2 - 1j) * (a @ b), **tol)
    ab, bb = np.stack([a, 2 * a]), np.stack([b, 1j * b])
    np.testing.assert_allclose(tl.bmm(tl.tensor(ab), tl.tensor(bb)).numpy(), ab @ bb, **tol)
    np.testing.assert_allclose(tl.baddbmm(tl.tensor(ab @ bb), tl.tensor(ab), tl.tensor(bb), beta=0.5j).numpy(),
                               0.5j * (ab @ bb) + ab @ bb, **tol)
    v = crandn((n + 1,), np_dtype, 21)
    np.testing.assert_allclose(tl.mv(x, tl.tensor(v)).numpy(), a @ v, **tol)
    np.testing.assert_allclose(tl.dot(tl.tensor(v), tl.tensor(v)).item(), v @ v, **tol)
    np.testing.assert_allclose(tl.vdot(tl.tensor(v), tl.tensor(v)).item(), np.vdot(v, v), **tol)
    np.testing.assert_allclose(tl.outer(tl.tensor(v), tl.tensor(v)).numpy(), np.outer(v, v), **tol)


@pytest.mark.parametrize("fn,name", [(lambda c: c.erf(), "erf"), (lambda c: c.amax(), "amax"),
                                     (lambda c: c < c, "lt")])
def test_ops_without_complex_support_raise(fn, name):
    with pytest.raises(NotImplementedError, match=f"'ComplexFloat'"):
        fn(tl.ones(2, dtype=tl.complex64))


# ------------------------------------------------------------------------------------------ autograd
# PyTorch's convention: the gradient of a real L with respect to z = x + iy is dL/dx + i dL/dy (the conjugate
# Wirtinger derivative, times 2), so a holomorphic f passes grad * conj(f'(z)) back.
from torchlite.testing._opinfo import op_db  # noqa: E402

COMPLEX_AUTOGRAD_OPS = [op for op in op_db if "complex_autograd" in op.tags]


def _complexify(v, k):
    """A float64 sample tensor (or list of them) made complex: times 1 + 0.5j (rotated per input k), so that
    the imaginary parts are not zero and no value sits on a branch cut."""
    if isinstance(v, list):
        return [_complexify(x, k + j) for j, x in enumerate(v)]
    if isinstance(v, tl.Tensor) and v.dtype is tl.float64:
        return (v * complex(1, 0.5 - 0.25 * k)).detach()
    return v


def test_the_complex_autograd_ops_are_listed():
    assert len(COMPLEX_AUTOGRAD_OPS) >= 40, [op.full_name for op in COMPLEX_AUTOGRAD_OPS]


def _complex_cases(op):
    """(label, function, inputs) of each gradcheck sample of op, with complex inputs, unless the op makes
    complex numbers of real ones (complex, polar, view_as_complex)."""
    for label, args in op.gradcheck_samples():
        args = dict(args)
        fn, inputs = op.as_function(args)
        outs = fn(*inputs)
        if not any(o.dtype.is_complex for o in (outs if isinstance(outs, tuple) else (outs,))):
            for k, name in enumerate(op.diff_names):
                if name in args:
                    args[name] = _complexify(args[name], k)
            fn, inputs = op.as_function(args)
        if inputs:
            yield label, fn, inputs


@pytest.mark.parametrize("op", COMPLEX_AUTOGRAD_OPS, ids=[op.full_name for op in COMPLEX_AUTOGRAD_OPS])
def test_gradcheck_on_complex_inputs(op):
    """Every op tagged complex_autograd: its gradients on complex inputs against finite differences in the
    real and imaginary parts of each input."""
    for label, fn, inputs in _complex_cases(op):
        assert tl.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3), f"{op.full_name} {label}"


# Those with a forward mode: a `jvp:` entry, or a composite (its ops' tangents); random ops are left out (their
# tangent is zero by definition, tested in test_autograd_ops).
COMPLEX_FORWARD_OPS = [op for op in COMPLEX_AUTOGRAD_OPS
                       if (op.jvp or op.kind == "composite") and not op.is_random]


@pytest.mark.parametrize("op", COMPLEX_FORWARD_OPS, ids=[op.full_name for op in COMPLEX_FORWARD_OPS])
def test_forward_ad_on_complex_inputs(op):
    """Their forward-mode Jacobians (dual tensors with the tangents 1 and 1j per element) against finite
    differences: J t, where backward gives J^H g."""
    for label, fn, inputs in _complex_cases(op):
        assert tl.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, check_forward_ad=True,
                                     check_backward_ad=False), f"{op.full_name} {label}"


def test_known_complex_gradients():
    a = crandn((5,), np.complex128, 22)
    z = tl.tensor(a).requires_grad_()
    z.abs().sum().backward()  # d|z| = z / |z|
    np.testing.assert_allclose(z.grad.numpy(), a / np.abs(a), rtol=1e-14)
    z.grad = None
    (z * z.conj()).real.sum().backward()  # |z|^2: 2z
    np.testing.assert_allclose(z.grad.numpy(), 2 * a, rtol=1e-14)
    z.grad = None
    (z * z).imag.sum().backward()  # Im(z^2) = 2xy: (2y, 2x) -> 2y + 2xi
    np.testing.assert_allclose(z.grad.numpy(), 2 * a.imag + 2j * a.real, rtol=1e-14)
    x = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    y = x * (2 + 3j)  # a real input of a complex computation gets a real gradient
    assert y.dtype is tl.complex128 and y.requires_grad
    y.imag.sum().backward()
    assert x.grad.dtype is tl.float64 and x.grad.tolist() == [3.0, 3.0]
    w = tl.complex(x, x * 2)
    tl.view_as_real(w).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def _tangent(fn, *pairs):
    """fn's output tangent at the dual tensors made of (primal, tangent) pairs."""
    fwAD = tl.autograd.forward_ad
    with fwAD.dual_level():
        return fwAD.unpack_dual(fn(*[fwAD.make_dual(p, t) for p, t in pairs])).tangent


def test_known_complex_tangents():
    a, v = crandn((5,), np.complex128, 25), crandn((5,), np.complex128, 26)
    z, t = tl.tensor(a), tl.tensor(v)
    tol = dict(rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(_tangent(lambda u: u * u, (z, t)).numpy(), 2 * a * v, **tol)  # holomorphic: f'(z) t
    np.testing.assert_allclose(_tangent(lambda u: u.exp().sin(), (z, t)).numpy(), np.cos(np.exp(a)) * np.exp(a) * v,
                               **tol)
    got = _tangent(lambda u: u.abs(), (z, t))  # d|z| = Re(conj(z) t) / |z|, a real tangent
    assert got.dtype is tl.float64
    np.testing.assert_allclose(got.numpy(), (np.conj(a) * v).real / np.abs(a), **tol)
    np.testing.assert_allclose(_tangent(lambda u: u.conj(), (z, t)).resolve_conj().numpy(), np.conj(v), **tol)
    np.testing.assert_allclose(_tangent(lambda u: u.real, (z, t)).numpy(), v.real, **tol)
    np.testing.assert_allclose(_tangent(lambda u: u.imag, (z, t)).numpy(), v.imag, **tol)
    np.testing.assert_allclose(_tangent(lambda u: u.angle(), (z, t)).numpy(), (np.conj(a) * v).imag / np.abs(a) ** 2,
                               **tol)
    s = a / np.abs(a)  # sgn: not holomorphic, (t - sgn^2 conj(t)) / 2|z|
    np.testing.assert_allclose(_tangent(lambda u: u.sgn(), (z, t)).numpy(), (v - s * s * np.conj(v)) / (2 * np.abs(a)),
                               **tol)
    x, xt = tl.tensor(a.real), tl.tensor(v.real)  # a real input of a complex computation
    np.testing.assert_allclose(_tangent(lambda u: u * (2 + 3j), (x, xt)).numpy(), v.real * (2 + 3j), **tol)
    np.testing.assert_allclose(_tangent(lambda u: tl.polar(u, u), (x, xt)).numpy(),
                               v.real * np.exp(1j * a.real) * (1 + 1j * a.real), **tol)
    m, mt = crandn((3, 3), np.complex128, 27), crandn((3, 3), np.complex128, 28)
    got = _tangent(lambda u: u @ u, (tl.tensor(m), tl.tensor(mt)))
    np.testing.assert_allclose(got.numpy(), mt @ m + m @ mt, **tol)
    got = _tangent(lambda u: tl.linalg.det(u), (tl.tensor(m), tl.tensor(mt)))  # det(A) tr(A^-1 dA)
    np.testing.assert_allclose(got.item(), np.linalg.det(m) * np.trace(np.linalg.solve(m, mt)), rtol=1e-12)
    fwAD = tl.autograd.forward_ad
    with fwAD.dual_level():  # in place, through a view
        base = fwAD.make_dual(tl.tensor(a), tl.tensor(v))
        y = base.clone()
        y[1:].mul_(1j)
        want = v.copy()
        want[1:] *= 1j
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.numpy(), want, **tol)


def test_complex_tangents_against_torch():
    """A composition of complex ops, each through forward mode, against PyTorch's forward AD."""
    pt = pytest.importorskip("torch", reason="PyTorch (optional) is the oracle of this test")
    m, mt = crandn((4, 4), np.complex128, 29), crandn((4, 4), np.complex128, 30)

    def f(lib, u):
        h = u @ u.mH + 4 * lib.eye(4, dtype=u.dtype)
        w = lib.linalg.cholesky(h) @ lib.linalg.inv(u + 3 * lib.eye(4, dtype=u.dtype))
        return lib.fft.fft((w * w.conj()).sqrt() + w.sigmoid() + lib.linalg.svdvals(u).sum(), dim=0)

    got = _tangent(lambda u: f(tl, u), (tl.tensor(m), tl.tensor(mt)))
    with pt.autograd.forward_ad.dual_level():
        want = pt.autograd.forward_ad.unpack_dual(
            f(pt, pt.autograd.forward_ad.make_dual(pt.tensor(m), pt.tensor(mt)))).tangent
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)


def test_second_order_complex_gradients():
    a, b = crandn((2, 3), np.complex128, 23), crandn((3, 2), np.complex128, 24)
    x, y = tl.tensor(a).requires_grad_(), tl.tensor(b).requires_grad_()
    assert tl.autograd.gradgradcheck(lambda u, v: (u * u.exp()).sin() @ v.tanh(), (x, y))
    assert tl.autograd.gradgradcheck(lambda u: (u.abs() * u.angle()).sum() + (u / u.conj()).real.sum(), (x,))


def test_complex_autograd_errors():
    z = tl.tensor([1 + 1j, 2 - 1j], requires_grad=True)
    assert z.requires_grad and z.dtype is tl.complex64
    with pytest.raises(RuntimeError, match="real scalar outputs but got torchlite.complex64"):
        z.sum().backward()
    with pytest.raises(RuntimeError, match="both grad_output and output are required to have the same dtype"):
        z.sum().backward(tl.tensor(1.0))
    with pytest.raises(NotImplementedError, match="complex tensors through CumprodBackward0"):
        (z * 2).cumprod(0)  # an op whose derivative formulas are not written for complex numbers yet
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype"):
        tl.ones(2, dtype=tl.int64).requires_grad_()
    with tl.no_grad():
        assert (z * 1j).tolist() == [-1 + 1j, 1 + 2j]
    fwAD = tl.autograd.forward_ad
    with fwAD.dual_level():
        with pytest.raises(NotImplementedError, match="forward-mode AD of complex tensors through cumprod"):
            fwAD.make_dual(z.detach(), tl.ones(2, dtype=tl.complex64)).cumprod(0)
        with pytest.raises(RuntimeError, match="floating point or complex primal and a tangent of the same dtype"):
            fwAD.make_dual(z.detach(), tl.ones(2))


# ------------------------------------------------------------------------------------------ interop
@pytest.mark.parametrize("dtype", NEW_DTYPES)
def test_dlpack_and_pickle(dtype):
    t = tl.tensor([1, 2, 3]).to(dtype)
    np.testing.assert_array_equal(np.from_dlpack(t), t.numpy())
    back = tl.from_dlpack(np.arange(1, 4).astype(t.numpy().dtype))
    assert back.dtype is dtype and back.tolist() == t.tolist()
    assert pickle.loads(pickle.dumps(t)).tolist() == t.tolist()


def test_save_load_complex_and_unsigned():
    t = tl.tensor([1 + 2j, -3j], dtype=tl.complex128)
    buf = io.BytesIO()
    tl.save({"c": t}, buf)
    buf.seek(0)
    loaded = tl.load(buf)["c"]
    assert loaded.dtype is tl.complex128 and loaded.tolist() == t.tolist()
    with pytest.raises(RuntimeError, match="saving torchlite.uint16 tensors is not supported yet"):
        tl.save(tl.ones(2, dtype=tl.uint16), io.BytesIO())


def test_finfo_iinfo():
    assert tl.finfo(tl.complex64).eps == tl.finfo(tl.float32).eps and tl.finfo(tl.complex128).dtype == "float64"
    assert tl.iinfo(tl.uint64).max == 2 ** 64 - 1 and tl.iinfo(tl.uint16).bits == 16 and tl.iinfo(tl.uint32).min == 0


# ------------------------------------------------------------------------------------------ PyTorch
def test_complex_matches_torch():
    torch = pytest.importorskip("torch")
    a, b = crandn((3, 4), np.complex64, 5), crandn((3, 4), np.complex64, 6)
    for expr in ["x + y", "x * y", "x / y", "x - 2j * y", "x.conj()", "x.real", "x.imag", "x * 1.5",
                 "x.to(torch_or_tl.float32)", "x.to(torch_or_tl.complex128)", "torch_or_tl.logaddexp(x, y)",
                 "torch_or_tl.logcumsumexp(x, 1)"]:
        got = eval(expr, {"x": tl.tensor(a), "y": tl.tensor(b), "torch_or_tl": tl})
        want = eval(expr, {"x": torch.tensor(a), "y": torch.tensor(b), "torch_or_tl": torch}).resolve_conj()
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], expr
        np.testing.assert_allclose(got.resolve_conj().numpy(), want.numpy(), rtol=1e-6, atol=1e-6, err_msg=expr)
        assert repr(got).replace("torchlite.", "torch.") == repr(want), expr


def test_on_the_emulated_cuda_device():
    """The CUDA copies and pointwise kernels (compiled for the host here) with complex and unsigned tensors."""
    script = (
        "import cmath\nimport torchlite as tl\n"
        "x = tl.tensor([1 + 2j, 3 - 1j], dtype=tl.complex128).cuda()\n"
        "assert x.device.type == 'cuda' and (x * x + 1j).cpu().tolist() == [-3 + 5j, 8 - 5j]\n"
        "assert x.conj().cpu().tolist() == [1 - 2j, 3 + 1j] and x.real.cpu().tolist() == [1.0, 3.0]\n"
        "assert (x / x).cpu().tolist() == [1 + 0j, 1 + 0j] and x.to(tl.float32).cpu().tolist() == [1.0, 3.0]\n"
        "assert x.abs().dtype is tl.float64 and x.abs().cpu().tolist() == [abs(1 + 2j), abs(3 - 1j)]\n"
        "assert abs(x.exp().cpu().tolist()[0] - cmath.exp(1 + 2j)) < 1e-14 and x.sgn().cpu().tolist()[0] == (1 + 2j) / abs(1 + 2j)\n"
        "assert x.sum().item() == 4 + 1j and x.prod().item() == (1 + 2j) * (3 - 1j) and x.cumsum(0).cpu().tolist() == [1 + 2j, 4 + 1j]\n"
        "assert x[tl.tensor([1, 0, 1]).cuda()].cpu().tolist() == [3 - 1j, 1 + 2j, 3 - 1j] and x.flip(0).cpu().tolist() == [3 - 1j, 1 + 2j]\n"
        "assert (x.view(2, 1) @ x.view(1, 2)).cpu().tolist() == [[-3 + 4j, 5 + 5j], [5 + 5j, 8 - 6j]]\n"
        "r = tl.randn(1000, dtype=tl.complex64, device='cuda')\n"
        "assert r.dtype is tl.complex64 and 0.3 < r.real.cpu().var().item() < 0.7\n"
        "u = tl.tensor([1, 2], dtype=tl.uint32).cuda()\n"
        "assert (u * u).cpu().tolist() == [1, 4] and (u == 2).cpu().tolist() == [False, True]\n"
        "print('ok')\n")
    r = run_emulated(["-c", script], timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


@pytest.mark.parametrize("make", [lambda v: tl.zeros(1, dtype=tl.uint8).fill_(v),
                                  lambda v: tl.zeros(1, dtype=tl.uint16).fill_(v),
                                  lambda v: tl.tensor([v], dtype=tl.uint8), lambda v: tl.full((1,), v, dtype=tl.uint32)])
def test_negative_floats_do_not_fit_unsigned_types(make):  # PyTorch's checked conversion; negative ints wrap
    for v in (-1.0, -0.5, -255.0):
        with pytest.raises(RuntimeError, match="cannot be converted to type uint"):
            make(v)
    assert make(-1).item() in (255, 65535, 2 ** 32 - 1) and make(2.5).item() == 2


def test_composites_on_complex_inputs_as_pytorch():
    """Composites that would drop the imaginary part or give another value than PyTorch's on complex inputs."""
    a = crandn((4,), np.complex64, 7)
    x = tl.tensor(a)
    np.testing.assert_allclose(tl.linalg.vecdot(x, x).item(), np.vdot(a, a), rtol=1e-5)  # conj(x) . y
    assert tl.isreal(tl.tensor([1 + 0j, 1 + 1j])).tolist() == [True, False]
    n = tl.nan_to_num(tl.tensor([complex(float("nan"), float("inf")), complex(-float("inf"), 2)]), nan=0.5)
    big = float(np.finfo(np.float32).max)
    assert n.tolist() == [complex(0.5, big), complex(-big, 2)]
    f = tl.float_power(x, 2)  # in complex128, as PyTorch
    assert f.dtype is tl.complex128
    np.testing.assert_allclose(f.numpy(), a.astype(np.complex128) ** 2, rtol=1e-12)
    F = tl.nn.functional
    for fn, error in [(lambda: F.smooth_l1_loss(x, x), NotImplementedError), (lambda: F.huber_loss(x, x),
                      NotImplementedError), (lambda: F.kl_div(x, x), RuntimeError), (lambda: F.glu(x),
                      NotImplementedError),
                      (lambda: tl.nansum(x), RuntimeError), (lambda: tl.nn.functional.mse_loss(x, x), NotImplementedError),
                      (lambda: tl.searchsorted(x, x), NotImplementedError),
                      (lambda: F.adaptive_avg_pool1d(x.reshape(1, 4), 2), NotImplementedError)]:  # 2-d only
        with pytest.raises(error):
            fn()


def _windows(x, k, stride=1):
    """x (..., L) as (..., L_out, k) sliding windows."""
    return np.lib.stride_tricks.sliding_window_view(x, k, axis=-1)[..., ::stride, :]


def test_convolutions_pads_and_logsumexp_of_complex_tensors():
    """Complex convolutions (three real ones), the index pads and logsumexp: against NumPy, differentiable."""
    x, w, b = crandn((2, 3, 9), np.complex128, 40), crandn((4, 3, 3), np.complex128, 41), crandn((4,), np.complex128, 42)
    want = np.einsum("nclk,ock->nol", _windows(x, 3, 2), w) + b[:, None]  # stride 2, no padding
    F = tl.nn.functional
    got = F.conv1d(tl.tensor(x), tl.tensor(w), tl.tensor(b), stride=2)
    assert got.dtype is tl.complex128
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    # a transposed convolution is the adjoint of the convolution: <conv(x), y> = <x, convT(y)> (no conjugates)
    y = crandn((2, 4, 7), np.complex128, 43)
    lhs = np.sum(F.conv1d(tl.tensor(x), tl.tensor(w)).numpy() * y)
    rhs = np.sum(x * F.conv_transpose1d(tl.tensor(y), tl.tensor(w)).numpy())
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    img, k = crandn((1, 2, 5, 5), np.complex64, 44), crandn((3, 2, 3, 3), np.complex64, 45)
    same = F.conv2d(tl.tensor(img), tl.tensor(k), padding="same")
    assert same.dtype is tl.complex64 and tuple(same.shape) == (1, 3, 5, 5)
    padded = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.einsum("ncijkl,ockl->noij", np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3)), k)
    np.testing.assert_allclose(same.numpy(), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match=r"Input type \(ComplexFloat\) and weight type \(Float\) should be the same"):
        F.conv2d(tl.tensor(img), tl.tensor(k).real)
    for mode, np_mode in (("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")):
        np.testing.assert_array_equal(F.pad(tl.tensor(img), (1, 2, 2, 1), mode=mode).numpy(),
                                      np.pad(img, ((0, 0), (0, 0), (2, 1), (1, 2)), mode=np_mode))
    z = crandn((3, 4), np.complex128, 46) * 3
    np.testing.assert_allclose(tl.logsumexp(tl.tensor(z), 1).numpy(), np.log(np.exp(z).sum(1)), rtol=1e-12)
    pooled = F.adaptive_avg_pool2d(tl.tensor(img), (2, 1))
    np.testing.assert_allclose(pooled.numpy()[..., 0, 0], img[..., :3, :].mean((-2, -1)), rtol=1e-5)
    gc = tl.autograd.gradcheck
    xs = [tl.tensor(v, requires_grad=True) for v in (x, w, b)]
    assert gc(lambda a, c, d: F.conv1d(a, c, d, padding=1), xs)
    assert gc(lambda a, c: F.conv_transpose1d(a, c, stride=2), (xs[0], tl.tensor(crandn((3, 2, 2), np.complex128, 47),
                                                                           requires_grad=True)))
    assert gc(lambda a: F.pad(a, (2, 1), mode="reflect"), (xs[0],))
    assert gc(lambda a: tl.logsumexp(a, 1), (tl.tensor(z, requires_grad=True),))


def test_unfold_and_fold_of_complex_tensors():
    """F.unfold / F.fold (im2col / col2im) move complex numbers as they move real ones: each part on its own."""
    F = tl.nn.functional
    a = crandn((2, 3, 5, 6), np.complex64, 51)
    kw = dict(kernel_size=(2, 3), padding=1, stride=(1, 2))
    cols = F.unfold(tl.tensor(a), **kw)
    assert cols.dtype is tl.complex64
    parts = [F.unfold(tl.tensor(p), **kw).numpy() for p in (a.real.copy(), a.imag.copy())]
    np.testing.assert_array_equal(cols.numpy(), parts[0] + 1j * parts[1])
    back = F.fold(cols, (5, 6), **kw)
    parts = [F.fold(tl.tensor(p), (5, 6), **kw).numpy() for p in (cols.real.contiguous().numpy(), cols.imag.numpy())]
    np.testing.assert_array_equal(back.numpy(), parts[0] + 1j * parts[1])
    z = tl.tensor(crandn((1, 2, 4, 4), np.complex128, 52), requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: F.fold(F.unfold(t, 2, padding=1) * 1j, (4, 4), 2, padding=1), (z,))


def test_logaddexp_and_logcumsumexp_of_complex_tensors():
    """PyTorch's complex logaddexp (the larger real part plus log1p(exp(difference))) and logcumsumexp, a scan of it:
    exp of the result is the sum (the cumulative sum) of exp, without overflow; differentiable."""
    x, y = crandn((4, 30), np.complex128, 54) * 3, crandn((4, 30), np.complex128, 55) * 3
    got = tl.logaddexp(tl.tensor(x), tl.tensor(y)).numpy()
    np.testing.assert_allclose(np.exp(got), np.exp(x) + np.exp(y), rtol=1e-12)
    assert abs(got.imag).max() <= np.pi + abs(np.maximum(x.imag, y.imag)).max()  # no stray branch
    big = tl.logaddexp(tl.tensor(x + 800), tl.tensor(y + 800)).numpy()
    np.testing.assert_allclose(big - 800, got, rtol=1e-12, atol=1e-12)
    inf = float("inf")  # both real parts -inf: the second one, as PyTorch
    assert tl.logaddexp(tl.tensor([complex(-inf, 1)]), tl.tensor([complex(-inf, 2)])).item() == complex(-inf, 2)
    assert tl.autograd.gradcheck(tl.logaddexp, (tl.tensor(x, requires_grad=True), tl.tensor(y, requires_grad=True)))
    a = crandn((3, 7), np.complex128, 53) * 3
    got = tl.logcumsumexp(tl.tensor(a), 1)
    assert got.dtype is tl.complex128
    np.testing.assert_allclose(np.exp(got.numpy()), np.cumsum(np.exp(a), 1), rtol=1e-12)
    big = tl.logcumsumexp(tl.tensor(a + 1000), 1).numpy()  # exp would overflow
    np.testing.assert_allclose(big - 1000, got.numpy(), rtol=1e-12, atol=1e-12)
    assert tl.logcumsumexp(tl.tensor(a.astype(np.complex64)), 0).dtype is tl.complex64
    z = tl.tensor(a, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: tl.logcumsumexp(t, 1), (z,))
    assert tl.autograd.gradgradcheck(lambda t: tl.logcumsumexp(t, 0), (z,))


def test_rms_norm_of_complex_inputs():  # mean(x * x), not of |x|^2: PyTorch's formula
    a, w = crandn((2, 3), np.complex128, 49), crandn((3,), np.complex128, 50)
    got = tl.nn.functional.rms_norm(tl.tensor(a), (3,), tl.tensor(w))
    want = a / np.sqrt((a * a).mean(-1, keepdims=True) + np.finfo(np.float64).eps) * w
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    assert tl.autograd.gradcheck(lambda t, v: tl.nn.functional.rms_norm(t, (3,), v),
                                 (tl.tensor(a, requires_grad=True), tl.tensor(w, requires_grad=True)))


def test_cov_and_corrcoef_of_complex_observations():
    a = crandn((3, 6), np.complex128, 48)
    got = tl.cov(tl.tensor(a))
    np.testing.assert_allclose(got.numpy(), np.cov(a), rtol=1e-12)  # X X^H / (N - 1), Hermitian
    fw, aw = np.array([1, 2, 1, 3, 1, 1]), np.linspace(0.5, 1.5, 6)
    np.testing.assert_allclose(tl.cov(tl.tensor(a), correction=0, fweights=tl.tensor(fw), aweights=tl.tensor(aw))
                               .numpy(), np.cov(a, ddof=0, fweights=fw, aweights=aw), rtol=1e-12)
    c = np.cov(a)
    d = np.sqrt(np.diag(c).real)
    want = c / d[:, None] / d[None, :]
    want = np.clip(want.real, -1, 1) + 1j * np.clip(want.imag, -1, 1)  # each part clipped, as PyTorch
    np.testing.assert_allclose(tl.corrcoef(tl.tensor(a)).numpy(), want, rtol=1e-12)
    assert tl.autograd.gradcheck(lambda t: tl.cov(t), (tl.tensor(a, requires_grad=True),))


def test_vector_norm_of_complex_numbers():  # the norm of the moduli, real, as PyTorch
    a = crandn((3, 4), np.complex128, 25)
    x = tl.tensor(a)
    for ord in (2, 1, float("inf"), 3):
        np.testing.assert_allclose(tl.linalg.vector_norm(x, ord=ord).item(),
                                   np.linalg.norm(a.ravel(), ord=ord), rtol=1e-13)
    n = tl.linalg.vector_norm(x.to(tl.complex64), dim=1)
    assert n.dtype is tl.float32
    np.testing.assert_allclose(n.numpy(), np.linalg.norm(a, axis=1), rtol=1e-6)
    assert tl.linalg.vector_norm(x.to(tl.complex64), dtype=tl.complex128).dtype is tl.float64
    with pytest.raises(RuntimeError, match="dtype should be complex for complex inputs, but got Double"):
        tl.linalg.vector_norm(x, dtype=tl.float64)
    # torchlite.norm / Tensor.norm, dist, pairwise_distance and renorm take the moduli's norm too
    np.testing.assert_allclose(x.norm().item(), np.linalg.norm(a), rtol=1e-13)
    np.testing.assert_allclose(tl.norm(x, p=1, dim=1).numpy(), np.abs(a).sum(1), rtol=1e-13)
    b = crandn((3, 4), np.complex128, 26)
    np.testing.assert_allclose(tl.dist(x, tl.tensor(b), 3).item(), np.linalg.norm((a - b).ravel(), 3), rtol=1e-13)
    np.testing.assert_allclose(tl.nn.functional.pairwise_distance(x, tl.tensor(b), eps=0).numpy(),
                               np.linalg.norm(a - b, axis=1), rtol=1e-13)
    r = tl.renorm(x, 2, 0, 1.0).numpy()
    np.testing.assert_allclose(np.linalg.norm(r, axis=1), np.minimum(np.linalg.norm(a, axis=1), 1.0), rtol=1e-6)


def test_var_and_std_of_complex_numbers():  # real: the mean squared modulus of the deviations, as NumPy
    a = crandn((3, 5), np.complex128, 27)
    x = tl.tensor(a)
    assert x.var().dtype is tl.float64 and x.to(tl.complex64).std().dtype is tl.float32
    np.testing.assert_allclose(x.var().item(), np.var(a, ddof=1), rtol=1e-13)
    np.testing.assert_allclose(x.std(1).numpy(), np.std(a, axis=1, ddof=1), rtol=1e-13)
    np.testing.assert_allclose(tl.var(x, 0, correction=0, keepdim=True).numpy(), np.var(a, 0, keepdims=True),
                               rtol=1e-13)
    v, m = tl.var_mean(x, 1)
    assert v.dtype is tl.float64 and m.dtype is tl.complex128
    np.testing.assert_allclose(v.numpy(), np.var(a, 1, ddof=1), rtol=1e-13)
    np.testing.assert_allclose(m.numpy(), a.mean(1), rtol=1e-13)
    s_, m = tl.std_mean(x.to(tl.complex64))
    np.testing.assert_allclose(s_.item(), np.std(a, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(m.item(), a.mean(), rtol=1e-5)


def test_random_complex_tensors():  # as PyTorch: each part drawn on its own (normal: variance 1/2 each)
    tl.manual_seed(5)
    z = tl.randn(20000, dtype=tl.complex64)
    assert z.dtype is tl.complex64
    a = z.numpy()
    assert abs(a.real.mean()) < 0.03 and abs(a.imag.mean()) < 0.03
    assert abs(a.real.var() - 0.5) < 0.03 and abs(a.imag.var() - 0.5) < 0.03
    assert abs(np.corrcoef(a.real, a.imag)[0, 1]) < 0.03
    u = tl.rand(20000, dtype=tl.complex128).numpy()
    assert u.real.min() >= 0 and u.real.max() < 1 and u.imag.min() >= 0 and u.imag.max() < 1
    assert abs(u.real.mean() - 0.5) < 0.01 and abs(u.imag.mean() - 0.5) < 0.01
    n = tl.empty(20000, dtype=tl.complex128).normal_(2.0, 4.0).numpy()
    assert abs(n.real.mean() - 2) < 0.1 and abs(n.imag.mean() - 2) < 0.1 and abs(np.var(n) - 16) < 0.8
    tl.manual_seed(5)
    again = tl.randn(20000, dtype=tl.complex64)
    assert np.array_equal(again.numpy(), a)
    assert tl.randn_like(z).dtype is tl.complex64 and tl.rand_like(z).dtype is tl.complex64
    # a complex mean (normal.Tensor_float, normal.Tensor_Tensor with a real std): each part about its mean's part
    mean = tl.tensor(np.full((2, 20000), 1 - 3j), dtype=tl.complex64)
    for n in (tl.normal(mean, 2.0), tl.normal(mean, tl.tensor([[2.0], [2.0]]))):
        v = n.numpy()
        assert n.dtype is tl.complex64 and abs(v.real.mean() - 1) < 0.05 and abs(v.imag.mean() + 3) < 0.05
        assert abs(v.real.var() - 2) < 0.1 and abs(v.imag.var() - 2) < 0.1 and abs(np.var(v) - 4) < 0.2
    for std in (tl.ones(2, 1, dtype=tl.complex64), tl.ones(3, dtype=tl.complex64)):
        with pytest.raises(RuntimeError, match="normal expects standard deviation to be non-complex"):
            tl.normal(mean if std.dim() == 2 else 0.0, std)


def test_angle():
    a = crandn((5,), np.complex128, 9)
    np.testing.assert_allclose(tl.angle(tl.tensor(a)).numpy(), np.angle(a), rtol=1e-15)
    r = tl.tensor([1.0, -1.0, 0.0, -0.0, float("nan"), -float("inf")])
    got = r.angle().tolist()  # PyTorch's: pi where negative, 0 at both zeros, NaN stays
    assert got[:4] == [0.0, float(np.float32(np.pi)), 0.0, 0.0] and np.isnan(got[4]) and got[5] > 3.14
    assert tl.angle(tl.tensor([-2, 3])).dtype is tl.float32
    x = tl.tensor([-2.0, 3.0], requires_grad=True)
    y = tl.angle(x)
    y.sum().backward()
    assert y.requires_grad and x.grad.tolist() == [0.0, 0.0]  # as PyTorch
    assert tl.angle(tl.tensor([1 + 1j])).dtype is tl.float32
