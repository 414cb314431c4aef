"""Issue 18's "names code still calls": function aliases, NumPy-style keyword aliases, legacy construction and
type names, deprecated overloads, the Python-level functions (meshgrid, atleast_Nd, range...), anomaly mode,
torchlite.cuda's seeding and stream basics, and tools/api_coverage.py. Checked against NumPy and closed forms;
the torch comparisons at the end run only when PyTorch is installed."""
import importlib.util
import itertools
import os
import warnings

import numpy as np
import pytest

import torchlite as tl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _x(shape=(2, 3), seed=0, lo=-2.0, hi=2.0):
    return tl.tensor(np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(np.float32))


# ---------------------------------------------------------------- function aliases

ALIASES = [("absolute", "abs", (-2, 2)), ("arccos", "acos", (-0.9, 0.9)), ("arcsin", "asin", (-0.9, 0.9)),
           ("arctan", "atan", (-2, 2)), ("arccosh", "acosh", (1.1, 3)), ("arcsinh", "asinh", (-2, 2)),
           ("arctanh", "atanh", (-0.9, 0.9)), ("negative", "neg", (-2, 2)), ("fix", "trunc", (-3, 3))]
BINARY_ALIASES = [("arctan2", "atan2"), ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                  ("less_equal", "le"), ("not_equal", "ne"), ("divide", "div"), ("multiply", "mul"),
                  ("subtract", "sub")]


@pytest.mark.parametrize("alias,target,domain", ALIASES)
def test_unary_alias(alias, target, domain):
    x = _x(lo=domain[0], hi=domain[1])
    want = getattr(tl, target)(x)
    assert tl.equal(getattr(tl, alias)(x), want)
    assert tl.equal(getattr(x, alias)(), want)
    y = x.clone()
    assert getattr(y, alias + "_")() is y and tl.equal(y, want)
    out = tl.empty(0)
    assert getattr(tl, alias)(x, out=out) is out and tl.equal(out, want)


@pytest.mark.parametrize("alias,target", BINARY_ALIASES)
def test_binary_alias(alias, target):
    a, b = _x(seed=1), _x((3,), seed=2)
    want = getattr(tl, target)(a, b)
    assert tl.equal(getattr(tl, alias)(a, b), want)
    assert tl.equal(getattr(a, alias)(b), want)
    if want.dtype == a.dtype:
        y = a.clone()
        getattr(y, alias + "_")(b)
        assert tl.equal(y, want)


def test_divide_rounding_mode_and_concatenate():
    a, b = tl.tensor([7.0, -7.0]), tl.tensor([2.0, 2.0])
    assert tl.divide(a, b, rounding_mode="floor").tolist() == [3.0, -4.0]
    assert tl.concatenate([a, b]).tolist() == [7.0, -7.0, 2.0, 2.0]
    assert tl.row_stack([a, b]).shape == (2, 2)


def test_top_level_inplace_functions():
    x = tl.tensor([-1.0, 0.5, 2.0])
    assert tl.relu_(x) is x and x.tolist() == [0.0, 0.5, 2.0]
    tl.abs_(tl.neg_(x))
    assert x.tolist() == [0.0, 0.5, 2.0]
    y = tl.tensor([0.0, 1.0])
    tl.exp_(y)
    np.testing.assert_allclose(y.tolist(), [1.0, np.e], rtol=1e-6)
    z = tl.tensor([-3.0, 3.0])
    tl.clamp_(z, min=-1.0, max=1.0)
    assert z.tolist() == [-1.0, 1.0]


# ---------------------------------------------------------------- keyword aliases (axis=, keepdims=, input=)

REDUCTIONS = [
    ("sum", lambda a, ax, kd: np.sum(a, axis=ax, keepdims=kd)),
    ("mean", lambda a, ax, kd: np.mean(a, axis=ax, keepdims=kd)),
    ("prod", lambda a, ax, kd: np.prod(a, axis=ax, keepdims=kd)),
    ("amax", lambda a, ax, kd: np.amax(a, axis=ax, keepdims=kd)),
    ("amin", lambda a, ax, kd: np.amin(a, axis=ax, keepdims=kd)),
    ("argmax", lambda a, ax, kd: np.argmax(a, axis=ax, keepdims=kd)),
    ("argmin", lambda a, ax, kd: np.argmin(a, axis=ax, keepdims=kd)),
    ("nansum", lambda a, ax, kd: np.nansum(a, axis=ax, keepdims=kd)),
    ("logsumexp", lambda a, ax, kd: np.log(np.sum(np.exp(a), axis=ax, keepdims=kd))),
    ("var", lambda a, ax, kd: np.var(a, axis=ax, keepdims=kd, ddof=1)),
    ("std", lambda a, ax, kd: np.std(a, axis=ax, keepdims=kd, ddof=1)),
]


