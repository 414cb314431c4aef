"""Generate tests/data/reprs.json: PyTorch's repr/str of a list of tensors.

Needs PyTorch (``torch``) and NumPy; torchlite is not imported. Run from anywhere:

    python tools/make_reprs.py            # writes tests/data/reprs.json
    python tools/make_reprs.py --check    # exit 1 if the committed file is stale

Each case is a Python expression valid for both libraries, evaluated with ``X``
bound to the library module and ``np`` to NumPy. Optional fields of a case:

* ``options``: keyword arguments for ``set_printoptions`` while printing;
* ``default_dtype``: a dtype name set with ``set_default_dtype`` while
  building and printing the tensor;
* ``autograd``: ``"requires_grad"`` (the tensor gets ``requires_grad_()``) or
  ``"grad_fn"`` (the tensor becomes ``t.requires_grad_() + 0``, same values,
  with a ``grad_fn``); the record then also holds ``grad_fn``, the name PyTorch
  printed. torchlite has no autograd yet: tests/test_printing.py recreates these
  by setting plain attributes on the tensor.

Each record is ``{"case", ..., "repr", "str"}`` with PyTorch's output verbatim
(so ``dtype=torch.int32``; torchlite prints ``dtype=torchlite.int32``, see
tests/test_printing.py).
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "reprs.json")

NAN, INF = "float('nan')", "float('inf')"


def C(case, **extra):
    return dict(case=case, **extra)


CASES = [
    # Floats: integer style, fixed style, scientific style.
    C("X.tensor([1., 2.])"),
    C("X.tensor([1.5, 2.0])"),
    C("X.tensor([0.1, 0.2, 0.3])"),
    C("X.tensor([1., 1000.])"),
    C("X.tensor([1., 1001.])"),
    C("X.tensor([1e-05, 1., 100.])"),
    C("X.tensor([0.0001, 0.5])"),
    C("X.tensor([0.001, 1.0])"),
    C("X.tensor([0.001, 1.5])"),
    C("X.tensor([1e-05, -1e-05, 0.])"),
    C("X.tensor([1e10, 1.])"),
    C("X.tensor([1e8])"),
    C("X.tensor([123456789.])"),
    # float64 values that float32 cannot hold come from NumPy arrays: torchlite.tensor(list, dtype=float64)
    # rounds Python floats through float32 today (a creation bug, not a printing one).
    C("X.tensor(np.array([100000001.]))"),
    C("X.tensor([3.4e38, -1e-38])"),
    C("X.tensor([1000.25, 1001.5, 1002.75])"),
    # Special values.
    C(f"X.tensor([{NAN}, {INF}, -{INF}, -0., 1.5])"),
    C(f"X.tensor([{NAN}, 1.])"),
    C(f"X.tensor([{INF}, -1.5])"),
    C("X.tensor([0., -0.])"),
    C(f"X.tensor([{NAN}, {INF}])"),
    C("X.tensor([-0., 1.5])"),
    # Negative numbers align on the widest element.
    C("X.tensor([-1.5, 2.25, -100.125])"),
    C("X.tensor([-5, 3, 100])"),
    C("X.tensor([[-1, 20], [300, -4000]])"),
    # Bool and every integer dtype.
    C("X.tensor([True, False, True])"),
    C("X.tensor([[True], [False]])"),
    C("X.tensor([0, 7, 255], dtype=X.uint8)"),
    C("X.tensor([-128, 5, 127], dtype=X.int8)"),
    C("X.tensor([-32768, 0, 32767], dtype=X.int16)"),
    C("X.tensor([1, -2, 3], dtype=X.int32)"),
    C("X.tensor([1, -2, 3])"),
    C("X.tensor([-9223372036854775808, 0, 9223372036854775807])"),
    # Other float dtypes (float16 / bfloat16 print their float32 values).
    C("X.tensor([1.5, 2.25], dtype=X.float64)"),
    C("X.tensor(np.array([1/3, 2/3, 1e-3]))"),
    C("X.tensor([0.1, 1.5, 65504.], dtype=X.float16)"),
    C("X.tensor([6e-08, 1.], dtype=X.float16)"),
    C("X.tensor([0.1, 1.5, 3.14159, 1e20], dtype=X.bfloat16)"),
    C("X.tensor([1., 2., 3.], dtype=X.bfloat16)"),
    C("X.tensor(np.linspace(-1, 1, 12, dtype=np.float32), dtype=X.bfloat16)"),
    C("X.tensor(np.linspace(-3, 3, 1200, dtype=np.float32), dtype=X.bfloat16)"),
    # 0-dim tensors.
    C("X.tensor(1.5)"),
    C("X.tensor(2.)"),
    C("X.tensor(-0.)"),
    C(f"X.tensor({NAN})"),
    C("X.tensor(1e-05)"),
    C("X.tensor(3)"),
    C("X.tensor(3, dtype=X.int32)"),
    C("X.tensor(7, dtype=X.uint8)"),
    C("X.tensor(True)"),
    C("X.tensor(2.5, dtype=X.float64)"),
    C("X.tensor(2.5, dtype=X.bfloat16)"),
    C("X.tensor(0.1, dtype=X.float16)"),
    # Empty tensors.
    C("X.tensor([])"),
    C("X.tensor(np.zeros((0, 3), dtype=np.float32))"),
    C("X.tensor(np.zeros((2, 0, 3), dtype=np.int32))"),
    C("X.tensor([], dtype=X.int64)"),
    C("X.tensor([], dtype=X.int32)"),
    C("X.tensor([], dtype=X.bool)"),
    C("X.tensor([], dtype=X.float64)"),
    C("X.tensor([], dtype=X.bfloat16)"),
    # 2-D, 3-D, 4-D layout.
    C("X.tensor([[1, 2], [3, 4]])"),
    C("X.tensor([[1.5, -2.], [3., 4.25]])"),
    C("X.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))"),
    C("X.tensor(np.arange(16).reshape(2, 2, 2, 2))"),
    C("X.tensor(np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32))"),
    C("X.tensor(np.random.default_rng(1).standard_normal((2, 3, 4)))"),
    C("X.tensor(np.arange(12.).reshape(3, 4)).transpose(0, 1)"),
    # Summarization above 1000 elements.
    C("X.tensor(np.arange(1001, dtype=np.float32))"),
    C("X.tensor(np.arange(2000))"),
    C("X.tensor(np.arange(1000))"),
    C("X.tensor(np.arange(3000).reshape(3, 1000))"),
    C("X.tensor(np.arange(10000, dtype=np.float32).reshape(100, 100))"),
    C("X.tensor(np.arange(4000).reshape(10, 20, 20))"),
    C("X.tensor((np.arange(1000000, dtype=np.float32) / 7).reshape(100, 100, 100))"),
    C("X.tensor(np.random.default_rng(2).standard_normal(5000).astype(np.float32) * 1e-6)"),
    C("X.tensor(np.arange(1001, dtype=np.uint8))"),
    # Wrapping long rows at 80 columns (and the dtype suffix onto its own line).
    C("X.tensor(np.arange(40, dtype=np.float32) * 1.5)"),
    C("X.tensor(np.arange(40, dtype=np.float32).reshape(2, 20) * 1.5)"),
    C("X.tensor(np.arange(20, dtype=np.int32) * 1000)"),
    C("X.tensor(np.arange(30, dtype=np.int16) * 100)"),
    C("X.tensor(np.arange(14, dtype=np.float32) / 3 + 1000)"),
    C("X.tensor(np.arange(24, dtype=np.uint8))"),
    # Print options.
    C("X.tensor([1.23456, 2.5, -0.001])", options=dict(precision=2)),
    C("X.tensor(np.array([1/3, 2/3]))", options=dict(precision=10)),
    C("X.tensor([1.5, -2.5])", options=dict(sci_mode=True)),
    C("X.tensor([1., 2.])", options=dict(sci_mode=True)),
    C("X.tensor([0., -0.])", options=dict(sci_mode=True)),
    C("X.tensor([1e-05, 1.])", options=dict(sci_mode=False)),
    C("X.tensor([1e10, 1.])", options=dict(sci_mode=False)),
    C("X.tensor(np.arange(1001, dtype=np.float32))", options=dict(profile="full")),
    C("X.tensor(np.arange(1200).reshape(30, 40))", options=dict(profile="full")),
    C("X.tensor(np.random.default_rng(3).standard_normal((100, 100)).astype(np.float32))",
      options=dict(profile="short")),
    C("X.tensor([1.2345, 6.789])", options=dict(profile="short")),
    C("X.tensor(np.arange(49.).reshape(7, 7))", options=dict(threshold=5)),
    C("X.tensor(np.arange(2000).reshape(2, 1000))", options=dict(edgeitems=1)),
    C("X.tensor(np.arange(5.))", options=dict(edgeitems=0)),
    C("X.tensor(np.arange(2000).reshape(2, 1000))", options=dict(edgeitems=0)),
    C("X.tensor(np.arange(40, dtype=np.float32) * 1.5)", options=dict(linewidth=40)),
    C("X.tensor([1.2345, 6.789])", options=dict(profile="short", precision=3)),
    # requires_grad / grad_fn suffixes.
    C("X.tensor([1., 2.])", autograd="requires_grad"),
    C("X.tensor([1., 2.])", autograd="grad_fn"),
    C("X.tensor(1.5)", autograd="grad_fn"),
    C("X.tensor([1., 2.], dtype=X.float64)", autograd="requires_grad"),
    C("X.tensor([1., 2.], dtype=X.float64)", autograd="requires_grad", options=dict(linewidth=30)),
    C("X.tensor([2., 4., 6., 8., 10.], dtype=X.float64)", autograd="grad_fn", options=dict(linewidth=30)),
    # Another default dtype: float32 gets a suffix, float64 loses it.
    C("X.tensor([1.5, 2.])", default_dtype="float64"),
    C("X.tensor([1.5, 2.], dtype=X.float32)", default_dtype="float64"),
    C("X.tensor([])", default_dtype="float64"),
    C("X.tensor([], dtype=X.float32)", default_dtype="float64"),
]


def _reset(torch):
    torch.set_printoptions(profile="default", sci_mode=None)
    torch.set_default_dtype(torch.float32)


def build(torch, record):
    """PyTorch's tensor for a case record (print options are set by the caller)."""
    if "default_dtype" in record:
        torch.set_default_dtype(getattr(torch, record["default_dtype"]))
    t = eval(record["case"], {"X": torch, "np": np})  # noqa: S307 - cases are literals of this file
    if record.get("autograd") == "requires_grad":
        t = t.requires_grad_()
    elif record.get("autograd") == "grad_fn":
        t = t.requires_grad_() + 0
    return t


def generate():
    import torch

    records = []
    for case in CASES:
        record = dict(case)
        try:
            t = build(torch, record)
            torch.set_printoptions(**record.get("options", {}))
            record["repr"], record["str"] = repr(t), str(t)
            if record.get("autograd") == "grad_fn":
                record["grad_fn"] = type(t.grad_fn).__name__
        finally:
            _reset(torch)
        records.append(record)
    return records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing it")
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args(argv)
    text = json.dumps(generate(), indent=1, ensure_ascii=True) + "\n"
    if args.check:
        with open(args.out) as f:
            same = f.read() == text
        print("up to date" if same else f"{args.out} is stale: run tools/make_reprs.py")
        return 0 if same else 1
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    print(f"wrote {len(CASES)} cases to {os.path.relpath(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
