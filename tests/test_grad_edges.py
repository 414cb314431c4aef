"""Gradients at the edge values, against PyTorch (issue 19, class 4): every differentiable pointwise op of
the schema, in float64, on every combination of 0, -0, 1, -1, 0.5, 2, a tiny number, inf, -inf and NaN for
its Tensor arguments (so binary ops also meet ties, x == y). The gradients (and the values) must equal
PyTorch's, NaN for NaN and inf for inf. Optional: skipped without PyTorch."""
import itertools
import math

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch", reason="PyTorch is not installed: the differential tests against it are "
                                            "optional (pip install torch==2.13.0)")

import test_ops as T  # noqa: E402
import test_torch_diff as D  # noqa: E402

EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-300, math.inf, -math.inf, math.nan]

# Where torchlite's gradient (or value) at an edge value differs from PyTorch's on purpose, with what differs: in
# each, PyTorch's result comes from its rounding, a series, a guard or the order of its special cases, and
# torchlite's is the true value or limit (or NaN for a NaN input, where PyTorch's guard for tiny inputs yields a
# number). Each is a strict xfail: a change that makes one match makes its test fail until it leaves this list.
KNOWN_DIFFERENCES = {
    "softsign": "d/dx at +-inf: PyTorch NaN (its composite's inf / inf), torchlite 0, the limit",
    "i1": "d/dx at NaN: PyTorch 0.5 * gradient (its guard for |x| <= eps takes NaN), torchlite NaN",
    "i1e": "d/dx at NaN: PyTorch 0.5 * gradient (its guard for |x| <= eps takes NaN), torchlite NaN",
    "igammac": "at a = 1e-300 PyTorch's Q(a, 1) is 7.97e-301, the true value 2.19e-301 (torchlite's)",
    "digamma": "d/dx at the poles: PyTorch a finite value of its series (-3.3e32 at -1), torchlite -inf; at -inf "
               "PyTorch NaN, torchlite inf",
    "polygamma": "at the poles PyTorch gives a finite value of its series (6.6e32 at -1), torchlite inf",
    "logaddexp2": "logaddexp2(-1, -1): PyTorch -4.8e-17 (rounding), torchlite 0 (exact)",
}


def _differentiable(op):
    return op.differentiable and "float64" in op.dtypes and D.comparable(op)


OPS = [op for op in T.POINTWISE if _differentiable(op)]


def edge_args(op):
    args, _ = op.pointwise_args("float64", "broadcast_other", T.rng_for("edges", op.full_name))
    names = [a.name for a in op.tensor_args if isinstance(args.get(a.name), tl.Tensor)
             and args[a.name].dtype == tl.float64]
    grid = list(itertools.product(EDGES, repeat=len(names)))
    for i, name in enumerate(names):
        args[name] = tl.tensor([g[i] for g in grid], dtype=tl.float64)
    return args, names


CASES = [pytest.param(op, marks=pytest.mark.xfail(reason=KNOWN_DIFFERENCES[op.full_name], strict=True))
         if op.full_name in KNOWN_DIFFERENCES else op for op in OPS]


def test_known_differences_are_ops_of_the_sweep():
    assert set(KNOWN_DIFFERENCES) <= {op.full_name for op in OPS}


@pytest.mark.parametrize("op", CASES, ids=T.ids(OPS))
def test_gradients_at_edge_values_match_torch(op):
    args, names = edge_args(op)
    targs = {k: D.to_torch(v) for k, v in args.items()}
    for n in names:
        args[n] = args[n].requires_grad_()
        targs[n] = targs[n].requires_grad_()
    kind = "function" if "function" in op.variants else "method"
    try:
        theirs = D.torch_call(op, kind, targs)
    except Exception:  # noqa: BLE001  (PyTorch refuses these inputs: test_torch_diff compares refusals)
        pytest.skip("PyTorch refuses the edge values for this op")
    ours = op.call(kind, args)
    if isinstance(theirs, tuple):
        theirs, ours = theirs[0], ours[0]
    if not theirs.dtype.is_floating_point or not theirs.requires_grad:
        pytest.skip("the result is not differentiable")
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-7, atol=0, equal_nan=True,
                               err_msg=f"{op.full_name}: values")
    go = [1.0 if i % 2 == 0 else -0.5 for i in range(theirs.numel())]
    try:
        theirs.backward(torch.tensor(go, dtype=torch.float64).reshape(theirs.shape))
    except RuntimeError as e:  # PyTorch has no derivative (floor_divide): nothing to compare
        pytest.skip(f"PyTorch: {e}")
    ours.backward(tl.tensor(go, dtype=tl.float64).reshape(tuple(ours.shape)))
    for n in names:
        g_t = targs[n].grad
        g_o = args[n].grad
        if g_t is None:
            assert g_o is None or not g_o.ne(0).any(), f"{op.full_name}: PyTorch has no gradient for {n}"
            continue
        assert g_o is not None, f"{op.full_name}: no gradient for {n}"
        g_t = g_t.numpy(force=True)  # force: PyTorch's sgn gives a "ZeroTensor"
        bad = ~np.isclose(g_o.numpy(), g_t, rtol=1e-6, atol=1e-300, equal_nan=True)
        if bad.any():
            grid = {m: args[m].detach().numpy()[bad] for m in names}
            raise AssertionError(f"{op.full_name}: d/d{n} differs at {grid}: ours {g_o.numpy()[bad]}, "
                                 f"PyTorch {g_t[bad]}")
