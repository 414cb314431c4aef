"""repr/str of tensors against PyTorch's output, and the print options.

tests/data/reprs.json holds PyTorch 2.13's output for each case (made by
tools/make_reprs.py; PyTorch is not needed here). torchlite names dtypes
``torchlite.int32`` where PyTorch prints ``torch.int32``; to compare the whole
layout (line wrapping of the suffixes included) the case tests make torchlite
spell the dtype suffix as PyTorch does, and test_dtype_suffix_uses_torchlite_names
checks the real spelling.
"""
import json
import math
import os

import numpy as np
import pytest

import torchlite as tl
from torchlite import _tensor_str

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "reprs.json")
with open(DATA) as _f:
    RECORDS = json.load(_f)

DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    tl.set_printoptions(profile="default", sci_mode=None)
    tl.set_default_dtype(tl.float32)


class _AutogradStandIn(tl.Tensor):
    """A tensor whose requires_grad / grad_fn are plain attributes (torchlite has no autograd yet)."""

    requires_grad = False
    grad_fn = None


def _with_autograd(t, requires_grad=True, grad_fn=None):
    out = tl.Tensor._make_subclass(_AutogradStandIn, t)
    out.requires_grad = requires_grad
    out.grad_fn = grad_fn
    return out


def _build(record):
    """The torchlite tensor for a case record; sets the record's default dtype."""
    if "default_dtype" in record:
        tl.set_default_dtype(getattr(tl, record["default_dtype"]))
    t = eval(record["case"], {"X": tl, "np": np})  # noqa: S307 - cases come from the committed data file
    if record.get("autograd") == "requires_grad":
        t = _with_autograd(t)
    elif record.get("autograd") == "grad_fn":
        # PyTorch prints type(grad_fn).__name__: a stand-in class of that name.
        t = _with_autograd(t, grad_fn=type(record["grad_fn"], (), {})())
    return t


def test_enough_cases():
    assert len(RECORDS) >= 40
    assert all(r["repr"] == r["str"] for r in RECORDS)


@pytest.mark.parametrize("record", RECORDS, ids=[f"{i}:{r['case'][:60]}" for i, r in enumerate(RECORDS)])
def test_matches_pytorch(record, monkeypatch):
    monkeypatch.setattr(_tensor_str, "_dtype_str", lambda dtype: "torch." + str(dtype).rsplit(".", 1)[-1])
    t = _build(record)
    tl.set_printoptions(**record.get("options", {}))
    assert repr(t) == record["repr"]
    assert str(t) == record["str"]


def test_dtype_suffix_uses_torchlite_names():
    assert repr(tl.tensor([1, 2], dtype=tl.int32)) == "tensor([1, 2], dtype=torchlite.int32)"
    assert repr(tl.tensor([], dtype=tl.bool)) == "tensor([], dtype=torchlite.bool)"
    assert str(tl.tensor(2.5, dtype=tl.float64)) == "tensor(2.5000, dtype=torchlite.float64)"
    # The longer name counts for the line width: here it moves the suffix to its own line.
    t = tl.tensor(np.arange(24, dtype=np.uint8))
    assert repr(t) == ("tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
                       "        18, 19, 20, 21, 22, 23], dtype=torchlite.uint8)")


def test_grad_fn_name_method_wins_over_class_name():
    class Node:
        def name(self):
            return "torch::autograd::MulBackward0"

    t = _with_autograd(tl.tensor([1.0, 2.0]), grad_fn=Node())
    assert repr(t) == "tensor([1., 2.], grad_fn=<MulBackward0>)"
    plain = _with_autograd(tl.tensor([1.0, 2.0]), requires_grad=False)
    assert repr(plain) == "tensor([1., 2.])"


def test_get_printoptions_defaults_and_exports():
    assert tl.get_printoptions() == DEFAULTS
    assert tl.set_printoptions is _tensor_str.set_printoptions
    assert tl.get_printoptions is _tensor_str.get_printoptions
    opts = tl.get_printoptions()
    opts["precision"] = 99  # a copy: changing it changes nothing
    assert tl.get_printoptions()["precision"] == 4


def test_profiles():
    tl.set_printoptions(profile="short")
    assert tl.get_printoptions() == dict(DEFAULTS, precision=2, edgeitems=2)
    tl.set_printoptions(profile="full")
    assert tl.get_printoptions() == dict(DEFAULTS, threshold=math.inf)
    tl.set_printoptions(profile="default")
    assert tl.get_printoptions() == DEFAULTS


def test_explicit_options_override_profile():
    tl.set_printoptions(profile="short", precision=3, linewidth=100)
    assert tl.get_printoptions() == dict(DEFAULTS, precision=3, edgeitems=2, linewidth=100)
    assert repr(tl.tensor([1.23456])) == "tensor([1.235])"


def test_unset_options_are_kept_but_sci_mode_resets():
    tl.set_printoptions(precision=2, sci_mode=True)
    assert repr(tl.tensor([1.5])) == "tensor([1.50e+00])"
    tl.set_printoptions(threshold=10)
    # precision stays; sci_mode goes back to automatic, as in PyTorch.
    assert tl.get_printoptions() == dict(DEFAULTS, precision=2, threshold=10)
    assert repr(tl.tensor([1.5])) == "tensor([1.50])"


def test_unknown_profile_is_ignored():
    tl.set_printoptions(precision=6)
    tl.set_printoptions(profile="no-such-profile", precision=6)
    assert tl.get_printoptions() == dict(DEFAULTS, precision=6)


def test_threshold_and_edgeitems_change_summarization():
    t = tl.tensor(np.arange(10))
    assert repr(t) == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"
    tl.set_printoptions(threshold=5, edgeitems=2)
    assert repr(t) == "tensor([0, 1,  ..., 8, 9])"
    tl.set_printoptions(profile="full")
    assert repr(t) == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"


def test_printoptions_context_manager_restores():
    with _tensor_str.printoptions(precision=1, linewidth=20):
        assert repr(tl.tensor([1.25, 2.5])) == "tensor([1.2, 2.5])"
        assert tl.get_printoptions()["linewidth"] == 20
    assert tl.get_printoptions() == DEFAULTS


def test_summarized_million_elements_prints_edges_only():
    t = tl.tensor(np.arange(1_000_000, dtype=np.int32).reshape(1000, 1000))
    assert repr(t) == (
        "tensor([[     0,      1,      2,  ...,    997,    998,    999],\n"
        "        [  1000,   1001,   1002,  ...,   1997,   1998,   1999],\n"
        "        [  2000,   2001,   2002,  ...,   2997,   2998,   2999],\n"
        "        ...,\n"
        "        [997000, 997001, 997002,  ..., 997997, 997998, 997999],\n"
        "        [998000, 998001, 998002,  ..., 998997, 998998, 998999],\n"
        "        [999000, 999001, 999002,  ..., 999997, 999998, 999999]],\n"
        "       dtype=torchlite.int32)")
