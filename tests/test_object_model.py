"""The Python object model: one C++ tensor is one Python object; subclasses and
attributes survive round trips through C++; identity hashing; versions and views."""
import gc

import pytest

import torchlite as tl


def test_results_are_torchlite_tensors():
    x = tl.ones(2)
    assert type(x * 1) is tl.Tensor
    assert type(x + x) is tl.Tensor
    assert isinstance(x, tl._C.TensorBase)


def test_same_cpp_tensor_same_python_object():
    x = tl.ones(3)
    v = x.view(3)
    assert v._base is x
    assert v._base is v._base
    y = x.add_(1)
    assert y is x


class MyTensor(tl.Tensor):
    pass


def test_subclass_survives_round_trip_through_cpp():
    s = tl.Tensor._make_subclass(MyTensor, tl.ones(3))
    s.tag = "kept"
    v = s.view(3)  # C++ (the view's _base) now holds s's tensor
    sid = id(s)
    del s
    gc.collect()
    back = v._base
    assert type(back) is MyTensor
    assert back.tag == "kept"
    assert id(back) == sid


def test_attributes_survive_round_trip_through_cpp():
    x = tl.zeros(2)
    x.note = 42
    v = x.view(2)
    del x
    gc.collect()
    assert v._base.note == 42


def test_plain_tensor_without_attributes_is_not_kept():
    x = tl.zeros(2)
    v = x.view(2)
    xid = id(x)
    del x
    gc.collect()
    base = v._base
    assert type(base) is tl.Tensor
    assert base.shape == (2,)
    del base, xid


def test_subclass_object_dies_with_last_reference():
    import weakref

    s = tl.Tensor._make_subclass(MyTensor, tl.ones(2))
    v = s.view(2)
    r = weakref.ref(s)
    del s
    gc.collect()
    assert r() is not None  # kept alive by C++ (v's base)
    del v
    gc.collect()
    assert r() is None


def test_make_subclass_shares_data_and_version():
    data = tl.zeros(3)
    s = tl.Tensor._make_subclass(MyTensor, data)
    assert type(s) is MyTensor and s is not data
    s.add_(1)
    assert data.tolist() == [1.0, 1.0, 1.0]
    assert data._version == s._version == 1
    with pytest.raises(TypeError):
        tl.Tensor._make_subclass(int, data)


def test_hash_is_identity_and_dict_keys_work():
    a, b = tl.ones(1), tl.ones(1)
    d = {a: "a", b: "b"}
    assert d[a] == "a" and d[b] == "b"
    assert hash(a) == hash(a) and hash(a) != hash(b)
    assert len({a, b, a}) == 2


def test_version_counter_inplace_and_out_and_views():
    x = tl.zeros(4)
    v = x.view(2, 2)
    assert x._version == 0 and not x._is_view() and v._is_view()
    x.add_(1)
    assert x._version == v._version == 1
    v.mul_(2)
    assert x._version == 2
    out = tl.empty(4)
    tl.add(x, x, out=out)
    assert out._version == 1
    x += 1
    assert x._version == 3
    assert x.tolist() == [3.0] * 4


def test_transpose_view_base_is_root():
    x = tl.zeros(2, 3)
    t = x.transpose(0, 1)
    tt = t.transpose(0, 1)
    assert t._base is x and tt._base is x
    t.fill_(5)  # writes through the view
    assert x.tolist() == [[5.0] * 3] * 2


def test_dunders():
    a = tl.tensor([1.0, 2.0])
    assert (a + 1).tolist() == [2.0, 3.0]
    assert (1 + a).tolist() == [2.0, 3.0]
    assert (a * 3).tolist() == [3.0, 6.0]
    assert (3 * a).tolist() == [3.0, 6.0]
    assert (-a).tolist() == [-1.0, -2.0]
    b = a
    a += a
    assert a is b and a.tolist() == [2.0, 4.0]
    a *= 2
    assert a is b and a.tolist() == [4.0, 8.0]
    with pytest.raises(TypeError):
        a + "x"


def test_item_tolist_numpy_shape_dtype():
    np = pytest.importorskip("numpy")
    x = tl.tensor([[1, 2], [3, 4]], dtype=tl.int32)
    assert x.shape == (2, 2) and isinstance(x.shape, tl.Size) and repr(x.shape) == "torchlite.Size([2, 2])"
    assert x.dtype is tl.int32 and repr(x.dtype) == "torchlite.int32"
    assert x.tolist() == [[1, 2], [3, 4]]
    arr = x.numpy()
    assert arr.dtype == np.int32
    arr[0, 0] = 7  # shares memory
    assert x.tolist()[0][0] == 7
    assert tl.tensor(2.5).item() == 2.5 and isinstance(tl.tensor(3).item(), int)
    assert tl.tensor(True).item() is True
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        x.item()
    with pytest.raises(TypeError, match="BFloat16"):
        tl.ones(2, dtype=tl.bfloat16).numpy()


def test_cuda_absent_is_clean():
    if tl.cuda.is_available():
        pytest.skip("a CUDA device is present: the CUDA issue's tests cover it")
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        tl.empty(2, device="cuda")
    assert tl.cuda.device_count() == 0
