"""Optional differential tests: every op in the schema against PyTorch itself, when it is installed.

PyTorch is never a dependency of torchlite; with `pip install torch==2.13.0` these tests call the same op
with the same arguments in both libraries and compare result dtypes, shapes and values: every pointwise
op for every dtype it supports, and every other op on its sample from the op database (torchlite.testing.op_db); every out= op (with
one or several returns) with each return's target of every dtype; the dtype rules of mean, sum, prod, cumsum
and cumprod for every input, dtype= and out= dtype."""
import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch", reason="PyTorch is not installed: the differential tests against it are "
                                            "optional (pip install torch==2.13.0)")

import test_ops as T  # noqa: E402  (the op database and the test helpers)
from torchlite.testing._helpers import COMPLEX, FLOATING  # noqa: E402

# Ops a differential test cannot compare, with the reason.
NOT_COMPARED = {
    **{name: "eigenvectors and singular vectors are defined up to sign, which PyTorch's MKL LAPACK and torchlite's "
             "OpenBLAS LAPACK pick differently; tests/test_linalg.py compares the values, the reconstructions and "
             "the rest with torch" for name in ("linalg_eigh", "linalg_svd", "svd")},
    "tensordot": "the schema form tensordot(a, b, dims_a, dims_b) is torchlite's; torch takes dims=(a, b)",
    "einsum": "torch.einsum takes its operands as varargs; tests/test_linalg.py compares with np.einsum",
    "unique_dim": "torch reaches it only through torch.unique(dim=); tests/test_reductions.py covers it",
    "nll_loss_forward": "an ATen operator with no Python binding in torch (torch.ops.aten takes 1-D and 2-D inputs "
                        "only); compared through nll_loss_nd and in tests/test_nn_functional.py",
    "convolution_backward": "an ATen operator with no Python binding in torch; its results are compared through "
                            "the gradients of F.conv* in tests/test_nn_functional.py",
    "nll_loss_backward": "an ATen operator with no Python binding in torch; its results are compared through the "
                         "gradients of F.nll_loss and F.cross_entropy in tests/test_nn_functional.py",
    "native_layer_norm_backward": "an ATen operator with no Python binding in torch; compared through the "
                                  "gradients of F.layer_norm in tests/test_nn_functional.py",
    "native_group_norm_backward": "an ATen operator with no Python binding in torch; compared through the "
                                  "gradients of F.group_norm in tests/test_nn_functional.py",
}

# Ops whose Tensor[] argument torch takes as varargs.
VARARGS = {"broadcast_tensors"}


def torch_function(op):
    """The op's function in torch: torch.<name>, or for a python_module op its schema binding in torch._C
    (torch._C._nn.elu: the one with out=, as torchlite's OpInfo.function), else its namespace's function
    (torch.special.expit, torch.nn.functional.tanhshrink)."""
    if op.python_module:
        binding = getattr(torch._C, "_" + op.python_module.split(".")[0], None)
        if binding is not None and hasattr(binding, op.name):
            return getattr(binding, op.name)
    module = torch
    for part in (op.python_module or "").split(".") if op.python_module else ():
        module = getattr(module, part)
    return getattr(module, op.name)


def torch_dtype(d):
    return getattr(torch, repr(d).split(".")[1])


def to_torch(v):
    if isinstance(v, tl.Tensor):
        if v.dtype == tl.bfloat16:
            return torch.from_numpy(v.float().numpy().copy()).to(torch.bfloat16)
        return torch.from_numpy(np.array(v.numpy(), order="C"))
    if isinstance(v, tl.dtype):
        return torch_dtype(v)
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, tl.Tensor) for x in v):
        return type(v)(to_torch(x) for x in v)
    if isinstance(v, (list, tuple)) and v and any(isinstance(x, tl.Tensor) or x is None for x in v):
        return [None if x is None else to_torch(x) for x in v]
    return v