@pytest.mark.parametrize("name,ref", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_axis_keepdims(name, ref):
    x = _x((3, 4), seed=3)
    a = np.array(x.tolist(), dtype=np.float64)
    for kd in (False, True):
        r = getattr(tl, name)(x, axis=1, keepdims=kd)
        np.testing.assert_allclose(np.array(r.tolist()), ref(a, 1, kd), rtol=1e-5, atol=1e-6)
        assert tl.equal(getattr(x, name)(axis=1, keepdims=kd), r)
        assert tl.equal(getattr(tl, name)(x, dim=1, keepdim=kd), r)


def test_axis_on_other_ops():
    x = _x((3, 4), seed=4)
    assert tl.equal(tl.cumsum(x, axis=1), tl.cumsum(x, dim=1))
    assert tl.equal(x.cumprod(axis=0), x.cumprod(0))
    assert tl.equal(tl.max(x, axis=1, keepdims=True).values, tl.max(x, 1, True).values)
    assert tl.equal(tl.min(x, axis=0).indices, tl.min(x, 0).indices)
    assert tl.equal(tl.median(x, axis=1).values, tl.median(x, 1).values)
    b = x > 0
    assert tl.equal(tl.any(b, axis=1), tl.any(b, 1)) and tl.equal(b.all(axis=0, keepdims=True), b.all(0, True))
    assert tl.equal(tl.cat([x, x], axis=1), tl.cat([x, x], 1))
    # PyTorch's input= (and NumPy's x=/a=/x1=/x2=) for the tensor arguments
    assert tl.equal(tl.sum(input=x), tl.sum(x)) and tl.equal(tl.exp(x=x), tl.exp(x))
    assert tl.equal(tl.add(x1=x, x2=x), x + x) and tl.equal(tl.neg(a=x), -x)


def test_axis_errors():
    x = _x()
    with pytest.raises(TypeError, match="invalid combination of arguments - got \\(Tensor, int, axis=int\\)"):
        tl.sum(x, 1, axis=1)
    with pytest.raises(TypeError, match="multiple values for argument 'dim'"):
        tl.cumsum(x, 1, axis=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'axes'|invalid combination"):
        tl.sum(x, axes=1)


# ---------------------------------------------------------------- legacy construction and type names

LEGACY = [("FloatTensor", tl.float32), ("DoubleTensor", tl.float64), ("HalfTensor", tl.float16),
          ("BFloat16Tensor", tl.bfloat16), ("LongTensor", tl.int64), ("IntTensor", tl.int32),
          ("ShortTensor", tl.int16), ("CharTensor", tl.int8), ("ByteTensor", tl.uint8), ("BoolTensor", tl.bool)]


def test_tensor_legacy_constructor():
    t = tl.Tensor([1, 2])
    assert type(t) is tl.Tensor and t.dtype == tl.float32 and t.tolist() == [1.0, 2.0]
    assert tl.Tensor(2, 3).shape == (2, 3) and tl.Tensor(tl.Size([4, 1])).shape == (4, 1)
    assert tl.Tensor((2, 3)).tolist() == [2.0, 3.0]  # a tuple is data, as in PyTorch
    assert tl.Tensor().shape == (0,)
    assert tl.Tensor(np.arange(3)).tolist() == [0.0, 1.0, 2.0]
    x = tl.ones(2)
    alias = tl.Tensor(x)
    alias[0] = 5
    assert x[0].item() == 5  # an alias of the same memory
    with pytest.raises(TypeError, match=r"new\(\): data must be a sequence \(got float\)"):
        tl.Tensor(3.5)
    with pytest.raises(TypeError, match="failed to unpack the object at pos 2"):
        tl.Tensor(2, 3.0)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        tl.Tensor(-1)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        tl.Tensor(1, 2, dtype=tl.int64)


def test_default_dtype_follows():
    old = tl.get_default_dtype()
    try:
        tl.set_default_dtype(tl.float64)
        assert tl.Tensor([1]).dtype == tl.float64
    finally:
        tl.set_default_dtype(old)


@pytest.mark.parametrize("name,dtype", LEGACY, ids=[n for n, _ in LEGACY])
def test_legacy_types(name, dtype):
    cls = getattr(tl, name)
    t = cls([1, 0])
    assert type(t) is tl.Tensor and t.dtype == dtype and t.tolist() == [1, 0]
    assert cls(3).shape == (3,) and cls(3).dtype == dtype
    assert isinstance(t, cls) and isinstance(t, tl.Tensor)
    assert not isinstance(tl.ones(1, dtype=tl.float32 if dtype != tl.float32 else tl.int64), cls)
    assert not issubclass(cls, tl.Tensor)
    assert cls.dtype == dtype and cls.is_cuda is False
    assert t.type() == f"torchlite.{name}"
    assert not isinstance(t, getattr(tl.cuda, name))  # a CPU tensor is not a torchlite.cuda.<name>


def test_type_conversions():
    x = tl.tensor([1.5, -2.5])
    assert x.type(tl.FloatTensor) is x and x.type("torchlite.FloatTensor") is x
    assert x.type(tl.DoubleTensor).dtype == tl.float64
    assert x.type("torchlite.IntTensor").tolist() == [1, -2]
    assert x.type("torch.LongTensor").dtype == tl.int64  # PyTorch's spelling is accepted too
    assert x.type(tl.int16).dtype == tl.int16
    with pytest.raises(ValueError, match="invalid type: 'torchlite.float64'"):
        x.type("torchlite.float64")
    with pytest.raises(TypeError, match="expected torchlite.DoubleTensor \\(got torchlite.FloatTensor\\)"):
        tl.DoubleTensor(x)
    assert tl.FloatTensor(x).tolist() == x.tolist()


def test_new_and_subclass():
    x = tl.ones(2, dtype=tl.int32)
    n = x.new([1.7, 2.2])
    assert n.dtype == tl.int32 and n.tolist() == [1, 2]
    assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype == tl.int32
    assert x.new().shape == (0,)

    class Sub(tl.Tensor):
        pass

    s = Sub([0])
    assert type(s) is Sub and s.tolist() == [0.0] and s.dtype == tl.float32
    assert type(Sub(2, 2)) is Sub and Sub(2, 2).shape == (2, 2)
    p = tl.nn.Parameter(tl.ones(2))  # subclasses with their own __new__ keep it
    assert p.requires_grad and type(p) is tl.nn.Parameter


# ---------------------------------------------------------------- deprecated overloads

def _deprecated(fn, *args, name):
    with pytest.warns(UserWarning, match=f"This overload of {name} is deprecated"):
        return fn(*args)


def test_deprecated_overloads():
    a, b = _x(seed=5), _x(seed=6)
    na, nb = np.array(a.tolist()), np.array(b.tolist())
    np.testing.assert_allclose(_deprecated(tl.add, a, 10, b, name="add").tolist(), na + 10 * nb, rtol=1e-5)
    np.testing.assert_allclose(_deprecated(a.add, 10, b, name="add").tolist(), na + 10 * nb, rtol=1e-5)
    np.testing.assert_allclose(_deprecated(tl.sub, a, 10, b, name="sub").tolist(), na - 10 * nb, rtol=1e-5)
    np.testing.assert_allclose(_deprecated(tl.addcmul, a, 0.1, a, b, name="addcmul").tolist(), na + 0.1 * na * nb,
                               rtol=1e-5)
    np.testing.assert_allclose(_deprecated(tl.addcdiv, a, 0.1, a, b + 5, name="addcdiv").tolist(),
                               na + 0.1 * na / (nb + 5), rtol=1e-5)
    y = a.clone()
    _deprecated(y.add_, 2, b, name="add_")
    np.testing.assert_allclose(y.tolist(), na + 2 * nb, rtol=1e-5)
    m1, m2 = _x((2, 4), seed=7), _x((4, 3), seed=8)
    want = 0.5 * na + 2.0 * np.array(m1.tolist()) @ np.array(m2.tolist())
    np.testing.assert_allclose(_deprecated(tl.addmm, 0.5, a, 2.0, m1, m2, name="addmm").tolist(), want, rtol=1e-5)
    np.testing.assert_allclose(_deprecated(a.addmm, 0.5, 2.0, m1, m2, name="addmm").tolist(), want, rtol=1e-5)
    # the current signatures do not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.add(a, b, alpha=10)
        tl.add(a, 2)
        a.add(b)


def test_deprecated_overload_message_lists_the_current_one():
    with pytest.warns(UserWarning) as rec:
        tl.add(tl.ones(1), 10, tl.ones(1))
    text = str(rec[0].message)
    assert "add(Tensor self, Scalar alpha, Tensor other" in text
    assert "Consider using one of the following signatures instead:" in text
    assert "add(Tensor self, Tensor other, *, Scalar alpha=1" in text


# ---------------------------------------------------------------- Python-level functions

def test_predicates_and_numel():
    x = tl.ones(2, 3, dtype=tl.int64)
    assert tl.is_tensor(x) and not tl.is_tensor([1]) and not tl.is_tensor(np.ones(2))
    assert not tl.is_floating_point(x) and tl.is_floating_point(x.float())
    assert not tl.is_complex(x) and not x.is_complex() and not tl.is_conj(x)
    assert tl.numel(x) == 6
    assert tl.is_nonzero(tl.tensor([1])) and not tl.is_nonzero(tl.tensor(0.0))
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        tl.is_nonzero(x)
    with pytest.raises(RuntimeError, match="no values is ambiguous"):
        tl.is_nonzero(tl.ones(0))
    assert tl.is_same_size(x, tl.zeros(2, 3)) and not tl.is_same_size(x, tl.zeros(3, 2))
    assert tl.is_signed(x) and not tl.is_signed(x.byte()) and not x.bool().is_signed()
    with pytest.raises(TypeError, match="numel"):
        tl.numel([1, 2])


def test_properties():
    x = _x((2, 3))
    assert x.is_cpu and not x.is_meta
    assert tl.equal(x.H, x.t()) and tl.equal(x.mH, x.t()) and tl.equal(x.adjoint(), x.t())
    assert tl.equal(tl.adjoint(_x((4, 2, 3))), _x((4, 2, 3)).transpose(-2, -1))
    with pytest.raises(RuntimeError, match="tensor.H is only supported on matrices"):
        _x((3,)).H
    with pytest.raises(RuntimeError, match="tensor.mH is only supported on matrices or batches"):
        _x((3,)).mH


def test_meshgrid():
    a, b, c = tl.tensor([1, 2, 3]), tl.tensor([4, 5]), tl.tensor(7)
    for indexing in ("ij", "xy"):
        got = tl.meshgrid(a, b, c, indexing=indexing)
        want = np.meshgrid([1, 2, 3], [4, 5], [7], indexing=indexing)
        assert len(got) == 3
        for g, w in zip(got, want):
            assert g.tolist() == w.tolist()
    assert tl.meshgrid([a, b], indexing="ij")[0].shape == (3, 2)
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        assert tl.meshgrid(a, b)[1].shape == (3, 2)
    with pytest.raises(ValueError, match="indexing must be one of"):
        tl.meshgrid(a, b, indexing="ji")
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
        tl.meshgrid(tl.ones(2, 2), indexing="ij")
    # gradients flow through the expanded views
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    g0, g1 = tl.meshgrid(x, tl.ones(3), indexing="ij")
    (g0 * 2).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_atleast():
    s, v, m, t = tl.tensor(1.0), tl.ones(2), tl.ones(2, 3), tl.ones(2, 3, 4)
    for fn, npfn in ((tl.atleast_1d, np.atleast_1d), (tl.atleast_2d, np.atleast_2d), (tl.atleast_3d, np.atleast_3d)):
        for x in (s, v, m, t):
            assert fn(x).shape == npfn(np.ones(x.shape)).shape
        out = fn(s, v)
        assert isinstance(out, tuple) and [o.shape for o in out] == [npfn(np.ones(())).shape, npfn(np.ones(2)).shape]
        assert isinstance(fn([s]), tuple)
    assert tl.atleast_1d() == ()


def test_block_diag_cartesian_combinations():
    a, b, c = tl.tensor(1), tl.tensor([2.0, 3.0]), tl.ones(2, 2, dtype=tl.float64)
    got = tl.block_diag(a, b, c)
    want = np.zeros((4, 5))
    want[0, 0] = 1
    want[1, 1:3] = [2, 3]
    want[2:, 3:] = 1
    assert got.dtype == tl.float64 and got.tolist() == want.tolist()
    x, y = tl.tensor([1, 2]), tl.tensor([3, 4, 5])
    assert tl.cartesian_prod(x, y).tolist() == [list(p) for p in itertools.product([1, 2], [3, 4, 5])]
    assert tl.cartesian_prod(x).tolist() == [1, 2]
    z = tl.tensor([1, 2, 3, 4])
    assert tl.combinations(z).tolist() == [list(p) for p in itertools.combinations([1, 2, 3, 4], 2)]
    assert tl.combinations(z, 3, with_replacement=True).tolist() == \
        [list(p) for p in itertools.combinations_with_replacement([1, 2, 3, 4], 3)]
    assert tl.combinations(tl.tensor([1, 2]), 3).shape == (0, 3)
    w = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tl.combinations(w).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float16", "float32", "float64"])
def test_vander_against_numpy(dtype):
    x = np.array([1, 0, 3, 2])
    expected_dtype = dtype if dtype.startswith("float") else "int64"  # integers and bool compute in int64
    for N in (None, 0, 1, 2, 5):
        for increasing in (False, True):
            got = tl.vander(tl.tensor(x).to(getattr(tl, dtype)), N=N, increasing=increasing)
            ref = np.vander(x.astype(dtype), N=N, increasing=increasing)
            assert str(got.dtype) == f"torchlite.{expected_dtype}", (N, increasing)
            np.testing.assert_allclose(got.double().numpy(), ref.astype(np.float64))
    x = tl.tensor([0.5, -1.5, 2.0], dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: tl.vander(t, N=4), (x,))
    with pytest.raises(RuntimeError, match="x must be a one-dimensional tensor."):
        tl.vander(tl.ones(2, 2))
    with pytest.raises(RuntimeError, match="N must be non-negative."):
        tl.vander(tl.ones(2), N=-1)


def test_chain_matmul():
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(s) for s in ((2, 3), (3, 4), (4, 2)))
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        got = tl.chain_matmul(tl.tensor(a), tl.tensor(b), tl.tensor(c))
    np.testing.assert_allclose(got.numpy(), a @ b @ c, rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = tl.tensor(a)
        single = tl.chain_matmul(one)
        assert single.tolist() == one.tolist() and single.data_ptr() != one.data_ptr()
        with pytest.raises(RuntimeError, match=r"chain_matmul\(\): Expected one or more matrices"):
            tl.chain_matmul()
        with pytest.raises(RuntimeError, match="Tensor dimension is 1, expected 2 instead"):
            tl.chain_matmul(tl.ones(3))


def test_range_deprecated():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = tl.range(1, 4)
    assert r.dtype == tl.get_default_dtype() and r.tolist() == [1.0, 2.0, 3.0, 4.0]
    with pytest.warns(UserWarning):
        assert tl.range(1, 4, dtype=tl.int64).tolist() == [1, 2, 3, 4]
    with pytest.warns(UserWarning):
        np.testing.assert_allclose(tl.range(0, 1, 0.3).tolist(), [0, 0.3, 0.6, 0.9], rtol=1e-6)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="step must be nonzero"):
        tl.range(0, 1, 0)


def test_settings():
    assert tl.get_default_device() == tl.device("cpu")
    tl.set_default_device("cpu")
    tl.set_default_device(None)
    with pytest.raises(NotImplementedError, match="set_default_device"):
        tl.set_default_device("cuda")
    assert not tl.are_deterministic_algorithms_enabled()
    try:
        tl.use_deterministic_algorithms(True, warn_only=True)
        assert tl.are_deterministic_algorithms_enabled() and tl.is_deterministic_algorithms_warn_only_enabled()
    finally:
        tl.use_deterministic_algorithms(False)
    with pytest.raises(TypeError, match="mode"):
        tl.use_deterministic_algorithms(1)


def test_unravel_index_and_unique_consecutive():
    rows, cols = tl.unravel_index(tl.tensor([4, -1, 6, 0]), (2, 3))
    assert rows.tolist() == [1, 1, 0, 0] and cols.tolist() == [1, 2, 0, 0]  # wraps modulo 6, as PyTorch
    r, c, d = tl.unravel_index(tl.tensor([[5, 23]]), (2, 3, 4))
    want = np.unravel_index([[5, 23]], (2, 3, 4))
    assert r.tolist() == want[0].tolist() and c.tolist() == want[1].tolist() and d.tolist() == want[2].tolist()
    with pytest.raises(TypeError, match="integer dtype"):
        tl.unravel_index(tl.tensor([1.0]), (2, 3))
    v, inv, cnt = tl.unique_consecutive(tl.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True)
    assert v.tolist() == [1, 2, 3, 1, 2] and inv.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert cnt.tolist() == [2, 2, 1, 2, 1]
    v, cnt = tl.tensor([[1, 1], [1, 1], [2, 3]]).unique_consecutive(dim=0, return_counts=True)
    assert v.tolist() == [[1, 1], [2, 3]] and cnt.tolist() == [2, 1]


def test_gradient_against_numpy():
    x = np.array([0.0, 1.0, 3.0, 4.5, 7.0])
    f = np.sin(x)[None, :] * np.array([[1.0], [2.0], [3.0]])
    for edge_order in (1, 2):
        (g,) = tl.gradient(tl.tensor(f), spacing=(tl.tensor(x),), dim=1, edge_order=edge_order)
        np.testing.assert_allclose(g.tolist(), np.gradient(f, x, axis=1, edge_order=edge_order), rtol=1e-12)
        g0, g1 = tl.gradient(tl.tensor(f), spacing=[0.5, 2.0], edge_order=edge_order)
        w0, w1 = np.gradient(f, 0.5, 2.0, edge_order=edge_order)
        np.testing.assert_allclose(g0.tolist(), w0, rtol=1e-12)
        np.testing.assert_allclose(g1.tolist(), w1, rtol=1e-12)
    with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
        tl.gradient(tl.ones(2), edge_order=2)


def test_histogram_against_numpy():
    x = np.random.default_rng(10).normal(size=200).astype(np.float32)
    w = np.random.default_rng(11).uniform(size=200).astype(np.float32)
    hist, edges = tl.histogram(tl.tensor(x), 7, range=(-2.0, 2.0), weight=tl.tensor(w), density=True)
    wh, we = np.histogram(x, 7, range=(-2.0, 2.0), weights=w, density=True)
    np.testing.assert_allclose(hist.tolist(), wh, rtol=1e-4)
    np.testing.assert_allclose(edges.tolist(), we, rtol=1e-6)
    hist, edges = tl.tensor(x).histogram(tl.tensor([-1.0, 0.0, 0.5, 3.0]))
    assert hist.tolist() == np.histogram(x, [-1.0, 0.0, 0.5, 3.0])[0].tolist()
    with pytest.raises(NotImplementedError, match="'Long'"):
        tl.histogram(tl.tensor([1, 2]), 2)


def test_histogramdd_against_numpy():
    pts = np.random.default_rng(12).normal(size=(50, 2)).astype(np.float32)
    w = np.random.default_rng(13).uniform(size=50).astype(np.float32)
    hist, edges = tl.histogramdd(tl.tensor(pts), bins=[3, 4], range=[-1.0, 1.0, -2.0, 2.0], weight=tl.tensor(w),
                                 density=True)
    wh, we = np.histogramdd(pts, bins=[3, 4], range=[(-1, 1), (-2, 2)], weights=w, density=True)
    np.testing.assert_allclose(hist.tolist(), wh, rtol=1e-4)
    assert len(edges) == 2 and np.allclose(edges[1].tolist(), we[1])
    hist, _ = tl.histogramdd(tl.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]]), bins=[3, 3],
                             weight=tl.tensor([1.0, 2.0, 4.0, 8.0]))
    assert hist.tolist() == [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 8.0]]  # PyTorch's documented example


