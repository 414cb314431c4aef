"""Numbers that do not fit, and sizes that overflow (issue 19, classes 1 and 3).

Class 3: a Python number stored in a tensor of narrow dtype is converted with PyTorch's checked conversion
(the schema's `checked_scalars:`, `scalar_fits` in core/Scalar.h): out of range, NaN or infinite for an
integer dtype, or past a floating dtype's range, raises RuntimeError "<op>: value V cannot be converted to
type T without overflow" where it used to wrap silently; ops that PyTorch lets wrap (`uint8 + 300`) still
wrap. Each case says what PyTorch 2.13 does; `test_cases_match_pytorch` re-runs them on PyTorch when it is
installed.

Class 1: sizes, strides and offsets whose products overflow int64 raise PyTorch's RuntimeErrors instead of
reporting numel() == 0 or writing out of bounds. These run in a subprocess: before the fix some crashed.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import torchlite as tl

OVERFLOW = "cannot be converted to type"

# (expression with T = the library, what PyTorch gives: "error" or the repr of the result's list)
SCALAR_CASES = [
    ("T.tensor([10, 200], dtype=T.uint8).clamp(max=300)", "error"),
    ("T.tensor([10, 200], dtype=T.uint8).clamp(min=-1).tolist()", "[255, 255]"),
    ("T.zeros(3, dtype=T.uint8).clamp_(max=300)", "error"),
    ("T.zeros(3, dtype=T.uint8).clamp_min(300)", "error"),
    ("T.zeros(2).clamp(max=1e300)", "error"),
    ("T.zeros(3, dtype=T.int32).clamp(max=1e20).tolist()", "[0.0, 0.0, 0.0]"),
    ("T.full((2,), 300, dtype=T.uint8)", "error"),
    ("T.full((2,), float('nan'), dtype=T.int32)", "error"),
    ("T.full((2,), float('inf'), dtype=T.int64)", "error"),
    ("T.full((2,), 1e20, dtype=T.int64)", "error"),
    ("T.full((2,), -129, dtype=T.int8)", "error"),
    ("T.full((2,), 127.9, dtype=T.int8)", "error"),
    ("T.full((2,), 1.5, dtype=T.int8).tolist()", "[1, 1]"),
    ("T.full((2,), -255, dtype=T.uint8).tolist()", "[1, 1]"),
    ("T.full((2,), -256, dtype=T.uint8)", "error"),
    ("T.full((2,), 70000, dtype=T.float16)", "error"),
    ("T.full((2,), 65519.0, dtype=T.float16)", "error"),
    ("T.full((2,), float('inf'), dtype=T.float16).tolist()", "[inf, inf]"),
    ("T.full((2,), 5, dtype=T.bool).tolist()", "[True, True]"),
    ("T.full((2,), 1e300, dtype=T.float32)", "error"),
    ("T.full_like(T.zeros(2, dtype=T.uint8), 300)", "error"),
    ("T.zeros(3, dtype=T.uint8).new_full((2,), 300)", "error"),
    ("T.zeros(2, dtype=T.uint8).fill_(256)", "error"),
    ("T.zeros(2, dtype=T.int32).fill_(float('nan'))", "error"),
    ("T.zeros(2, dtype=T.int16).fill_(40000)", "error"),
    ("T.zeros(2, dtype=T.bfloat16).fill_(1e300)", "error"),
    ("T.zeros(2, dtype=T.int64).fill_(2**63 - 1).tolist()", "[9223372036854775807, 9223372036854775807]"),
    ("T.zeros(2, dtype=T.uint8).__setitem__(0, 300)", "error"),
    ("T.zeros(2, dtype=T.int32).__setitem__(0, float('inf'))", "error"),
    ("T.zeros(3, dtype=T.uint8).__setitem__(T.tensor([0]), 300)", "error"),
    ("T.zeros(2, dtype=T.uint8).masked_fill(T.tensor([True, False]), 256)", "error"),
    ("T.zeros(2, dtype=T.int8).masked_fill(T.tensor([True, False]), float('nan'))", "error"),
    ("T.zeros(2, dtype=T.bool).masked_fill(T.tensor([True, False]), float('nan')).tolist()", "[True, False]"),
    ("T.where(T.tensor([True, False]), T.zeros(2, dtype=T.uint8), 300)", "error"),
    ("T.where(T.tensor([True, False]), 300, T.zeros(2, dtype=T.uint8))", "error"),
    ("T.where(T.tensor([True, False]), T.zeros(2, dtype=T.float16), 1e6).tolist()", "[0.0, inf]"),
    ("T.zeros(3, dtype=T.uint8).scatter(0, T.tensor([0]), 300)", "error"),
    ("T.zeros(3, dtype=T.uint8).index_fill(0, T.tensor([0]), 300)", "error"),
    ("T.zeros(3, dtype=T.uint8).pow(300)", "error"),
    ("T.ones(3, dtype=T.int32).pow(2**40)", "error"),
    ("T.zeros(3, dtype=T.uint8).addcmul(T.zeros(3, dtype=T.uint8), T.zeros(3, dtype=T.uint8), value=300)", "error"),
    ("T.zeros(3, dtype=T.float16).addcmul(T.zeros(3, dtype=T.float16), T.zeros(3, dtype=T.float16), value=1e6).tolist()",
     "[0.0, 0.0, 0.0]"),
    ("T.add(T.zeros(3, dtype=T.uint8), T.zeros(3, dtype=T.uint8), alpha=300)", "error"),
    ("T.nn.functional.threshold(T.zeros(3, dtype=T.uint8), 1, 300)", "error"),
    ("T.nn.functional.pad(T.zeros(3, dtype=T.uint8), (1, 1), value=300)", "error"),
    ("T.nn.functional.pad(T.zeros(3, dtype=T.int32), (1, 1), value=float('nan'))", "error"),
    ("T.tensor([300], dtype=T.uint8)", "error"),
    ("T.tensor([float('nan')], dtype=T.int32)", "error"),
    ("T.tensor([127.5], dtype=T.int8)", "error"),
    ("T.tensor([-1], dtype=T.uint8).tolist()", "[255]"),
    # What PyTorch lets wrap: arithmetic with a number.
    ("(T.zeros(3, dtype=T.uint8) + 300).tolist()", "[44, 44, 44]"),
    ("T.zeros(3, dtype=T.int8).add_(200).tolist()", "[-56, -56, -56]"),
    ("(T.zeros(3, dtype=T.uint8) < 300).tolist()", "[True, True, True]"),
]


def _run(T, expr):
    try:
        value = eval(expr, {"T": T})  # noqa: S307 - the expressions above
    except RuntimeError as e:
        return "error", str(e)
    return repr(value), ""


@pytest.mark.parametrize("expr,expected", SCALAR_CASES, ids=[c[0] for c in SCALAR_CASES])
def test_scalar_conversion(expr, expected):
    got, message = _run(tl, expr)
    if expected == "error":
        assert got == "error", f"{expr} gave {got}; PyTorch raises"
        assert OVERFLOW in message and "without overflow" in message, message
    else:
        assert got == expected


def test_message_names_op_value_and_type():
    with pytest.raises(RuntimeError, match=r"^clamp: value 300 cannot be converted to type uint8_t without overflow$"):
        tl.zeros(2, dtype=tl.uint8).clamp(max=300)
    with pytest.raises(RuntimeError, match=r"fill: value nan cannot be converted to type int without overflow"):
        tl.zeros(2, dtype=tl.int32).fill_(float("nan"))
    with pytest.raises(RuntimeError, match=r"full: value 70000 cannot be converted to type Half without overflow"):
        tl.full((2,), 70000, dtype=tl.float16)


def test_int_past_int64_is_pytorchs_value_error():
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        tl.tensor([2 ** 63])
    assert tl.tensor([2 ** 63], dtype=tl.float32).item() == float(2 ** 63)


def test_cases_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch (optional) checks the table's expectations")
    wrong = []
    for expr, expected in SCALAR_CASES:
        got, _ = _run(torch, expr)
        if got != expected:
            wrong.append((expr, expected, got))
    assert not wrong, wrong


# ------------------------------------------------------------------ class 1: sizes that overflow

SIZE_CASES = [
    ("T.zeros(4).as_strided((2,), (2**61,)).fill_(1)", "Storage size calculation overflowed"),
    ("T.ones(4).as_strided((2,), (1,), 2**62)", "Storage size calculation overflowed"),
    ("T.ones(1).expand(2**32, 2**32)", "numel: integer multiplication overflow"),
    ("T.ones(1).expand(2**32, 2**32).sum(0)", "numel: integer multiplication overflow"),
    ("T.ones(3).expand(2**62, 3)", "numel: integer multiplication overflow"),
    ("T.ones(1).expand(2**62, 2**62).contiguous()", "numel: integer multiplication overflow"),
    ("T.ones(2**20).view(-1, 2**20).expand(2**44, 2**20)", "numel: integer multiplication overflow"),
    ("T.ones(1).expand(2**62, 2**62, 0)", "numel: integer multiplication overflow"),
    ("T.empty_strided((2, 2), (2**62, 2**62))", "Storage size calculation overflowed"),
    ("T.empty_strided((2**61, 2), (1, 2**61))", "Storage size calculation overflowed"),
    ("T.empty(2**62, 4)", "Storage size calculation overflowed"),
    ("T.ones(2).repeat(2**32, 2**32)", "overflow"),
    ("T.arange(0, float('inf'))", "unsupported range"),
    ("T.arange(float('nan'))", "unsupported range"),
    ("T.arange(0, 1e30)", "invalid size"),
    # INT64_MIN / -1 trapped (SIGFPE; PyTorch 2.13 crashes too), and a length
    # of 2**63 passed the check and was converted to int64 (undefined behaviour).
    ("T.arange(0, -2**63, -1)", "invalid size"),
    ("T.arange(0, 2.0**63, dtype=T.float64)", "invalid size"),
]

_SIZE_RUNNER = r"""
import json, sys
import torchlite as T
out = []
for expr in json.loads(sys.argv[1]):
    try:
        r = eval(expr)
        out.append(["ok", repr(getattr(r, "shape", r))])
    except Exception as e:
        out.append([type(e).__name__, str(e)])