def torch_call(op, kind, args):
    """OpInfo.call's argument order, on torch."""
    pos, kw = op.split_args(kind, args)
    if op.name in VARARGS:
        pos = [*pos[0], *pos[1:]]
    if kind == "function":
        fn = torch_function(op)
    elif kind == "method":
        fn = getattr(args["self"], op.name)
    else:
        fn = getattr(args["self"], op.name + "_")
    return fn(*pos, **kw)


def compare(ours, theirs, op, values=True, tol_dtype=None):
    """Dtypes, shapes and values; floating values at the tolerance of their dtype, or of tol_dtype (the dtype
    torchlite computed in), or the op's own sample tolerance, when that is looser."""
    what = op.full_name
    if isinstance(theirs, (bool, int, float)):  # allclose, equal, ...
        assert type(ours) is type(theirs) and ours == theirs, f"{what}: {ours!r} vs {theirs!r}"
        return
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), f"{what}: {ours!r} vs {theirs!r}"
        for a, b in zip(ours, theirs):
            compare(a, b, op, values, tol_dtype)
        return
    assert repr(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1], f"{what}: {ours.dtype} vs {theirs.dtype}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
    if not values:
        return
    expected = theirs.float().numpy() if theirs.dtype == torch.bfloat16 else theirs.resolve_conj().numpy()
    dtype = repr(ours.dtype).split(".")[1]
    if dtype in FLOATING + COMPLEX:
        rtol, atol = T.TOLERANCES[dtype]
        if tol_dtype in FLOATING:
            rtol, atol = max(rtol, T.TOLERANCES[tol_dtype][0]), max(atol, T.TOLERANCES[tol_dtype][1])
        own = op.sample_tolerance(dtype)  # the op family's own tolerance (LAPACK results differ in rounding)
        if own is not None:
            rtol, atol = max(rtol, own[0]), max(atol, own[1])
        np.testing.assert_allclose(T.to_f64(ours), expected.astype(T.to_f64(ours).dtype), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(ours.numpy(), expected, err_msg=what)


def run_both(op, args, kind):
    if kind == "inplace":
        args = dict(args, self=T.clone(args["self"]))
    targs = {k: to_torch(v) for k, v in args.items()}
    try:
        theirs = torch_call(op, kind, targs)
    except Exception as e:  # noqa: BLE001  (PyTorch refuses: so must torchlite, with the same type)
        with pytest.raises(type(e)):
            op.call(kind, args)
        return None, None
    op.reseed()
    ours = op.call(kind, args)
    return ours, theirs


def comparable(op):
    if op.name in NOT_COMPARED or op.name.startswith("_"):
        return False
    kind = op.primary_kind
    if kind == "function":
        try:
            torch_function(op)
        except AttributeError:
            return False
        return True
    return hasattr(torch.Tensor, op.name if kind != "inplace" else op.name + "_")


# Every dtype on a broadcast sample; every layout (non-contiguous, 0-dim, empty, Python numbers...) in one
# floating and one integer dtype.
POINTWISE_CASES = [pytest.param(op, d, layout, id=f"{op.full_name}-{d}-{layout}")
                   for op in T.POINTWISE if comparable(op) for d in op.dtypes
                   for layout in (op.layouts if d in ("float32", "int64") else ("broadcast_other",))
                   if layout in op.layouts]


@pytest.mark.parametrize("op,dtype,layout", POINTWISE_CASES)
def test_pointwise_matches_torch(op, dtype, layout):
    args, _ = op.pointwise_args(dtype, layout, T.rng_for("torch", op.full_name, dtype, layout))
    ours, theirs = run_both(op, args, op.primary_kind)
    if theirs is not None:
        compare(ours, theirs, op)


OTHERS = [op for op in T.OPS if op.kind != "pointwise" and comparable(op)]


@pytest.mark.parametrize("op", OTHERS, ids=T.ids(OTHERS))
def test_op_matches_torch(op):
    args = op.sample()
    ours, theirs = run_both(op, args, op.primary_kind)
    if theirs is None:
        return
    # Random ops draw other numbers than PyTorch's generator; empty ones hold garbage.
    compare(ours, theirs, op, values="random" not in op.tags and not op.name.startswith(("empty", "new_empty")))


def test_every_op_is_compared_or_excused():
    skipped = [op.full_name for op in T.OPS if not comparable(op)]
    unexplained = [n for n in skipped if not n.startswith("_") and n.split(".")[0] not in NOT_COMPARED]
    assert not unexplained, f"ops torch lacks under the same name (add them to NOT_COMPARED): {unexplained}"


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]