def test_inplace_helpers():
    x = tl.zeros(7, 3)
    x.fill_diagonal_(5, wrap=True)
    want = np.zeros((7, 3))
    np.fill_diagonal(want, 5, wrap=True)
    assert x.tolist() == want.tolist()
    y = tl.zeros(3, 3, 3).fill_diagonal_(2.0)
    assert y.sum().item() == 6.0 and y[1, 1, 1].item() == 2.0
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        tl.zeros(2, 3, 3).fill_diagonal_(1)
    assert tl.ones(3).apply_(lambda v: v * 2).tolist() == [2.0, 2.0, 2.0]
    assert tl.ones(2, 2).map_(tl.tensor([1.0, 2.0]), lambda a, b: a + b).tolist() == [[2.0, 3.0], [2.0, 3.0]]
    z = tl.arange(6.0)
    alias = z[:]
    assert z.resize_(2, 2) is z and z.shape == (2, 2)
    z[0, 0] = 9
    assert alias[0].item() == 9  # shrinking keeps the storage
    z.resize_(3, 3)
    assert z.shape == (3, 3) and z.reshape(-1)[:4].tolist() == [9.0, 1.0, 2.0, 3.0]
    z.resize_as_(tl.ones(5))
    assert z.shape == (5,)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        tl.ones(2, requires_grad=True).resize_(3)
    a, b = tl.ones(2), tl.zeros(3)
    assert a.set_(b) is a and a.is_set_to(b) and a.shape == (3,)
    assert a.set_().shape == (0,)


