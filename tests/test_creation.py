"""Creation ops: arange, linspace, logspace, eye, empty_strided, *_like, new_*, and nan_to_num/positive.

References are NumPy's (float64) or values checked against PyTorch 2.13; torchlite/testing/_samples/creation.py
gives the op database's tests their samples and error cases."""
import math

import numpy as np
import pytest

import torchlite as tl


def values(t):
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


# ------------------------------------------------------------------------------------------ arange
@pytest.mark.parametrize("args,kwargs,dtype", [
    ((5,), {}, tl.int64), ((2, 9), {}, tl.int64), ((9, -3, -2), {}, tl.int64), ((1, 2.5, 0.5), {}, tl.float32),
    ((0.5,), {}, tl.float32), ((True,), {}, tl.int64), ((0, 10, 3), {"dtype": tl.float32}, tl.float32),
    ((-4, 4), {"dtype": tl.int8}, tl.int8), ((0, 6), {"dtype": tl.float16}, tl.float16),
    ((0, 1, 0.25), {"dtype": tl.bfloat16}, tl.bfloat16), ((0, 0), {}, tl.int64), ((3, 3, -1), {}, tl.int64),
])
def test_arange_exact(args, kwargs, dtype):
    r = tl.arange(*args, **kwargs)
    assert r.dtype == dtype
    np.testing.assert_array_equal(values(r), np.arange(*[float(a) for a in args]))


def test_arange_dtype_follows_default_dtype():
    tl.set_default_dtype(tl.float64)
    try:
        assert tl.arange(0.5).dtype == tl.float64 and tl.arange(3).dtype == tl.int64
    finally:
        tl.set_default_dtype(tl.float32)


@pytest.mark.parametrize("start,end,step", [(-5, 5, 0.3), (0, 100, 0.37), (1.1, 50.3, 0.77), (10, -10, -1.5)])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_arange_fractional_step(start, end, step, dtype):
    r = tl.arange(start, end, step, dtype=dtype)
    n = math.ceil((end - start) / step)
    assert tuple(r.shape) == (n,)
    ref = start + step * np.arange(n, dtype=np.float64)
    rtol = 1e-6 if dtype == tl.float32 else 1e-15
    np.testing.assert_allclose(values(r), ref, rtol=rtol, atol=rtol)


def test_arange_integer_results_truncate_bounds():
    # Checked against PyTorch 2.13: bounds and step are truncated toward zero for integer results, the
    # length comes from the float range except for int64.
    assert tl.arange(0.5, 3.9, 1, dtype=tl.int64).tolist() == [0, 1, 2]
    assert tl.arange(0.5, 3.9, 1, dtype=tl.int32).tolist() == [0, 1, 2, 3]
    assert tl.arange(0, 3, 1.5, dtype=tl.int32).tolist() == [0, 1]
    assert tl.arange(-0.5, 2, dtype=tl.int64).tolist() == [0, 1]
    assert tl.arange(10**18, 10**18 + 3).tolist() == [10**18, 10**18 + 1, 10**18 + 2]


def test_arange_out_resizes_and_keeps_dtype():
    out = tl.empty((2, 2))
    r = tl.arange(5, out=out)
    assert r is out and tuple(out.shape) == (5,) and out.dtype == tl.float32
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    small = tl.empty((0,), dtype=tl.int8)
    assert tl.arange(1, 4, out=small).tolist() == [1, 2, 3] and small.dtype == tl.int8


# ------------------------------------------------------------------------------------------ linspace
@pytest.mark.parametrize("start,end,steps", [(-1.3, 7.7, 37), (0, 1, 5), (2, -3, 8), (0, 1, 1), (2, 1, 0), (5, 5, 4)])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_linspace(start, end, steps, dtype):
    r = tl.linspace(start, end, steps, dtype=dtype)
    assert r.dtype == dtype and tuple(r.shape) == (steps,)
    ref = np.linspace(start, end, steps)
    rtol = 1e-6 if dtype == tl.float32 else 1e-15
    np.testing.assert_allclose(values(r), ref, rtol=rtol, atol=rtol)
    if steps > 1:  # both ends exact, the middle symmetric
        np_t = np.float32 if dtype == tl.float32 else np.float64
        assert r.tolist()[0] == np_t(start) and r.tolist()[-1] == np_t(end)