# out= of an integral or bool dtype where PyTorch's outcome is an accident of its implementation, with the
# reason; torchlite computes in the result's dtype there and refuses a narrowing cast (RuntimeError).
OUT_DTYPE_ACCIDENTS = {
    "nanmean": "PyTorch sums the NaN-zeroed input in out's dtype: out=bool raises NotImplementedError from nansum",
    "arange": "PyTorch casts start, end and step to out's dtype first: arange(0.5, 3, 0.7, out=int32) is four "
              "zeros, and out=int64 raises 'step must be nonzero'",
    "linspace": "PyTorch computes the steps in out's integral dtype: linspace(0, 1.5, 4, out=int64) is [0, 0, 0, 1]",
    "logspace": "PyTorch computes the steps in out's integral dtype: logspace(0, 1.5, 4, out=int64) is [1, 2, 4, 10]",
    "nansum": "PyTorch's nansum(float, out=int) has no kernel (NotImplementedError), while nansum(float, dtype=int) "
              "sums the NaN-zeroed input in that dtype; torchlite does the latter for both",
}
# Where PyTorch refuses with a TypeError and torchlite with a RuntimeError.
TYPE_ERROR_REFUSALS = {
    name: "torch.cat's refusal of an out= it cannot cast into is a TypeError; torchlite's out= stage raises the "
          "RuntimeError every other op raises" for name in ("cat", "concat", "stack", "hstack", "vstack", "dstack",
                                                            "column_stack", "row_stack")}
# Known differences, with the reason.
OUT_DTYPE_XFAIL = {
    name: "a composite with a dtype= argument takes a missing dtype from its out= target (docs/schema.md), so "
          "torchlite computes the norm in out's dtype where PyTorch refuses an out= of another dtype than the result's"
    for name in ("linalg_vector_norm", "linalg_matrix_norm", "linalg_matrix_norm.str_ord", "linalg_norm",
                 "linalg_norm.ord_str")}

OUT_OPS = [op for op in T.OPS if "out" in op.variants and comparable(op) and "random" not in op.tags]
OUT_CASES = [pytest.param(op, slot, id=f"{op.full_name}-{slot}", marks=[pytest.mark.xfail(
                 reason=OUT_DTYPE_XFAIL[op.full_name], strict=True)] if op.full_name in OUT_DTYPE_XFAIL else [])
             for op in OUT_OPS for slot in range(len(op.returns))]


@pytest.mark.parametrize("op,slot", OUT_CASES)
def test_out_of_every_dtype_matches_torch(op, slot):
    """out= whose target number `slot` has each dtype in turn (the others the result's): PyTorch computes in
    it, casts into it or refuses it (mm, gather, the indices of max.dim...); torchlite must do the same, with
    the same exception type and, where both compute, the same values (at the precision of the result's dtype:
    PyTorch may compute in a wider out= dtype)."""
    args = op.sample()
    targs = {k: to_torch(v) for k, v in args.items()}
    try:
        natural = torch_call(op, "function", targs)
    except Exception:  # noqa: BLE001  (a sample torch refuses outright says nothing about out=)
        pytest.skip(f"torch refuses the sample of {op.full_name}")
    multi = isinstance(natural, tuple)
    natural = tuple(natural) if multi else (natural,)
    pos, kw = op.split_args("function", targs)
    fn = torch_function(op)
    for dtype in DTYPES:
        if op.name in OUT_DTYPE_ACCIDENTS and dtype not in FLOATING:
            continue
        names = [dtype if i == slot else str(r.dtype).split(".")[1] for i, r in enumerate(natural)]
        touts = tuple(torch.empty(0, dtype=getattr(torch, n)) for n in names)
        outs = tuple(tl.empty((0,), dtype=getattr(tl, n)) for n in names)
        what = f"{op.full_name} with out[{slot}] of {dtype}"
        try:
            fn(*pos, **kw, out=touts if multi else touts[0])
        except Exception as e:  # noqa: BLE001  (PyTorch refuses: so must torchlite, with the same type)
            kind = (RuntimeError, TypeError) if op.name in TYPE_ERROR_REFUSALS else type(e)
            with pytest.raises(kind):
                op.call("function", args, out=outs if multi else outs[0])
                pytest.fail(f"{what}: torch raises {type(e).__name__}: {e}; torchlite computes")
            continue
        ours = op.call("function", args, out=outs if multi else outs[0])
        for a, b, r in zip(outs, touts, natural):
            assert a.dtype == getattr(tl, str(b.dtype).split(".")[1]), what
            compare(a, b, op, tol_dtype=str(r.dtype).split(".")[1])
        assert all(x is y for x, y in zip(ours if multi else (ours,), outs)), f"{what}: out= returns its targets"


