"""complex64/complex128 and uint16/uint32/uint64 (issue 18): the dtypes, their promotion, creation, casts,
printing, NumPy/DLPack/pickle interop, the dtype-changing views, real/imag/conj/complex/polar, and the ops that
list them. Expected values are NumPy's, or PyTorch 2.13's results written out (promotion, messages, printing);
test_complex_matches_torch compares with PyTorch itself where it is installed."""
import io
import pickle

import numpy as np
import pytest

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
    np.testing.assert_array_equal(c.conj().numpy(), a.conj())
    np.testing.assert_array_equal(tl.conj_physical(c).numpy(), a.conj())
    assert not c.conj().is_conj() and c.resolve_conj() is c
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


@pytest.mark.parametrize("fn,name", [(lambda c: c.exp(), "exp"), (lambda c: c.amax(), "amax"),
                                     (lambda c: c < c, "lt")])
def test_ops_without_complex_support_raise(fn, name):
    with pytest.raises(NotImplementedError, match=f"'ComplexFloat'"):
        fn(tl.ones(2, dtype=tl.complex64))


# ------------------------------------------------------------------------------------------ autograd
def test_complex_autograd_is_refused_not_silently_dropped():
    with pytest.raises(NotImplementedError, match="autograd for complex tensors"):
        tl.ones(2, dtype=tl.complex64).requires_grad_()
    x = tl.ones(2, requires_grad=True)
    for fn in [lambda: x * 1j, lambda: x.to(tl.complex64), lambda: tl.complex(x, x), lambda: tl.view_as_complex(
            x.view(1, 2))]:
        with pytest.raises(NotImplementedError, match="autograd for complex tensors"):
            fn()
    with tl.no_grad():
        assert (x * 1j).tolist() == [1j, 1j]


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
                 "x.to(torch_or_tl.float32)", "x.to(torch_or_tl.complex128)"]:
        got = eval(expr, {"x": tl.tensor(a), "y": tl.tensor(b), "torch_or_tl": tl})
        want = eval(expr, {"x": torch.tensor(a), "y": torch.tensor(b), "torch_or_tl": torch}).resolve_conj()
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], expr
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6, err_msg=expr)
        assert repr(got).replace("torchlite.", "torch.") == repr(want), expr


def test_on_the_emulated_cuda_device(tmp_path):
    """The CUDA copies and pointwise kernels (compiled for the host here) with complex and unsigned tensors."""
    import os
    import subprocess
    import sys
    script = (
        "import torchlite as tl\n"
        "x = tl.tensor([1 + 2j, 3 - 1j], dtype=tl.complex128).cuda()\n"
        "assert x.device.type == 'cuda' and (x * x + 1j).cpu().tolist() == [-3 + 5j, 8 - 5j]\n"
        "assert x.conj().cpu().tolist() == [1 - 2j, 3 + 1j] and x.real.cpu().tolist() == [1.0, 3.0]\n"
        "assert (x / x).cpu().tolist() == [1 + 0j, 1 + 0j] and x.to(tl.float32).cpu().tolist() == [1.0, 3.0]\n"
        "u = tl.tensor([1, 2], dtype=tl.uint32).cuda()\n"
        "assert (u * u).cpu().tolist() == [1, 4] and (u == 2).cpu().tolist() == [False, True]\n"
        "print('ok')\n")
    env = dict(os.environ, TORCHLITE_EMULATE_CUDA="1")
    env.pop("TORCHLITE_GPU_KERNELS_ON_HOST", None)
    r = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=300)
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
    for fn, error in [(lambda: tl.nansum(x), RuntimeError), (lambda: tl.float_power(x, 2), NotImplementedError),
                      (lambda: tl.nn.functional.mse_loss(x, x), NotImplementedError),
                      (lambda: tl.corrcoef(x), NotImplementedError), (lambda: tl.searchsorted(x, x), NotImplementedError)]:
        with pytest.raises(error):
            fn()


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