def test_linspace_integer_and_half():
    # Checked against PyTorch 2.13: the step is a double and values truncate.
    assert tl.linspace(0, 10, 4, dtype=tl.int64).tolist() == [0, 3, 6, 10]
    assert tl.linspace(-3, 10, 5, dtype=tl.int32).tolist() == [-3, 0, 3, 6, 10]
    assert tl.linspace(0, 1, 5, dtype=tl.float16).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_linspace_float32_matches_the_two_sided_formula():
    # start + step * i for the first half, end - step * (n - 1 - i) for the second, in float32.
    s, e, n = np.float32(-1.3), np.float32(7.7), 37
    step = np.float32((e - s) / np.float32(n - 1))
    ref = [s + step * np.float32(i) if i < n // 2 else e - step * np.float32(n - 1 - i) for i in range(n)]
    np.testing.assert_array_equal(np.array(tl.linspace(-1.3, 7.7, n).tolist(), dtype=np.float32),
                                  np.array(ref, dtype=np.float32))


# ------------------------------------------------------------------------------------------ logspace
@pytest.mark.parametrize("start,end,steps,base", [(0, 2, 3, 10.0), (0, 2, 3, 2.0), (-1.5, 2.3, 11, 10.0),
                                                  (3, -1, 6, 0.5), (1, 1, 1, 10.0)])
def test_logspace(start, end, steps, base):
    r = tl.logspace(start, end, steps, base=base, dtype=tl.float64)
    np.testing.assert_allclose(values(r), np.logspace(start, end, steps, base=base), rtol=1e-14)


def test_logspace_dtypes():
    assert tl.logspace(0, 2, 3).tolist() == [1.0, 10.0, 100.0] and tl.logspace(0, 2, 3).dtype == tl.float32
    assert tl.logspace(0, 2, 3, dtype=tl.int64).tolist() == [1, 10, 100]


# ------------------------------------------------------------------------------------------ eye
@pytest.mark.parametrize("n,m", [(3, None), (2, 3), (3, 1), (0, None), (0, 2)])
@pytest.mark.parametrize("dtype", [None, tl.int32, tl.bool, tl.float16])
def test_eye(n, m, dtype):
    r = tl.eye(n, m, dtype=dtype)
    assert r.dtype == (dtype or tl.float32)
    np.testing.assert_array_equal(values(r), np.eye(n, m))


def test_eye_out():
    out = tl.empty((1,))
    assert tl.eye(3, out=out) is out and values(out).tolist() == np.eye(3).tolist()


# ------------------------------------------------------------------------------------------ empty_strided, *_like, new_*
def test_empty_strided_layout():
    t = tl.empty_strided((2, 3), (1, 2))
    assert tuple(t.stride()) == (1, 2) and tuple(t.shape) == (2, 3) and not t.is_contiguous()
    t.copy_(tl.tensor([[1.0, 2, 3], [4, 5, 6]]))
    assert t.tolist() == [[1.0, 2, 3], [4, 5, 6]]
    assert tuple(tl.empty_strided((2, 0, 3), (0, 0, 0)).shape) == (2, 0, 3)
    assert tl.empty_strided((2, 3), (3, 1), dtype=tl.int16).dtype == tl.int16


def test_like_ops_keep_shape_dtype_and_dense_strides():
    x = tl.arange(12, dtype=tl.float32).reshape(3, 4).t()  # dense, transposed
    for r in (tl.empty_like(x), tl.zeros_like(x), tl.ones_like(x), tl.full_like(x, 2)):
        assert tuple(r.shape) == (4, 3) and tuple(r.stride()) == (1, 4) and r.dtype == tl.float32
    assert tl.zeros_like(x).tolist() == np.zeros((4, 3)).tolist()
    assert tl.ones_like(x).tolist() == np.ones((4, 3)).tolist()
    e = tl.ones(4, 1).expand(4, 3)  # overlapping: a contiguous result
    assert tuple(tl.empty_like(e).stride()) == (3, 1)
    s = x.narrow(0, 0, 2)  # a gap between rows: contiguous
    assert tl.empty_like(s).is_contiguous()


def test_like_ops_dtype_rules():
    i = tl.ones(2, dtype=tl.int32)
    assert tl.full_like(i, 2.5).tolist() == [2, 2] and tl.full_like(i, 2.5).dtype == tl.int32
    assert tl.ones_like(i, dtype=tl.float64).dtype == tl.float64
    assert tl.zeros_like(tl.ones(2, dtype=tl.bool)).tolist() == [False, False]


def test_new_ops_inherit_dtype():
    x = tl.ones(2, 3, dtype=tl.int32)
    assert x.new_zeros((2,)).dtype == tl.int32 and x.new_zeros((2,)).tolist() == [0, 0]
    assert x.new_ones((2, 1), dtype=tl.float64).tolist() == [[1.0], [1.0]]
    assert x.new_full((2,), 1.5).tolist() == [1, 1]
    assert tuple(x.new_empty((0, 4)).shape) == (0, 4) and x.new_empty((3,)).dtype == tl.int32
    assert tuple(x.new_empty_strided((2, 2), (1, 2)).stride()) == (1, 2)
    assert x.new_zeros(3).tolist() == [0, 0, 0]  # a bare int is a one-dim size


# ------------------------------------------------------------------------------------------ nan_to_num, positive
SPECIAL = [float("nan"), float("inf"), -float("inf"), 1.5, -0.0]


@pytest.mark.parametrize("dtype,big", [(tl.float16, 65504.0), (tl.bfloat16, 3.3895313892515355e38),
                                       (tl.float32, 3.4028234663852886e38), (tl.float64, 1.7976931348623157e308)])
def test_nan_to_num_defaults_are_the_dtype_limits(dtype, big):
    r = tl.nan_to_num(tl.tensor(SPECIAL, dtype=dtype))
    assert r.dtype == dtype and r.tolist() == [0.0, big, -big, 1.5, -0.0]
    assert big == tl.finfo(dtype).max


def test_nan_to_num_values_and_variants():
    x = tl.tensor(SPECIAL)
    assert tl.nan_to_num(x, nan=2.0, posinf=9.0, neginf=-9.0).tolist() == [2.0, 9.0, -9.0, 1.5, -0.0]
    assert tl.nan_to_num(x, posinf=1e300).tolist()[1] == float("inf")  # cast to the dtype, as PyTorch
    assert x.nan_to_num(neginf=0.0).tolist()[2] == 0.0
    y = x.clone()
    assert y.nan_to_num_() is y and y.tolist() == tl.nan_to_num(x).tolist()
    out = tl.empty((1,))
    assert tl.nan_to_num(x, out=out) is out and out.tolist() == tl.nan_to_num(x).tolist()
    i = tl.tensor([1, 2])
    r = tl.nan_to_num(i)
    assert r.tolist() == [1, 2] and r.dtype == tl.int64 and r.data_ptr() != i.data_ptr()


def test_positive_returns_self():
    x = tl.ones(2)
    assert tl.positive(x) is x and x.positive() is x and (+x) is x
    with pytest.raises(RuntimeError, match="bool tensor is not supported"):
        tl.positive(tl.ones(2, dtype=tl.bool))


# ------------------------------------------------------------------------------------------ from_numpy, as_tensor
def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6.0).reshape(2, 3)
    t = tl.from_numpy(a)
    assert t.dtype == tl.float64 and tuple(t.shape) == (2, 3) and tuple(t.stride()) == (3, 1)
    t.add_(1)
    assert a.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    a[0, 0] = -5
    assert t.tolist()[0][0] == -5.0
    assert np.shares_memory(t.numpy(), a)