@pytest.mark.parametrize("dtype,np_dtype", [(tl.float32, np.float32), (tl.float64, np.float64)])
def test_nextafter(dtype, np_dtype):
    x = np.array([0.0, 1.0, -1.0, 1e30, np.inf, np.nan, 2.0, -0.0], dtype=np_dtype)
    y = np.array([1.0, 2.0, -np.inf, np.inf, 0.0, 1.0, 2.0, 1.0], dtype=np_dtype)
    got = tl.nextafter(tl.tensor(x), tl.tensor(y))
    assert got.dtype is dtype
    np.testing.assert_array_equal(got.numpy(), np.nextafter(x, y))  # bit for bit: the smallest subnormal after 0
    t = tl.tensor(x)
    assert t.nextafter_(tl.tensor(y)) is t
    np.testing.assert_array_equal(t.numpy(), np.nextafter(x, y))
    out = tl.empty(0, dtype=dtype)
    tl.nextafter(tl.tensor(x), tl.tensor(y), out=out)
    np.testing.assert_array_equal(out.numpy(), np.nextafter(x, y))


def test_nextafter_errors():
    with pytest.raises(NotImplementedError, match="nextafter.*'Long'"):
        tl.nextafter(tl.tensor([1, 2]), tl.tensor([2, 1]))
    with pytest.raises(TypeError):
        tl.nextafter(tl.tensor([1.0]), 2.0)  # a Tensor only, as PyTorch's
    x, y = tl.tensor([1.0, 2.0], requires_grad=True), tl.tensor([3.0, 0.0], requires_grad=True)
    tl.nextafter(x, y).sum().backward()  # PyTorch's gradient: the identity for self, zero for other
    assert x.grad.tolist() == [1.0, 1.0] and y.grad.tolist() == [0.0, 0.0]


