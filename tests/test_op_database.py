"""The op database (torchlite.testing.op_db): built from the installed op facts, current with the schema,
one entry per op, and refusing tables that contradict the schema."""
import os
import sys
import types

import numpy as np
import pytest

import torchlite as tl
import torchlite._op_facts
from torchlite.testing import OpInfo, op_by_name, op_db
from torchlite.testing._opinfo import MissingSample, _build

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_facts_are_current_with_the_schema():
    """The installed torchlite/_op_facts.py is what the generator writes for native_functions.yaml now (a
    stale build fails here, not as a puzzling sample error)."""
    sys.path.insert(0, ROOT)
    try:
        from codegen.facts import op_facts
        from codegen.load import load
    finally:
        sys.path.remove(ROOT)
    expected = [op_facts(nf) for nf in load(os.path.join(ROOT, "native_functions.yaml"))]
    assert torchlite._op_facts.OPS == expected, "rebuild: pip install --no-build-isolation -e ."


def test_one_entry_per_schema_op():
    assert len(op_db) == len(torchlite._op_facts.OPS) == len(op_by_name)
    assert all(isinstance(op, OpInfo) for op in op_db)
    add = op_by_name["add.Tensor"]
    assert add.name == "add" and add.kind == "pointwise" and add.promotion.kind == "default"
    assert [a.name for a in add.arguments] == ["self", "other", "alpha"] and add.arguments[1].number_ok
    assert "inplace" in add.variants and "out" in add.variants and add.differentiable
    assert op_by_name["sum.dim_IntList"].kind == "dispatch" and op_by_name["view"].is_view


def test_an_op_runs_from_its_entry():
    """What a user of the registry does: sample, call each variant, compare with the reference."""
    op = op_by_name["mul.Tensor"]
    args, dtype = op.pointwise_args("float32", "broadcast_other", np.random.default_rng(0))
    assert dtype == "float32" and tuple(args["other"].shape) == (3,)
    np.testing.assert_allclose(op.call("function", args).numpy(), op.reference_result(args, dtype), rtol=1e-6)
    np.testing.assert_array_equal(op.call("method", args).numpy(), op.call("function", args).numpy())
    perm = op_by_name["permute"]
    args = perm.sample()
    np.testing.assert_array_equal(perm.call("method", args).numpy(), perm.reference_result(args))


def test_gradcheck_inputs_come_from_the_entry():
    op = op_by_name["log"]
    labels = [label for label, _ in op.gradcheck_samples()]
    assert "noncontiguous" in labels
    fn, inputs = op.as_function(op.gradcheck_sample(labels[0]))
    assert all(x.dtype == tl.float64 and x.requires_grad for x in inputs)
    lo, hi = op.domain
    assert all(lo <= float(x.min()) and float(x.max()) <= hi for x in inputs)
    assert tl.autograd.gradcheck(fn, inputs)


def _family(**tables):
    return types.SimpleNamespace(__name__="test_family", **tables)


def test_a_sample_given_twice_is_refused():
    one = _family(samples=lambda: {"view": lambda: {}})
    with pytest.raises(ValueError, match="a sample for view is given twice"):
        _build([one, one])


def test_a_sample_for_an_unknown_op_is_refused():
    with pytest.raises(ValueError, match=r"samples for ops the schema does not have: \['no_such_op'\]"):
        _build([_family(samples=lambda: {"no_such_op": lambda: {}})])


def test_a_pointwise_reference_for_another_kind_is_refused():
    with pytest.raises(ValueError, match=r"POINTWISE_REFS for ops that are not pointwise: \['view'\]"):
        _build([_family(POINTWISE_REFS={"view": np.negative})])


def test_a_missing_sample_says_where_to_add_it():
    db = {op.full_name: op for op in _build([])}
    with pytest.raises(MissingSample, match="add a sample for view to a module of torchlite/testing/_samples/"):
        db["view"].sample()
    with pytest.raises(MissingSample, match="add a NumPy reference for exp"):
        db["exp"].reference_result({"self": tl.ones(2)}, "float32")
    assert db["exp"].sample()["self"].dtype == tl.float32  # pointwise ops need no table to be sampled
