"""DLPack both ways: zero-copy sharing with NumPy (and PyTorch where installed), every dtype, strided views,
the legacy capsule API, lifetimes (the memory outlives the exporter), and the protocol's errors."""
import gc

import numpy as np
import pytest

import torchlite as tl
from torchlite.utils.dlpack import from_dlpack, to_dlpack

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_round_trip_every_dtype(dtype):
    t = (tl.arange(12) % 3).to(getattr(tl, dtype)).reshape(3, 4)
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(dtype if dtype != "bool" else np.bool_) and a.shape == (3, 4)
    np.testing.assert_array_equal(a, t.numpy())
    b = tl.from_dlpack(a)
    assert b.dtype == t.dtype and b.data_ptr() == t.data_ptr()


def test_memory_is_shared_both_ways_and_outlives_the_exporter():
    t = tl.zeros(2, 3)
    a = np.from_dlpack(t)
    a[1, 2] = 5
    assert t[1, 2].item() == 5
    arr = np.arange(6, dtype=np.float64)
    u = tl.from_dlpack(arr)
    u.add_(1)
    assert arr[0] == 1
    del arr, t
    gc.collect()
    np.testing.assert_array_equal(u.numpy(), np.arange(1, 7.0))  # u keeps NumPy's memory alive
    assert a[1, 2] == 5


def test_strided_views_and_shapes():
    base = tl.arange(24, dtype=tl.float32).reshape(4, 6)
    view = base[1:, ::2].t()
    a = np.from_dlpack(view)
    np.testing.assert_array_equal(a, view.numpy())
    assert a.strides == tuple(s * 4 for s in view.stride())
    back = tl.from_dlpack(np.arange(24.0).reshape(4, 6)[:, 1::3])
    assert back.stride() == (6, 3) and back[2, 1].item() == 16
    assert tl.from_dlpack(np.zeros((0, 3))).shape == (0, 3)
    assert tl.from_dlpack(np.array(2.5, dtype=np.float32)).item() == 2.5  # 0-d


def test_legacy_capsules_and_errors():
    t = tl.arange(3)
    cap = to_dlpack(t)
    u = from_dlpack(cap)
    assert u.data_ptr() == t.data_ptr()
    with pytest.raises(TypeError, match="not consumed yet"):
        from_dlpack(cap)  # a capsule is used once
    assert t.__dlpack_device__() == (1, 0)
    with pytest.raises(RuntimeError, match="require gradient"):
        tl.ones(2, requires_grad=True).__dlpack__()
    c = tl.ones(2).__dlpack__(copy=True)
    assert tl.from_dlpack(c).sum().item() == 2
    with pytest.raises(TypeError, match="capsule"):
        from_dlpack(3)
    capsule = to_dlpack(tl.ones(4))
    del capsule  # an unconsumed capsule frees its tensor
    gc.collect()


def test_pytorch_both_ways():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    t = tl.arange(6, dtype=tl.float32).reshape(2, 3)
    pt = torch.from_dlpack(t.t())
    assert pt.stride() == (1, 3) and pt.data_ptr() == t.data_ptr()
    pt[0, 0] = 9
    assert t[0, 0].item() == 9
    for dt in (torch.bfloat16, torch.float16, torch.bool, torch.int16):
        src = torch.arange(4).to(dt)
        ours = tl.from_dlpack(src)
        assert str(ours.dtype).split(".")[-1] == str(dt).split(".")[-1]
        assert ours.data_ptr() == src.data_ptr()
        np.testing.assert_array_equal(ours.float().numpy(), src.float().numpy())
