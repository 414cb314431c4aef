"""Optional differential tests: every op in the schema against PyTorch itself, when it is installed.

PyTorch is never a dependency of torchlite; with `pip install torch==2.13.0` these tests call the same op
with the same arguments in both libraries and compare result dtypes, shapes and values: every pointwise
op for every dtype it supports, and every other op on its sample from tests/test_ops.py."""
import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch", reason="PyTorch is not installed: the differential tests against it are "
                                            "optional (pip install torch==2.13.0)")

import test_ops as T  # noqa: E402  (the schema, the samples and the call helpers)

# Ops a differential test cannot compare, with the reason.
NOT_COMPARED = {
    "tensordot": "the schema form tensordot(a, b, dims_a, dims_b) is torchlite's; torch takes dims=(a, b)",
    "einsum": "torch.einsum takes its operands as varargs; tests/test_linalg.py compares with np.einsum",
    "unique_dim": "torch reaches it only through torch.unique(dim=); tests/test_reductions.py covers it",
}

# Ops whose Tensor[] argument torch takes as varargs.
VARARGS = {"broadcast_tensors"}


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


def torch_call(nf, kind, args):
    """T.call's argument order, on torch."""
    pos, kw = T.split_args(nf, kind, args)
    if nf.name in VARARGS:
        pos = [*pos[0], *pos[1:]]
    if kind == "function":
        fn = getattr(torch.nn.functional if nf.python_module == "nn.functional" else torch, nf.name)
    elif kind == "method":
        fn = getattr(args["self"], nf.name)
    else:
        fn = getattr(args["self"], nf.name + "_")
    return fn(*pos, **kw)


def compare(ours, theirs, nf, values=True):
    what = nf.schema.full_name
    if isinstance(theirs, (bool, int, float)):  # allclose, equal, ...
        assert type(ours) is type(theirs) and ours == theirs, f"{what}: {ours!r} vs {theirs!r}"
        return
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), f"{what}: {ours!r} vs {theirs!r}"
        for a, b in zip(ours, theirs):
            compare(a, b, nf, values)
        return
    assert repr(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1], f"{what}: {ours.dtype} vs {theirs.dtype}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
    if not values:
        return
    expected = theirs.float().numpy() if theirs.dtype == torch.bfloat16 else theirs.numpy()
    dtype = repr(ours.dtype).split(".")[1]
    if dtype in T.FLOATING:
        rtol, atol = T.TOLERANCES[dtype]
        np.testing.assert_allclose(T.to_f64(ours), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(ours.numpy(), expected, err_msg=what)


def run_both(nf, args, kind):
    if kind == "inplace":
        args = dict(args, self=T.clone(args["self"]))
    targs = {k: to_torch(v) for k, v in args.items()}
    try:
        theirs = torch_call(nf, kind, targs)
    except Exception as e:  # noqa: BLE001  (PyTorch refuses: so must torchlite, with the same type)
        with pytest.raises(type(e)):
            T.call(nf, kind, args)
        return None, None
    T.reseed(nf)
    ours = T.call(nf, kind, args)
    return ours, theirs


def comparable(nf):
    if nf.name in NOT_COMPARED or nf.name.startswith("_"):
        return False
    kind = T.primary_kind(nf)
    holder = torch.Tensor if kind != "function" else (torch.nn.functional if nf.python_module else torch)
    return hasattr(holder, nf.name if kind != "inplace" else nf.name + "_")


# Every dtype on a broadcast sample; every layout (non-contiguous, 0-dim, empty, Python numbers...) in one
# floating and one integer dtype.
POINTWISE_CASES = [pytest.param(nf, d, layout, id=f"{nf.schema.full_name}-{d}-{layout}")
                   for nf in T.POINTWISE if comparable(nf) for d in T.dtype_list(nf)
                   for layout in (T.layouts_for(nf) if d in ("float32", "int64") else ("broadcast_other",))
                   if layout in T.layouts_for(nf)]


@pytest.mark.parametrize("nf,dtype,layout", POINTWISE_CASES)
def test_pointwise_matches_torch(nf, dtype, layout):
    args, _ = T.pointwise_args(nf, dtype, layout, T.rng_for("torch", nf.schema.full_name, dtype, layout))
    ours, theirs = run_both(nf, args, T.primary_kind(nf))
    if theirs is not None:
        compare(ours, theirs, nf)


OTHERS = [nf for nf in T.FUNCTIONS if nf.pointwise is None and comparable(nf)]


@pytest.mark.parametrize("nf", OTHERS, ids=T.ids(OTHERS))
def test_op_matches_torch(nf):
    args = T.variant_sample(nf)
    ours, theirs = run_both(nf, args, T.primary_kind(nf))
    if theirs is None:
        return
    # Random ops draw other numbers than PyTorch's generator; empty ones hold garbage.
    compare(ours, theirs, nf, values="random" not in nf.tags and not nf.name.startswith(("empty", "new_empty")))


def test_every_op_is_compared_or_excused():
    skipped = [nf.schema.full_name for nf in T.FUNCTIONS if not comparable(nf)]
    unexplained = [n for n in skipped if not n.startswith("_") and n.split(".")[0] not in NOT_COMPARED]
    assert not unexplained, f"ops torch lacks under the same name (add them to NOT_COMPARED): {unexplained}"


OUT_OPS = [nf for nf in T.FUNCTIONS if "out" in nf.variants and comparable(nf) and len(nf.schema.returns) == 1
           and "random" not in nf.tags]
@pytest.mark.parametrize("nf", OUT_OPS, ids=T.ids(OUT_OPS))
def test_out_of_another_dtype_is_refused_or_cast_as_torch_does(nf):
    """out= of a dtype other than the result's: PyTorch casts into it (pointwise ops, cat, sum...) or
    refuses it (mm, gather, nonzero...); torchlite must do the same."""
    args = T.variant_sample(nf)
    targs = {k: to_torch(v) for k, v in args.items()}
    try:
        result = torch_call(nf, "function", targs)
    except Exception:  # noqa: BLE001  (a sample torch refuses outright says nothing about out=)
        pytest.skip(f"torch refuses the sample of {nf.schema.full_name}")
    other = torch.float64 if result.dtype != torch.float64 else torch.float32
    pos, kw = T.split_args(nf, "function", targs)
    fn = getattr(torch.nn.functional if nf.python_module == "nn.functional" else torch, nf.name)
    try:
        fn(*pos, **kw, out=torch.empty(0, dtype=other))
        torch_casts = True
    except (RuntimeError, TypeError):
        torch_casts = False
    if torch_casts:
        T.call(nf, "function", args, out=tl.empty((0,), dtype=getattr(tl, str(other).split(".")[1])))
    else:
        with pytest.raises((RuntimeError, TypeError)):
            T.call(nf, "function", args, out=tl.empty((0,), dtype=getattr(tl, str(other).split(".")[1])))
