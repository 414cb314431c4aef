"""torchlite.save / torchlite.load in PyTorch's checkpoint format: round trips of every dtype and of nested
containers, shared storage, Parameters, map_location, mmap, weights_only refusing code, clear errors on bad
files; PyTorch-written files (tests/data/checkpoints, made by make.py there) load without PyTorch; and, where
PyTorch is installed, files go both ways."""
import io
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "checkpoints")
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def roundtrip(obj, **kw):
    buf = io.BytesIO()
    tl.save(obj, buf)
    buf.seek(0)
    return tl.load(buf, **kw)


def values(t):
    return t.detach().float().numpy() if t.dtype == tl.bfloat16 else t.detach().numpy()


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips(dtype):
    t = (tl.arange(-3, 9) % 5).to(getattr(tl, dtype)).reshape(3, 4)
    u = roundtrip(t)
    assert u.dtype == t.dtype and u.shape == t.shape
    np.testing.assert_array_equal(values(u), values(t))


def test_nested_containers_and_metadata():
    obj = {"a": [tl.ones(2), (tl.zeros(3, dtype=tl.int64), "s")], "n": 3, "f": 2.5, "none": None,
           "dt": tl.float16, "dev": tl.device("cpu"), "size": tl.Size([2, 3]),
           "od": OrderedDict([("z", 1), ("y", tl.tensor([1.0]))]), "set": {1, 2}}
    out = roundtrip(obj)
    assert out["n"] == 3 and out["f"] == 2.5 and out["none"] is None and out["a"][1][1] == "s"
    assert out["dt"] is tl.float16 and out["dev"] == tl.device("cpu") and out["size"] == (2, 3)
    assert isinstance(out["size"], tl.Size)
    assert isinstance(out["od"], OrderedDict) and list(out["od"]) == ["z", "y"] and out["set"] == {1, 2}
    assert out["a"][1][0].dtype == tl.int64


def test_shared_storage_and_views_survive():
    base = tl.arange(12, dtype=tl.float32)
    view = base[2:8].reshape(2, 3)
    t = base.reshape(3, 4).t()
    b, v, tt = roundtrip((base, view, t))
    assert tt.stride() == (1, 4) and v.storage_offset() == 2
    v.fill_(-1)
    assert values(b)[2:8].tolist() == [-1] * 6
    assert values(tt)[2, 0] == -1  # base[2] is t[2, 0]
    buf = io.BytesIO()
    tl.save((base, view, t), buf)
    assert len([n for n in zipfile.ZipFile(buf).namelist() if "/data/" in n]) == 1  # one storage record


def test_parameters_requires_grad_and_state_dict_metadata():
    m = nn.Module()
    m.w = nn.Parameter(tl.ones(2, 2))
    m.frozen = nn.Parameter(tl.zeros(1), requires_grad=False)
    sd = m.state_dict(keep_vars=True)
    out = roundtrip(sd)
    assert isinstance(out["w"], nn.Parameter) and out["w"].requires_grad and not out["frozen"].requires_grad
    assert out._metadata == {"": {"version": 1}}
    x = tl.ones(2, requires_grad=True)
    y = roundtrip(x)
    assert y.requires_grad and y.is_leaf


def test_records_are_aligned_and_named_after_the_file(tmp_path):
    path = tmp_path / "model.pt"
    tl.save({"a": tl.ones(3), "b": tl.ones(5, dtype=tl.int8)}, path)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert names[0] == "model/data.pkl" and "model/byteorder" in names and "model/version" in names
        assert zf.read("model/byteorder") == b"little"
        raw = path.read_bytes()
        for info in zf.infolist():
            if "/data/" in info.filename:
                n, e = int.from_bytes(raw[info.header_offset + 26:info.header_offset + 28], "little"), \
                    int.from_bytes(raw[info.header_offset + 28:info.header_offset + 30], "little")
                assert (info.header_offset + 30 + n + e) % 64 == 0
    assert tl.load(path)["a"].sum().item() == 3


def test_map_location_and_mmap(tmp_path):
    path = tmp_path / "x.pt"
    tl.save({"x": tl.arange(10, dtype=tl.float64)}, path)
    seen = []
    out = tl.load(path, map_location=lambda storage, loc: seen.append(loc))
    assert seen == ["cpu"] and out["x"].sum().item() == 45
    assert tl.load(path, map_location="cpu")["x"].dtype == tl.float64
    assert tl.load(path, map_location={"cpu": "cpu"})["x"][3].item() == 3
    m = tl.load(path, mmap=True)
    np.testing.assert_array_equal(m["x"].numpy(), np.arange(10.0))
    m["x"].add_(1)  # copy-on-write: the file keeps its values
    assert tl.load(path)["x"][0].item() == 0
    with pytest.raises(ValueError, match="file path"):
        tl.load(io.BytesIO(path.read_bytes()), mmap=True)


def hostile_checkpoint(global_line):
    payload = b"\x80\x02c" + global_line + b"\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03."
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", payload)
        zf.writestr("archive/byteorder", b"little")
    buf.seek(0)
    return buf