def test_from_numpy_keeps_the_array_alive_and_strided():
    import gc
    b = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    u = tl.from_numpy(b)
    assert tuple(u.stride()) == (4, 2) and u.tolist() == b.tolist()
    expected = b.tolist()
    del b
    gc.collect()
    assert u.tolist() == expected  # the view's base array is still alive
    assert tl.from_numpy(np.zeros((0, 3), dtype=np.int16)).shape == (0, 3)
    assert tl.from_numpy(np.array(2.5, dtype=np.float32)).item() == 2.5


@pytest.mark.parametrize("arr,exc,msg", [
    ([1, 2], TypeError, "expected np.ndarray (got list)"),
    (np.ones(3)[::-1], ValueError, "negative"),
    (np.array([1], dtype="datetime64[s]"), TypeError, "can't convert np.ndarray of type numpy.datetime64"),
    (np.array([1], dtype=np.clongdouble), TypeError, "can't convert np.ndarray of type numpy.clongdouble"),
    (np.ones(2, dtype=">f4"), TypeError, "'>f'"),
])
def test_from_numpy_refusals(arr, exc, msg):
    with pytest.raises(exc, match=re_escape(msg)):
        tl.from_numpy(arr)


def re_escape(s):
    import re
    return re.escape(s)


def test_as_tensor_shares_when_it_can():
    a = np.ones(3)
    t = tl.as_tensor(a)
    t.mul_(2)
    assert a.tolist() == [2.0, 2.0, 2.0]  # shared
    c = tl.as_tensor(a, dtype=tl.float32)
    c.mul_(2)
    assert a.tolist() == [2.0, 2.0, 2.0] and c.dtype == tl.float32  # converted: a copy
    x = tl.ones(2)
    assert tl.as_tensor(x) is x and tl.as_tensor(x, dtype=tl.float64).dtype == tl.float64
    assert tl.as_tensor([1, 2]).dtype == tl.int64 and tl.as_tensor(np.ones(3)[::-1]).tolist() == [1.0] * 3