def test_float_power_in_place():
    z = tl.tensor([2.0, 3.0], dtype=tl.float64)
    assert z.float_power_(tl.tensor([3, 2])) is z and z.tolist() == [8.0, 9.0]
    c = tl.tensor([1j, 2.0], dtype=tl.complex128)
    c.float_power_(2)
    np.testing.assert_allclose(c.numpy(), [-1, 4])
    for base, exponent, have, want in [(tl.tensor([2.0]), 2, "Float", "Double"),
                                       (tl.tensor([2]), 2, "Long", "Double"),
                                       (tl.tensor([2.0], dtype=tl.float64), 1j, "Double", "ComplexDouble"),
                                       (tl.tensor([2.0], dtype=tl.float64), tl.tensor([1j]), "Double",
                                        "ComplexDouble")]:
        with pytest.raises(RuntimeError, match=f"the base given to float_power_ has dtype {have} but the "
                           f"operation's result requires dtype {want}$"):
            base.float_power_(exponent)
    assert base.tolist() == [2.0]  # left as it was


def test_random_fills():
    tl.manual_seed(3)
    g = tl.empty(20000, dtype=tl.float64).geometric_(0.25)
    assert g.min().item() >= 1 and g.eq(g.floor()).all()
    assert abs(g.mean().item() - 4.0) < 0.15  # mean 1/p, std sqrt(1-p)/p ~ 3.5: 20000 draws, error ~0.025
    ln = tl.empty(20000, dtype=tl.float64).log_normal_(0.5, 0.25)
    assert abs(ln.log().mean().item() - 0.5) < 0.01 and abs(ln.log().std().item() - 0.25) < 0.01
    c = tl.empty(20001, dtype=tl.float64).cauchy_(1.0, 2.0)
    assert abs(c.median().item() - 1.0) < 0.1  # the median of Cauchy(1, 2); its quartiles are 1 -+ 2
    q = np.quantile(np.array(c.tolist()), [0.25, 0.75])
    assert abs(q[0] + 1.0) < 0.15 and abs(q[1] - 3.0) < 0.15
    with pytest.raises(RuntimeError, match="geometric_ expects p to be in"):
        tl.empty(2).geometric_(1.5)


def test_creation_helpers(tmp_path):
    t = tl.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=tl.uint8)
    assert t.tolist() == [1, 2, 3, 4]
    assert tl.frombuffer(bytearray(8), dtype=tl.float32, count=1, offset=4).shape == (1,)
    arr = np.arange(3.0)
    shared = tl.asarray(arr)
    arr[0] = 7
    assert shared[0].item() == 7
    assert tl.asarray(arr, copy=True).tolist() == [7.0, 1.0, 2.0]
    assert tl.asarray([1, 2]).tolist() == [1, 2]
    path = str(tmp_path / "data.bin")
    np.arange(5, dtype=np.float32).tofile(path)
    assert tl.from_file(path, size=5, dtype=tl.float32).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    mapped = tl.from_file(path, True, 5, dtype=tl.float32)
    mapped[0] = 7
    del mapped
    assert np.fromfile(path, dtype=np.float32)[0] == 7
    assert tl.ones(1).layout is tl.strided and repr(tl.contiguous_format) == "torchlite.contiguous_format"
    assert tl.typename(tl.ones(1, dtype=tl.int64)) == "torchlite.LongTensor"
    assert tl.get_device_module("cpu") is tl.cpu and tl.set_flush_denormal(True) is False


# ---------------------------------------------------------------- anomaly mode

