"""A bad-input fuzz generated from the schema, run in a subprocess (a crash or a hang fails a test instead of
killing pytest).

For every op, its sample call from the op database (torchlite.testing.op_db) is mutated one argument at a time: a Tensor becomes
empty, 0-dim, of an incompatible shape, full of NaN/inf, or an int64 tensor of zeros (integer division by
zero, integer inputs to float-only ops); a tensor list becomes empty or gets a mismatched member; an int
becomes a bad dim (99, -99) or a huge size; an int list becomes empty, out of range or huge; a number
becomes NaN, inf or too big for any dtype. Each mutated call must either work or raise a TypeError,
ValueError, IndexError, RuntimeError or NotImplementedError whose message names the op. (Wrong argument
types are fuzzed by tests/test_ops.py::test_wrong_argument_types.)"""
import json
import os

import pytest

import test_ops as T

ALLOWED = {"TypeError", "ValueError", "IndexError", "RuntimeError", "NotImplementedError"}
HUGE = 2 ** 62


def mutations(op, sample):
    """(description, args) for each mutation of the sample's arguments."""
    tl = T.tl
    out = []
    for a in op.arguments:
        v = sample.get(a.name)
        cases = []
        if a.is_tensor:
            dtype = v.dtype if isinstance(v, tl.Tensor) else tl.float32
            shape = tuple(v.shape) if isinstance(v, tl.Tensor) else (2, 3)
            cases += [("empty", lambda d=dtype: tl.empty((0,), dtype=d)),
                      ("0-dim", lambda d=dtype: tl.ones((), dtype=d)),
                      ("shape (5, 7)", lambda d=dtype: tl.ones((5, 7), dtype=d)),
                      ("int64 zeros", lambda s=shape: tl.zeros(s, dtype=tl.int64))]
            if dtype.is_floating_point:
                cases.append(("nan/inf", lambda s=shape, d=dtype: _nan_inf(s, d)))
        elif a.base == "Tensor" and a.is_list:
            cases += [("empty list", lambda: []),
                      ("mismatched member", lambda v=v: [*(v or [tl.ones(2, 3)]), tl.ones(5, 7)])]
        elif a.base == "int" and not a.is_list:
            cases += [("99", lambda: 99), ("-99", lambda: -99), ("huge", lambda: HUGE)]
        elif a.base == "int" and a.is_list:
            cases += [("()", lambda: ()), ("(99,)", lambda: (99,)), ("(-99,)", lambda: (-99,)),
                      ("huge", lambda: (HUGE, HUGE))]
        elif a.base == "Scalar":
            cases += [("nan", lambda: float("nan")), ("inf", lambda: float("inf")), ("2**70", lambda: 2 ** 70)]
        elif a.base == "float":
            cases += [("nan", lambda: float("nan")), ("inf", lambda: float("inf"))]
        for desc, make in cases:
            out.append((f"{a.name}={desc}", a.name, make))
    return out


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _nan_inf(shape, dtype):
    tl = T.tl
    vals = [float("nan"), float("inf"), -float("inf"), 1.0]
    flat = [vals[i % 4] for i in range(_numel(shape))]
    return tl.tensor(flat, dtype=dtype).reshape(shape) if flat else tl.empty(shape, dtype=dtype)


def fuzz_results(full_name):
    op = T.BY_NAME[full_name]
    kind = op.primary_kind
    results = []
    for desc, name, make in mutations(op, op.sample()):
        args = dict(op.sample())
        args[name] = make()
        if kind == "inplace" and name != "self":
            args["self"] = T.clone(args["self"])
        try:
            op.reseed()
            op.call(kind, args)
            results.append({"case": desc, "type": None, "message": ""})
        except Exception as e:  # noqa: BLE001
            results.append({"case": desc, "type": type(e).__name__, "message": str(e)[:300]})
    return results


_RUNNER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import test_fuzz
for name in sys.argv[2:]:
    print("RESULT" + json.dumps([name, test_fuzz.fuzz_results(name)]), flush=True)
"""

FUZZED = T.OPS


@pytest.mark.parametrize("op", FUZZED, ids=T.ids(FUZZED))
def test_bad_inputs_raise_python_exceptions(op):
    results = T.isolated_result(op.full_name, [n.full_name for n in FUZZED], _RUNNER,
                                prefix=[os.path.dirname(os.path.abspath(__file__))])
    bad = [r for r in results if r["type"] is not None and
           (r["type"] not in ALLOWED or op.name.rstrip("_") not in r["message"])]
    assert not bad, f"{op.full_name}: " + json.dumps(bad, indent=1)