# The reductions and scans whose dtype rules PyTorch spells out case by case: every input dtype, with dtype=
# of every dtype or none, and out= of every dtype or none (in place: self is the target).
DTYPE_RULE_OPS = {
    "mean": lambda L, x, dtype, out: L.mean(x, dtype=dtype) if out is None else None,
    "mean.dim": lambda L, x, dtype, out: L.mean(x, 0, dtype=dtype, **out_kw(out)),
    "sum.dim_IntList": lambda L, x, dtype, out: L.sum(x, 0, dtype=dtype, **out_kw(out)),
    "prod.dim_int": lambda L, x, dtype, out: L.prod(x, 0, dtype=dtype, **out_kw(out)),
    "cumsum": lambda L, x, dtype, out: L.cumsum(x, 0, dtype=dtype, **out_kw(out)),
    "cumprod": lambda L, x, dtype, out: L.cumprod(x, 0, dtype=dtype, **out_kw(out)),
    "cumsum_": lambda L, x, dtype, out: x.cumsum_(0, dtype=dtype) if out is None else None,
    "cumprod_": lambda L, x, dtype, out: x.cumprod_(0, dtype=dtype) if out is None else None,
}


def out_kw(out):
    return {} if out is None else {"out": out}


def outcome(lib, op, dtype, dtype_arg, out_dtype):
    x = lib.tensor([[1, 2, 3], [4, 0, 5]], dtype=getattr(lib, dtype))
    try:
        return DTYPE_RULE_OPS[op](lib, x, dtype_arg and getattr(lib, dtype_arg),
                                  out_dtype and lib.empty(0, dtype=getattr(lib, out_dtype)))
    except Exception as e:  # noqa: BLE001  (the outcome to compare)
        return e


@pytest.mark.parametrize("op", DTYPE_RULE_OPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_and_scan_dtype_rules_match_torch(op, dtype):
    """PyTorch refuses mean of an integral input (even with an out= of a floating dtype), computes sum, prod,
    cumsum and cumprod in out's dtype (cumsum(int, out=float), cumsum(float, out=int)), refuses bool for
    cumsum/cumprod with NotImplementedError, and insists that out= has dtype= when both are given."""
    for dtype_arg in [None, *DTYPES]:
        for out_dtype in [None, *DTYPES]:
            what = f"{op}({dtype}, dtype={dtype_arg}, out={out_dtype})"
            theirs = outcome(torch, op, dtype, dtype_arg, out_dtype)
            ours = outcome(tl, op, dtype, dtype_arg, out_dtype)
            if isinstance(theirs, Exception):
                assert type(ours) is type(theirs), f"{what}: torch raises {theirs!r}, torchlite gives {ours!r}"
                # torchlite's message may name the op first ("cumsum: Bad in-place call: ...").
                assert str(ours).endswith(str(theirs)), f"{what}: {ours} vs {theirs}"
            elif theirs is not None:
                assert not isinstance(ours, Exception), f"{what}: torch computes, torchlite raises {ours!r}"
                compare(ours, theirs, T.BY_NAME[op.rstrip("_")])