def test_weights_only_refuses_code():
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL os.system"):
        tl.load(hostile_checkpoint(b"os\nsystem"))
    with pytest.raises(pickle.UnpicklingError, match="builtins.eval"):
        tl.load(hostile_checkpoint(b"builtins\neval"))


def test_whole_modules_need_weights_only_false():
    m = nn.Module()
    m.w = nn.Parameter(tl.ones(3))
    buf = io.BytesIO()
    tl.save(m, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        tl.load(buf)
    buf.seek(0)
    out = tl.load(buf, weights_only=False)
    assert isinstance(out, nn.Module) and out.w.sum().item() == 3


def test_bad_files_give_clear_errors(tmp_path):
    buf = io.BytesIO()
    tl.save({"x": tl.ones(1000)}, buf)
    raw = buf.getvalue()
    for broken in (raw[: len(raw) // 2], b"not a checkpoint at all", b""):
        with pytest.raises(RuntimeError, match="torchlite.load"):
            tl.load(io.BytesIO(broken))
    # a record shorter than its storage
    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for info in src.infolist():
            data = src.read(info)
            zf.writestr(info.filename, data[:8] if "/data/" in info.filename else data)
    out.seek(0)
    with pytest.raises(RuntimeError, match="truncated or corrupted"):
        tl.load(out)


def test_pytorch_written_files_load_without_pytorch():
    sd = tl.load(os.path.join(HERE, "linear_state_dict.pt"))
    assert list(sd) == ["weight", "bias"] and sd._metadata[""] == {"version": 1}
    np.testing.assert_allclose(sd["weight"].numpy(), np.arange(6.0).reshape(2, 3) / 10, rtol=1e-6)
    np.testing.assert_allclose(sd["bias"].numpy(), [0.5, -0.5])
    opt = tl.load(os.path.join(HERE, "sgd_state_dict.pt"))
    assert opt["param_groups"][0]["lr"] == 0.1 and opt["param_groups"][0]["params"] == [0, 1]
    np.testing.assert_allclose(opt["state"][1]["momentum_buffer"].numpy(), [1.0, 1.0])
    nested = tl.load(os.path.join(HERE, "nested.pt"))
    np.testing.assert_array_equal(nested["view"].numpy(), np.arange(2, 8.0).reshape(2, 3))
    np.testing.assert_array_equal(nested["t"].numpy(), np.arange(12.0).reshape(3, 4).T)
    nested["view"].fill_(0)
    assert nested["base"].sum().item() == 66 - sum(range(2, 8))
    dtypes = [t.dtype for t in nested["dtypes"]]
    assert dtypes == [tl.float64, tl.float16, tl.bfloat16, tl.int64, tl.int32, tl.int16, tl.int8, tl.uint8, tl.bool]
    for t in nested["dtypes"]:
        np.testing.assert_array_equal(values(t).astype(np.float64), np.arange(5.0).astype(bool).astype(float)
                                      if t.dtype == tl.bool else np.arange(5.0))
    assert isinstance(nested["param"], nn.Parameter) and nested["param"].requires_grad
    assert not nested["frozen"].requires_grad and nested["scalar"].item() == 7
    assert nested["meta"] == (tl.float16, tl.device("cpu"), (2, 3), "text", 1.5, None, True)
    assert list(nested["ordered"]) == ["b", "a"]


def test_torchlite_files_load_in_pytorch_and_back(tmp_path):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    base = tl.arange(12, dtype=tl.float32)
    obj = {"base": base, "view": base[2:8].reshape(2, 3), "bf": tl.arange(4).to(tl.bfloat16),
           "p": nn.Parameter(tl.ones(2)), "i": tl.tensor([True, False]), "dt": tl.float64, "dev": tl.device("cpu"),
           "size": tl.Size([1, 2])}
    path = tmp_path / "ours.pt"
    tl.save(obj, path)
    theirs = torch.load(path, weights_only=True)
    assert theirs["view"].untyped_storage().data_ptr() == theirs["base"].untyped_storage().data_ptr()
    np.testing.assert_array_equal(theirs["view"].numpy(), np.arange(2, 8.0).reshape(2, 3))
    assert theirs["bf"].dtype == torch.bfloat16 and theirs["bf"].float().tolist() == [0, 1, 2, 3]
    assert isinstance(theirs["p"], torch.nn.Parameter) and theirs["i"].tolist() == [True, False]
    assert theirs["dt"] is torch.float64 and theirs["dev"] == torch.device("cpu") and theirs["size"] == (1, 2)
    lin = torch.nn.Linear(4, 3)
    torch.save({"model": lin.state_dict(), "opt": torch.optim.Adam(lin.parameters()).state_dict()},
               tmp_path / "theirs.pt")
    back = tl.load(tmp_path / "theirs.pt")
    np.testing.assert_array_equal(back["model"]["weight"].numpy(), lin.weight.detach().numpy())
    assert back["opt"]["param_groups"][0]["betas"] == (0.9, 0.999)