def test_new_tensor_inherits_dtype():
    x = tl.ones(2, dtype=tl.int32)
    assert x.new_tensor([1.5, 2]).tolist() == [1, 2] and x.new_tensor([1.5]).dtype == tl.int32
    assert x.new_tensor([1.5], dtype=tl.float64).tolist() == [1.5]


# PyTorch 2.13's results for each (issue 19: construction that accepted what it should refuse, or lost precision).
@pytest.mark.parametrize("data,dtype", [
    (np.float64(0.1), tl.float64), (np.float16(0.5), tl.float16), (np.int32(3), tl.int32), (np.bool_(True), tl.bool),
    ([np.float64(0.1)], tl.float64), ([0.1, np.float64(0.2)], tl.float64), ([np.float32(1), 1.5], tl.float32),
    ([np.float16(1), np.float32(2)], tl.float32), ([np.int32(1), 2], tl.int64), ([np.int32(1)], tl.int32),
    ([np.float16(1), 1], tl.float16), ([True, 2], tl.int64), ([True, 2.0], tl.float32), ([], tl.float32),
])
def test_tensor_infers_the_promoted_dtype_of_its_scalars(data, dtype):
    t = tl.tensor(data)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(data, dtype=t.numpy().dtype))


def test_tensor_takes_python_types_as_dtypes_and_refuses_ragged_or_mapping_data():
    assert tl.tensor([1.0], dtype=float).dtype == tl.float64
    assert tl.tensor([1.5], dtype=int).tolist() == [1]
    assert tl.tensor([2], dtype=bool).dtype == tl.bool
    assert tl.tensor(np.float64(0.1)).item() == 0.1  # not rounded through float32
    with pytest.raises(TypeError, match="mixes numbers and sequences"):
        tl.tensor([1, [2]])
    with pytest.raises(TypeError, match="mixes numbers and sequences"):
        tl.tensor([[1], 2])
    with pytest.raises(RuntimeError, match="Could not infer dtype of dict"):
        tl.tensor({1: 2})
    with pytest.raises(RuntimeError, match="Could not infer dtype of set"):
        tl.tensor({1, 2})


def test_numpy_refuses_a_tensor_that_requires_grad():
    x = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]
    assert x.numpy(force=True).tolist() == [1.0, 1.0]
    assert x.tolist() == [1.0, 1.0]  # tolist needs no detach, as in PyTorch
    assert tl.ones(2, dtype=tl.float16, requires_grad=True).tolist() == [1.0, 1.0]


def test_a_number_argument_takes_only_a_0_dim_tensor():
    x = tl.zeros(3)
    assert x.fill_(tl.tensor(2.0)).tolist() == [2.0, 2.0, 2.0]
    # fill_ has PyTorch's Tensor overload too: a 1-dim value reaches it and is refused there, as in PyTorch
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1 "
                                           "dimensions"):
        x.fill_(tl.tensor([1.0]))
    with pytest.raises(TypeError, match="alpha"):
        tl.add(x, 1, alpha=tl.tensor([2.0]))


def test_to_refuses_a_number_for_a_tensor():
    x = tl.zeros(3)
    for bad in (lambda: x.to(5.0), lambda: x.type_as(5), lambda: x.expand_as(5), lambda: x.view_as(2.0)):
        with pytest.raises(TypeError):
            bad()
    # x.to(5) is not a dtype either: it is the device cuda:5, as in PyTorch (test_devices_given_by_index)
    assert x.to(tl.ones(1, dtype=tl.int32)).dtype == tl.int32


def test_devices_given_by_index():
    # An int is a CUDA device index, as in PyTorch (where it names the accelerator): device(5), device=0, .to(0).
    assert tl.device(5) == tl.device("cuda:5") == tl.device("cuda", 5)
    assert tl.device(0).type == "cuda" and tl.device(0).index == 0
    with pytest.raises(RuntimeError, match="Device index must not be negative"):
        tl.device(-1)
    with pytest.raises(RuntimeError, match="Device index must be at most 127, got 300"):
        tl.device("cuda", 300)
    with pytest.raises(RuntimeError, match="Invalid device string: 'cuda:200'"):  # was index -56, the current one
        tl.device("cuda:200")
    with pytest.raises(TypeError):
        tl.device(True)  # a bool is not an index
    if not tl.cuda.is_available():
        for make in (lambda: tl.zeros(2, device=0), lambda: tl.zeros(2).to(0), lambda: tl.ones(2).new_zeros(2, device=1)):
            with pytest.raises(RuntimeError, match="CUDA is not available"):
                make()
    assert tl.zeros(2).to("cpu").device == tl.device("cpu")