print(json.dumps(out))
"""


def test_size_overflow_raises(tmp_path):
    # Run away from the repository root: `python -c` puts the working directory first on sys.path, and the
    # source tree's torchlite/ (no _C when CI installs a wheel) would shadow the installed package.
    proc = subprocess.run([sys.executable, "-c", _SIZE_RUNNER, json.dumps([c[0] for c in SIZE_CASES])],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 0, f"crashed (exit {proc.returncode}): {proc.stderr[-2000:]}"
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    bad = [(expr, r) for (expr, message), r in zip(SIZE_CASES, results)
           if r[0] != "RuntimeError" or message not in r[1]]
    assert not bad, bad


def test_arange_int64_length_does_not_wrap():
    # end - start overflows int64 here; the length is computed exactly (PyTorch wraps: an error, or empty).
    assert tl.arange(-2**62, 2**62, 2**62).tolist() == [-2**62, 0]
    assert tl.arange(-2**63, 2**63 - 1, 2**63 - 1).tolist() == [-2**63, -1, 2**63 - 2]
    assert tl.arange(2**63 - 1, -2**63, -2**63).tolist() == [2**63 - 1, -1]


def test_empty_expand_with_huge_sizes_is_fine():
    x = tl.ones(1).expand(0, 2**62, 2**62)
    assert x.numel() == 0 and x.sum().item() == 0


# ------------------------------------------------------------------ class 3 for every op, against PyTorch

def _scalar_ops():
    import test_fuzz as F
    import test_ops as TO
    import test_torch_diff as D
    ops = []
    for op in TO.OPS:
        if op.has_sample and D.comparable(op) and F.narrow_scalar_mutations(op, op.sample()):
            ops.append(op)
    return ops


def test_every_op_taking_a_number_converts_it_as_pytorch():
    """Every op of the schema with a Scalar argument, its Tensor arguments in each integer dtype, with numbers
    that do not fit (tests/test_fuzz.py's narrow_scalar_mutations): torchlite must refuse where PyTorch
    refuses and give PyTorch's values where it wraps or promotes."""
    torch = pytest.importorskip("torch", reason="PyTorch (optional) is the reference for these outcomes")
    import numpy as np
    import test_fuzz as F
    import test_torch_diff as D
    # PyTorch's sub computes add with -alpha and checks that: for int32, alpha = 2**31 passes (-2**31 fits).
    # torchlite checks alpha itself. Left as is (an edge of an edge); listed so that it is known.
    excused = {("sub.Tensor", "int32 tensors, alpha=2**31"), ("sub.deprecated", "int32 tensors, alpha=2**31"),
               ("rsub.Tensor", "int32 tensors, alpha=2**31")}
    wrong = []
    ops = _scalar_ops()
    assert len(ops) >= 20, [op.full_name for op in ops]
    for op in ops:
        kind = op.primary_kind
        for desc, make_args in F.narrow_scalar_mutations(op, op.sample()):
            args = make_args()
            if kind == "inplace":
                args["self"] = args["self"].clone()
            targs = {k: D.to_torch(v) for k, v in args.items()}
            try:
                theirs = D.torch_call(op, kind, targs)
            except Exception as e:  # noqa: BLE001
                theirs = e
            try:
                op.reseed()
                ours = op.call(kind, args)
            except Exception as e:  # noqa: BLE001
                ours = e
            if isinstance(theirs, Exception) or isinstance(ours, Exception):
                if isinstance(theirs, Exception) != isinstance(ours, Exception) and (op.full_name, desc) not in excused:
                    wrong.append((op.full_name, desc, repr(ours)[:120], repr(theirs)[:120]))
                continue
            if "random" in op.tags:
                continue
            for a, b in zip(ours if isinstance(ours, tuple) else (ours,),
                            theirs if isinstance(theirs, tuple) else (theirs,)):
                if not isinstance(b, torch.Tensor):
                    continue
                same = str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1] and tuple(a.shape) == tuple(b.shape)
                if same and b.dtype.is_floating_point:
                    same = np.allclose(a.double().numpy(), b.double().numpy(), rtol=1e-3, atol=0, equal_nan=True)
                elif same:
                    same = np.array_equal(a.numpy(), b.numpy())
                if not same:
                    wrong.append((op.full_name, desc, repr(a)[:120], repr(b)[:120]))
    assert not wrong, "\n".join(map(str, wrong))
