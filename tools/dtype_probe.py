"""Every op of the op database on another dtype, against PyTorch: which ops give other values than PyTorch's,
and which accept what PyTorch refuses (needs `pip install torch==2.13.0`).

Each op's sample (torchlite.testing.op_db) has its floating tensors cast to the dtype (complex ones times
1 + 0.5j, so that their imaginary parts are not zero); both libraries run it and the results are compared as
tests/test_torch_diff.py compares them. Ops that refuse the dtype while PyTorch takes it are not listed (those
are features not written yet); `--all` lists them too.

    python tools/dtype_probe.py complex64
    python tools/dtype_probe.py uint16 --all
"""
import argparse
import os
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dtype", help="a torchlite dtype name: complex64, uint16, ...")
    parser.add_argument("--all", action="store_true", help="also list the ops that refuse what PyTorch takes")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import torchlite as tl
    import test_torch_diff as diff  # needs torch (importorskip raises Skipped without it)
    from torchlite.testing._opinfo import op_db

    dtype = getattr(tl, args.dtype)
    found = 0
    for op in op_db:
        if not diff.comparable(op):
            continue
        sample = op.sample()
        cast = {}
        for name, value in sample.items():
            if isinstance(value, tl.Tensor) and value.dtype.is_floating_point:
                value = value.to(dtype)
                if dtype.is_complex and value.numel():
                    value = value * (1 + 0.5j)
            cast[name] = value
        if cast.keys() == sample.keys() and all(cast[k] is sample[k] for k in cast):
            continue  # no floating tensor to cast
        try:
            with tl.no_grad():
                ours, ours_error = op.call(op.primary_kind, cast), None
        except Exception as e:  # noqa: BLE001 - any refusal is an outcome here
            ours, ours_error = None, f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"
        try:
            theirs = diff.torch_call(op, op.primary_kind, {k: diff.to_torch(v) for k, v in cast.items()})
            theirs_error = None
        except Exception as e:  # noqa: BLE001
            theirs, theirs_error = None, f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"
        if ours_error is None and theirs_error is not None:
            print(f"accepts, PyTorch refuses: {op.full_name} | {theirs_error}")
            found += 1
        elif ours_error is None:
            try:
                values = "random" not in op.tags and not op.name.startswith(("empty", "new_empty"))
                diff.compare(ours, theirs, op, values=values)
            except AssertionError as e:
                print(f"differs: {op.full_name} | {str(e).splitlines()[0][:150]}")
                found += 1
        elif theirs_error is None and args.all:
            print(f"refuses, PyTorch takes: {op.full_name} | {ours_error}")
    print(f"{found} ops differ from PyTorch on {args.dtype}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