def test_detect_anomaly_names_the_node():
    x = tl.tensor([-1.0, 4.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        ctx = tl.autograd.detect_anomaly()
    with ctx:
        assert tl.is_anomaly_enabled()
        y = x.sqrt().sum()
        with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' returned nan values in its 0th output."):
            y.backward()
    assert not tl.is_anomaly_enabled()
    # off: the NaN gradient goes through
    x.sqrt().sum().backward()
    assert np.isnan(x.grad[0].item())


def test_set_detect_anomaly():
    prev = tl.autograd.set_detect_anomaly(True)
    try:
        assert tl.is_anomaly_enabled() and tl.is_anomaly_check_nan_enabled()
        x = tl.tensor([0.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="'DivBackward0' returned nan values in its 1th output"):
            tl.autograd.grad((x / x).sum(), x)
    finally:
        prev.__exit__(None, None, None)
    assert not tl.is_anomaly_enabled()
    with tl.autograd.set_detect_anomaly(True, check_nan=False):
        assert tl.is_anomaly_enabled() and not tl.is_anomaly_check_nan_enabled()
        x = tl.tensor([-1.0], requires_grad=True)
        x.sqrt().sum().backward()  # checks off: no error
    assert not tl.is_anomaly_enabled()


# ---------------------------------------------------------------- torchlite.cuda basics

def test_cuda_seeding_and_streams():
    tl.cuda.manual_seed(7)
    assert tl.cuda.initial_seed() == 7
    tl.cuda.manual_seed_all(8)
    assert tl.cuda.initial_seed() == 8
    state = tl.cuda.get_rng_state()
    tl.cuda.seed()
    tl.cuda.set_rng_state(state)
    assert tl.cuda.initial_seed() == 8
    with tl.cuda.stream(None):
        pass
    if not tl.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            tl.cuda.Stream()
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            tl.cuda.current_stream()
        return
    s = tl.cuda.Stream()
    with tl.cuda.stream(s):
        assert tl.cuda.current_stream() is s
    assert tl.cuda.current_stream() == tl.cuda.default_stream()
    start, end = tl.cuda.Event(enable_timing=True), tl.cuda.Event(enable_timing=True)
    start.record()
    tl.ones(10, device="cuda").sum()
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0 and s.query()


def test_generic_stream_and_event():
    s = tl.Stream()
    assert s.device_type == "cpu" and s.query() and s.synchronize() is None
    with s:
        pass
    e = tl.Event()
    with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
        e.record(s)
    with pytest.raises(ValueError, match="enable_timing=True"):
        tl.Event(enable_timing=True).elapsed_time(e)


# ---------------------------------------------------------------- tools/api_coverage.py

def _coverage_module():
    spec = importlib.util.spec_from_file_location("api_coverage", os.path.join(ROOT, "tools", "api_coverage.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_api_coverage_parses_the_index(tmp_path):
    index = tmp_path / "genindex.txt"
    index.write_text("\n".join([
        "  * abs() (in module torch)",
        "    * (torch.Tensor method)",
        "  * add() (in module torch)",
        "    * (torch.distributed.Store method)",
        "    * (torch.Tensor method)",
        "  * to_sparse() (torch.Tensor method)",
        "  * q_scale() (torch.Tensor method)",
        "  * rename() (torch.Tensor method)",
        "  * _assert() (in module torch)",
        "  * Generator (class in torch)",
        "  * grad (torch.Tensor attribute)",
        "  * FloatStorage (class in torch)",
        "  * relu() (in module torch.nn.functional)",
        "",
    ]))
    doc = _coverage_module().documented(str(index))
    assert doc["torch"] == {"abs", "add", "Generator"}
    assert doc["Tensor"] == {"abs", "add", "grad"}


def test_api_coverage_runs(capsys):
    mod = _coverage_module()
    if not os.path.exists(mod.DOCS):
        pytest.skip(f"the documentation seed {mod.DOCS} is not on this machine")
    assert mod.main(["--quiet"]) == 0
    out = capsys.readouterr().out
    assert "top-level callables" in out and "overall" in out


# ---------------------------------------------------------------- against PyTorch

def test_against_torch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(9).uniform(-2, 2, size=(3, 4)).astype(np.float32)
    tx, lx = torch.tensor(x), tl.tensor(x)
    for name in ("sum", "mean", "amax", "argmin", "std"):
        want = getattr(torch, name)(tx, axis=1, keepdims=True).numpy()
        np.testing.assert_allclose(np.array(getattr(tl, name)(lx, axis=1, keepdims=True).tolist()), want, rtol=1e-5)
    for name in ("FloatTensor", "LongTensor", "ByteTensor", "BoolTensor"):
        assert getattr(tl, name)([1, 0]).tolist() == getattr(torch, name)([1, 0]).tolist()
        assert getattr(tl, name)([1]).type().split(".")[-1] == getattr(torch, name)([1]).type().split(".")[-1]
    assert tl.Tensor(2, 3).shape == tuple(torch.Tensor(2, 3).shape)
    a, b = tl.tensor([1, 2, 3]), tl.tensor([4, 5])
    for lg, tg in zip(tl.meshgrid(a, b, indexing="xy"), torch.meshgrid(torch.tensor([1, 2, 3]),
                                                                     torch.tensor([4, 5]), indexing="xy")):
        assert lg.tolist() == tg.tolist()
    assert tl.combinations(tl.tensor([1, 2, 3]), 2, True).tolist() == \
        torch.combinations(torch.tensor([1, 2, 3]), 2, True).tolist()
    assert tl.block_diag(tl.tensor(1), tl.tensor([2, 3])).tolist() == \
        torch.block_diag(torch.tensor(1), torch.tensor([2, 3])).tolist()


def test_composites_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(14)
    x = rng.uniform(-2, 2, size=(3, 6)).astype(np.float32)
    tx, lx = torch.tensor(x), tl.tensor(x)

    def close(a, b, rtol=1e-5):
        np.testing.assert_allclose(np.array(a.tolist(), dtype=np.float64), b.double().numpy(), rtol=rtol, atol=1e-6)

    close(tl.logcumsumexp(lx * 50, 1), torch.logcumsumexp(tx * 50, 1))
    close(tl.logaddexp(lx, lx.flip(0)), torch.logaddexp(tx, tx.flip(0)))
    close(tl.logaddexp2(lx, lx.flip(0)), torch.logaddexp2(tx, tx.flip(0)))
    close(tl.diff(lx, 2, 0), torch.diff(tx, 2, 0))
    close(tl.diff(lx, 1, 1, prepend=lx[:, :1], append=lx), torch.diff(tx, 1, 1, prepend=tx[:, :1], append=tx))
    assert tl.diff(tl.tensor([True, False, False])).tolist() == torch.diff(torch.tensor([True, False, False])).tolist()
    close(tl.float_power(lx.abs(), 1.5), torch.float_power(tx.abs(), 1.5))
    assert tl.float_power(lx, 2).dtype == tl.float64
    close(tl.ldexp(lx, tl.tensor([1, 2, 3, -1, 0, 4])), torch.ldexp(tx, torch.tensor([1, 2, 3, -1, 0, 4])))
    close(tl.inner(lx, lx), torch.inner(tx, tx))
    close(tl.dist(lx, lx.flip(1), 3), torch.dist(tx, tx.flip(1), 3))
    close(tl.nanmean(lx, 1), torch.nanmean(tx, 1))
    close(tl.heaviside(lx, tl.tensor([0.5])), torch.heaviside(tx, torch.tensor([0.5])))
    i = tl.tensor([[-12, 0, 7], [18, 5, -4]])
    ti = torch.tensor(i.tolist())
    assert tl.gcd(i, i.flip(1)).tolist() == torch.gcd(ti, ti.flip(1)).tolist()
    assert tl.lcm(i, i.flip(1)).tolist() == torch.lcm(ti, ti.flip(1)).tolist()
    assert tl.tril_indices(4, 3, -1).tolist() == torch.tril_indices(4, 3, -1).tolist()
    assert tl.triu_indices(3, 5, 2).tolist() == torch.triu_indices(3, 5, 2).tolist()
    assert [t.shape for t in tl.hsplit(lx, [1, 4])] == [tuple(t.shape) for t in torch.hsplit(tx, [1, 4])]
    assert tl.column_stack([lx[0], lx[1]]).tolist() == torch.column_stack([tx[0], tx[1]]).tolist()
    close(tl.rad2deg(lx), torch.rad2deg(tx))
    close(tl.deg2rad(lx), torch.deg2rad(tx))
    a, b = torch.ones(2, 3), torch.ones(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.addmm(0.5, torch.ones(2, 2), 2.0, a, b)
    with pytest.warns(UserWarning):
        got = tl.addmm(0.5, tl.ones(2, 2), 2.0, tl.ones(2, 3), tl.ones(3, 2))
    close(got, want)


def test_searches_and_histograms_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(23)
    seq = np.sort(rng.integers(-4, 5, size=(3, 7)), -1).astype(np.float32)  # repeated values: left != right
    val = rng.integers(-5, 6, size=(3, 5)).astype(np.float32)
    ts, tv, ls, lv = torch.tensor(seq), torch.tensor(val), tl.tensor(seq), tl.tensor(val)
    for kw in ({}, {"right": True}, {"side": "right"}, {"side": "left"}, {"out_int32": True}):
        got, want = tl.searchsorted(ls, lv, **kw), torch.searchsorted(ts, tv, **kw)
        assert got.tolist() == want.tolist(), kw
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert tl.searchsorted(ls[0], lv, **kw).tolist() == torch.searchsorted(ts[0], tv, **kw).tolist()
    perm = rng.permutation(7)
    unsorted = seq[0][perm]
    sorter = np.argsort(unsorted, kind="stable")
    assert tl.searchsorted(tl.tensor(unsorted), lv, sorter=tl.tensor(sorter)).tolist() == \
        torch.searchsorted(torch.tensor(unsorted), tv, sorter=torch.tensor(sorter)).tolist()
    assert tl.searchsorted(ls[0], 1.0).tolist() == torch.searchsorted(ts[0], 1.0).tolist()
    for right in (False, True):
        assert tl.bucketize(lv, ls[1], right=right).tolist() == torch.bucketize(tv, ts[1], right=right).tolist()
        assert tl.bucketize(2, ls[1], right=right).tolist() == torch.bucketize(2, ts[1], right=right).tolist()
    # bincount: counts, weights (float32 stays float32, others give float64), minlength
    ints = rng.integers(0, 6, size=20)
    w32 = rng.uniform(0, 1, size=20).astype(np.float32)
    for kw in ({}, {"minlength": 10}, {"weights": w32}, {"weights": w32.astype(np.float64)},
               {"weights": w32.astype(np.float16)}):
        tkw = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        lkw = {k: tl.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        got, want = tl.bincount(tl.tensor(ints), **lkw), torch.bincount(torch.tensor(ints), **tkw)
        np.testing.assert_allclose(np.array(got.tolist()), want.double().numpy(), rtol=1e-6)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tl.bincount(tl.tensor([], dtype=tl.int64), minlength=3).tolist() == [0, 0, 0]
    # histc: the data's range, a given range (values outside ignored, max in the last bin)
    x = rng.normal(size=200).astype(np.float32)
    for args in ((), (7,), (5, -1, 1), (4, 0.5, 0.5)):
        assert tl.histc(tl.tensor(x), *args).tolist() == torch.histc(torch.tensor(x), *args).tolist(), args
    assert tl.histc(tl.tensor([1.0, 2.0, 3.0]), 3, 1, 3).tolist() == [1.0, 1.0, 1.0]
    # isin, all overloads and invert
    e, t = rng.integers(0, 8, size=(3, 4)), rng.integers(0, 8, size=5)
    for invert in (False, True):
        assert tl.isin(tl.tensor(e), tl.tensor(t), invert=invert).tolist() == \
            torch.isin(torch.tensor(e), torch.tensor(t), invert=invert).tolist()
        assert tl.isin(tl.tensor(e), 3, invert=invert).tolist() == torch.isin(torch.tensor(e), 3, invert=invert).tolist()
        assert tl.isin(3, tl.tensor(t), invert=invert).tolist() == torch.isin(3, torch.tensor(t), invert=invert).tolist()
    assert tl.isin(tl.tensor([1.0, float("nan")]), tl.tensor([float("nan"), 1.0])).tolist() == [True, False]


def test_statistics_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(24)
    x = rng.normal(size=(3, 8)).astype(np.float64)
    tx, lx = torch.tensor(x), tl.tensor(x)

    def close(a, b, rtol=1e-10, atol=1e-12):
        np.testing.assert_allclose(np.array(a.tolist(), dtype=np.float64), b.double().numpy(), rtol=rtol, atol=atol)

    fw = rng.integers(0, 4, size=8)
    aw = rng.uniform(0.1, 2, size=8)
    for kw in ({}, {"correction": 0}, {"correction": 2}, {"fweights": fw}, {"aweights": aw},
               {"fweights": fw, "aweights": aw, "correction": 0}, {"fweights": fw, "aweights": aw}):
        tkw = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        lkw = {k: tl.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        close(tl.cov(lx, **lkw), torch.cov(tx, **tkw))
    close(tl.cov(lx[0]), torch.cov(tx[0]))
    assert tl.cov(lx[0]).shape == ()
    close(tl.corrcoef(lx), torch.corrcoef(tx))
    close(tl.cov(tl.tensor([[1, 2, 4], [0, 3, 3]])), torch.cov(torch.tensor([[1, 2, 4], [0, 3, 3]])), rtol=1e-6)
    assert tl.cov(tl.tensor([[1, 2, 4], [0, 3, 3]])).dtype == tl.float32
    # quantile: every interpolation, q tensors and numbers, dim None and not, keepdim, NaN rows
    xn = x.copy()
    xn[1, 3] = np.nan
    for data in (x, xn):
        td, ld = torch.tensor(data), tl.tensor(data)
        for interpolation in ("linear", "lower", "higher", "midpoint", "nearest"):
            for q in (0.0, 0.37, 0.5, 1.0, [0.1, 0.25, 0.9]):
                tq = torch.tensor(q, dtype=torch.float64) if isinstance(q, list) else q
                lq = tl.tensor(q, dtype=tl.float64) if isinstance(q, list) else q
                for dim, keepdim in ((None, False), (None, True), (1, False), (0, True), (-1, True)):
                    for name in ("quantile", "nanquantile"):
                        got = getattr(tl, name)(ld, lq, dim, keepdim, interpolation=interpolation)
                        want = getattr(torch, name)(td, tq, dim, keepdim, interpolation=interpolation)
                        assert got.shape == tuple(want.shape), (name, q, dim, keepdim)
                        close(got, want)
    close(tl.tensor(x).float().quantile(0.3, 1), torch.tensor(x).float().quantile(0.3, 1), rtol=1e-6, atol=1e-6)
    # rows with many different NaN counts: nanquantile sorts instead of selecting per count
    many = rng.normal(size=(40, 30))
    many[rng.uniform(size=many.shape) < 0.3] = np.nan
    many[3] = np.nan
    for interpolation in ("linear", "nearest", "midpoint"):
        for dim in (0, 1):
            close(tl.nanquantile(tl.tensor(many), tl.tensor([0.2, 0.7], dtype=tl.float64), dim,
                                 interpolation=interpolation),
                  torch.nanquantile(torch.tensor(many), torch.tensor([0.2, 0.7], dtype=torch.float64), dim,
                                    interpolation=interpolation))
    # q gets its gradient (linear interpolation), on both paths
    for data, name in ((x, "quantile"), (many, "nanquantile")):
        lq = tl.tensor([0.3, 0.6], dtype=tl.float64, requires_grad=True)
        tq = torch.tensor([0.3, 0.6], dtype=torch.float64, requires_grad=True)
        getattr(tl, name)(tl.tensor(data), lq, 1).nansum().backward()
        getattr(torch, name)(torch.tensor(data), tq, 1).nansum().backward()
        close(lq.grad, tq.grad)


def test_integration_and_windows_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(25)
    y = rng.normal(size=(3, 5))
    xs = np.sort(rng.uniform(0, 4, size=5))
    ty, ly = torch.tensor(y), tl.tensor(y)

    def close(a, b, rtol=1e-10, atol=1e-12):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(np.array(a.tolist(), dtype=np.float64), b.double().numpy(), rtol=rtol, atol=atol)

    for name in ("trapezoid", "trapz", "cumulative_trapezoid"):
        tf, lf = getattr(torch, name), getattr(tl, name)
        close(lf(ly), tf(ty))
        close(lf(ly, tl.tensor(xs)), tf(ty, torch.tensor(xs)))
        xd = np.sort(rng.uniform(0, 4, size=(3, 5)), 0)
        close(lf(ly, tl.tensor(xd), dim=0), tf(ty, torch.tensor(xd), dim=0))
        close(lf(ly, tl.tensor(xd[:, :1]), dim=0), tf(ty, torch.tensor(xd[:, :1]), dim=0))
        close(lf(ly, dx=0.5, dim=0), tf(ty, dx=0.5, dim=0))
        close(lf(ly, tl.tensor(np.sort(y, 1))), tf(ty, torch.tensor(np.sort(y, 1))))
    close(tl.trapezoid(tl.tensor([[1, 2, 4]])), torch.trapezoid(torch.tensor([[1, 2, 4]])))
    for n in (0, 1, 2, 7, 8):
        for periodic in (True, False):
            for name, extra in (("hann_window", ()), ("hamming_window", ()), ("hamming_window", (0.6,)),
                                ("hamming_window", (0.5, 0.3)), ("blackman_window", ()), ("bartlett_window", ()),
                                ("kaiser_window", ()), ("kaiser_window", (5.0,))):
                got = getattr(tl, name)(n, periodic, *extra, dtype=tl.float64)
                want = getattr(torch, name)(n, periodic, *extra, dtype=torch.float64)
                close(got, want, atol=1e-12)
    got, want = tl.hann_window(5), torch.hann_window(5)
    assert got.dtype == tl.float32
    close(got, want, rtol=1e-6, atol=1e-7)


def test_writes_and_misc_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(26)
    x = rng.normal(size=(4, 3))
    tx, lx = torch.tensor(x), tl.tensor(x)

    def close(a, b, rtol=1e-10, atol=1e-12):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(np.array(a.tolist(), dtype=np.float64), b.double().numpy(), rtol=rtol, atol=atol)

    src = rng.normal(size=(5, 3))
    index = [0, 2, 0, 3, 2]
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            close(tl.index_reduce(lx, 0, tl.tensor(index), tl.tensor(src), reduce, include_self=include_self),
                  torch.index_reduce(tx, 0, torch.tensor(index), torch.tensor(src), reduce, include_self=include_self))
    close(lx.index_reduce(1, tl.tensor([2, 2]), tl.tensor(x[:, :2]), "mean"),
          tx.index_reduce(1, torch.tensor([2, 2]), torch.tensor(x[:, :2]), "mean"))
    for accumulate, idx in ((False, [5, 0, -1]), (True, [5, 0, -1, 5])):
        vals = list(np.arange(1.0, len(idx) + 1))
        close(tl.put(lx, tl.tensor(idx), tl.tensor(vals, dtype=tl.float64), accumulate),
              torch.put(tx, torch.tensor(idx), torch.tensor(vals, dtype=torch.float64), accumulate))
    y = lx.clone()
    y.put_(tl.tensor([1]), tl.tensor([7.0], dtype=tl.float64))
    assert y.tolist()[0][1] == 7.0
    close(tl.addr(lx, lx[:, 0], lx[0], beta=0.5, alpha=2), torch.addr(tx, tx[:, 0], tx[0], beta=0.5, alpha=2))
    close(tl.addr(tl.full((4, 3), float("nan"), dtype=tl.float64), lx[:, 0], lx[0], beta=0),
          torch.addr(torch.full((4, 3), float("nan"), dtype=torch.float64), tx[:, 0], tx[0], beta=0))
    close(tl.narrow_copy(lx, 0, 1, 2), torch.narrow_copy(tx, 0, 1, 2))
    close(tl.select_scatter(lx, lx[0], 0, -1), torch.select_scatter(tx, tx[0], 0, -1))
    close(tl.slice_scatter(lx, lx[:2], 0, 2), torch.slice_scatter(tx, tx[:2], 0, 2))
    close(tl.slice_scatter(lx, lx[:, ::2], 1, step=2), torch.slice_scatter(tx, tx[:, ::2], 1, step=2))
    close(tl.diagonal_scatter(lx, lx[:2, 0], 1), torch.diagonal_scatter(tx, tx[:2, 0], 1))
    close(tl.diagonal_scatter(lx, lx[:3, 0], -1), torch.diagonal_scatter(tx, tx[:3, 0], -1))
    z = tl.tensor(rng.normal(size=(2, 4, 3)))
    tz = torch.tensor(z.tolist(), dtype=torch.float64)
    for size in ((4, 1), (1, 4, 3), (3,), (1,), (2, 1, 1)):
        close(z.sum_to_size(size), tz.sum_to_size(size))
    close(z.sum_to_size(4, 1), tz.sum_to_size(4, 1))
    assert tl.isreal(lx).tolist() == torch.isreal(tx).tolist()
    for p, dim, maxnorm in ((2, 0, 1.0), (1, 1, 0.5), (3, -1, 10.0)):
        close(tl.renorm(lx, p, dim, maxnorm), torch.renorm(tx, p, dim, maxnorm))
    special = [0.0, -0.0, 1.0, -3.5, 0.5, 1e-310, 2.0 ** 60, 3.0e38, float("inf"), float("nan")]
    for dtype, tdtype in ((tl.float64, torch.float64), (tl.float32, torch.float32)):
        vals = special + list(rng.normal(size=20) * 1000)
        m, e = tl.frexp(tl.tensor(vals, dtype=dtype))
        tm, te = torch.frexp(torch.tensor(vals, dtype=tdtype))
        np.testing.assert_array_equal(np.array(m.tolist()), tm.numpy())
        assert e.tolist() == te.tolist() and e.dtype == tl.int32


def test_multinomial_distribution():
    tl.manual_seed(0)
    p = tl.tensor([0.1, 0.0, 0.6, 0.3], dtype=tl.float64)
    n = 40000
    draws = tl.multinomial(p, n, replacement=True)
    assert draws.shape == (n,) and draws.dtype == tl.int64
    freq = np.bincount(np.array(draws.tolist()), minlength=4) / n
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.01)
    # without replacement: distinct categories per row; the first draw follows p, zero-probability ones never
    # come before the others
    rows = tl.multinomial(tl.tensor([[1.0, 2.0, 0.0, 7.0]]).expand(20000, 4), 3)
    assert rows.shape == (20000, 3)
    r = np.array(rows.tolist())
    assert all(len(set(row)) == 3 for row in r[:200])
    assert not (r[:, :2] == 2).any() and (r[:, 2] != 2).all()
    np.testing.assert_allclose(np.bincount(r[:, 0], minlength=4) / len(r), [0.1, 0.2, 0.0, 0.7], atol=0.015)
    # the second draw given the first is 0: 2 / 9 for category 1
    second = r[r[:, 0] == 0][:, 1]
    np.testing.assert_allclose((second == 1).mean(), 2 / 9, atol=0.04)
    g = tl.Generator().manual_seed(5)
    a = tl.multinomial(p, 10, True, generator=g)
    g.manual_seed(5)
    assert tl.multinomial(p, 10, True, generator=g).tolist() == a.tolist()
    assert tl.multinomial(tl.tensor([0.0, 1.0, 0.0]), 3).tolist()[0] == 1


@pytest.mark.parametrize("name", ["symeig", "eig", "matrix_rank", "lstsq", "solve"])
def test_linalg_names_removed_in_pytorch_raise_its_guidance(name):
    a = tl.eye(2)
    with pytest.raises(RuntimeError, match="This function was deprecated since version 1.9 and is now removed") as e:
        getattr(tl, name)(a, a)
    if name != "matrix_rank":  # PyTorch has no Tensor.matrix_rank method left
        with pytest.raises(RuntimeError, match="is now removed"):
            getattr(a, name)(a)
    torch = pytest.importorskip("torch", reason="PyTorch is an optional oracle")
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch, name)(torch.eye(2), torch.eye(2))
    assert str(e.value) == str(theirs.value)


def test_old_linalg_names_warn_once_as_pytorch(monkeypatch):
    from torchlite import _deprecated

    monkeypatch.setattr(_deprecated, "_warned", set())
    a = tl.tensor([[4.0, 1.0], [1.0, 3.0]])
    b = tl.tensor([[1.0], [2.0]])
    calls = {"cholesky": lambda: tl.cholesky(a), "qr": lambda: a.qr(), "lu": lambda: tl.lu(a),
             "triangular_solve": lambda: b.triangular_solve(a), "lu_solve": lambda: tl.lu_solve(b, *tl.linalg.lu_factor(a))}
    for name, call in calls.items():
        with pytest.warns(UserWarning, match=f"torch.{name} is deprecated in favor of torch.linalg"):
            first = call()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # once per process, as PyTorch's TORCH_WARN_ONCE
            again = call()
        assert all(tl.equal(x, y) for x, y in zip(first if isinstance(first, tuple) else (first,),
                                                   again if isinstance(again, tuple) else (again,)))
    np.testing.assert_allclose(tl.cholesky(a).numpy(), tl.linalg.cholesky(a).numpy())
