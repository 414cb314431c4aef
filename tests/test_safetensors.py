"""torchlite.utils.safetensors: round trips of every dtype with metadata, the format's layout, refused shared
memory and clear errors on bad files; and, where installed, files going both ways with the `safetensors`
package (its NumPy API, and its PyTorch API for bfloat16)."""
import json
import struct

import numpy as np
import pytest

import torchlite as tl
from torchlite.utils import safetensors as st

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def sample():
    return {name: (tl.arange(-2, 4) % 3).to(getattr(tl, name)).reshape(2, 3) for name in DTYPES}


def test_round_trip_every_dtype_and_metadata(tmp_path):
    tensors = sample()
    tensors["scalar"] = tl.tensor(2.5)
    path = tmp_path / "m.safetensors"
    st.save_file(tensors, path, metadata={"format": "pt"})
    back = st.load_file(path)
    assert sorted(back) == sorted(tensors)
    for k, t in tensors.items():
        assert back[k].dtype == t.dtype and back[k].shape == t.shape
        np.testing.assert_array_equal(back[k].float().numpy(), t.float().numpy())
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    assert header["__metadata__"] == {"format": "pt"} and header["bfloat16"]["dtype"] == "BF16"
    assert (8 + n) % 8 == 0 and header["float32"]["shape"] == [2, 3]


def test_refusals_and_bad_files():
    a = tl.ones(4)
    with pytest.raises(RuntimeError, match="share memory"):
        st.save({"a": a, "b": a[1:]})
    with pytest.raises(ValueError, match="expected torch.Tensor"):
        st.save({"a": 1})
    good = st.save({"x": tl.ones(3)})
    for bad in (good[:4], good[:20], struct.pack("<Q", 5) + b"{oops", good[:-4]):
        with pytest.raises(RuntimeError, match="safetensors"):
            st.load(bad)
    assert st.load(st.save({"v": tl.arange(6).reshape(2, 3).t()}))["v"].tolist() == [[0, 3], [1, 4], [2, 5]]


def test_interop_with_the_safetensors_package(tmp_path):
    numpy_api = pytest.importorskip("safetensors.numpy", reason="the safetensors package is optional")
    path = tmp_path / "ours.safetensors"
    tensors = {k: v for k, v in sample().items() if k != "bfloat16"}
    st.save_file(tensors, path)
    theirs = numpy_api.load_file(str(path))
    for k, v in tensors.items():
        np.testing.assert_array_equal(theirs[k], v.numpy())
    numpy_api.save_file({"w": np.arange(6, dtype=np.float32).reshape(3, 2)}, str(tmp_path / "np.safetensors"))
    assert st.load_file(tmp_path / "np.safetensors")["w"].tolist() == [[0, 1], [2, 3], [4, 5]]


def test_bfloat16_with_pytorch_safetensors(tmp_path):
    pytest.importorskip("safetensors", reason="the safetensors package is optional")
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    from safetensors.torch import load_file, save_file

    st.save_file({"b": tl.tensor([1.5, -2.0, 3.25]).to(tl.bfloat16)}, tmp_path / "a.safetensors")
    assert load_file(str(tmp_path / "a.safetensors"))["b"].tolist() == [1.5, -2.0, 3.25]
    save_file({"c": torch.tensor([0.5, 7.0], dtype=torch.bfloat16)}, str(tmp_path / "b.safetensors"))
    back = st.load_file(tmp_path / "b.safetensors")["c"]
    assert back.dtype == tl.bfloat16 and back.tolist() == [0.5, 7.0]
