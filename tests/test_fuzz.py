"""A bad-input fuzz generated from the schema, run in a subprocess (a crash or a hang fails a test instead of
killing pytest).

For every op, its sample call from the op database (torchlite.testing.op_db) is mutated one argument at a time: a Tensor becomes
empty, 0-dim, of an incompatible shape, full of NaN/inf, or an int64 tensor of zeros (integer division by
zero, integer inputs to float-only ops); a tensor list becomes empty or gets a mismatched member; an int
becomes a bad dim (99, -99) or a huge size; an int list becomes empty, out of range or huge; a number
becomes NaN, inf or too big for any dtype. Each mutated call must either work or raise a TypeError,
ValueError, IndexError, RuntimeError or NotImplementedError whose message names the op. (Wrong argument
types are fuzzed by tests/test_ops.py::test_wrong_argument_types.)

Sizes and counts also take the values around the integer limits (2^31, 2^32, 2^62, 2^63 - 1, -2^63, and
pairs whose product passes 2^63), so every size computation meets its overflow; the subprocess runs under
an 8 GiB address-space limit, so a size that does fit but cannot be allocated must raise, not take the
machine. Where an op takes a Python number, its Tensor arguments are also given in each integer dtype with
numbers that do not fit it (300, -1, 2^31, 2^63 - 1, -2^63, NaN, inf): the checked conversion must refuse or
the op must wrap as PyTorch does, never crash (tests/test_checked_values.py compares the outcomes with
PyTorch's)."""
import json
import os

import pytest

import test_ops as T

# _LinAlgError: torchlite.linalg.LinAlgError, a RuntimeError (a NaN matrix is not positive-definite).
ALLOWED = {"TypeError", "ValueError", "IndexError", "RuntimeError", "NotImplementedError", "_LinAlgError"}


def _names(op):
    """How a message may name the op: its schema name, or for a namespace op the name its users call, as
    PyTorch's messages do (linalg_solve: "linalg.solve")."""
    names = [op.name.rstrip("_")]
    module = (op.python_module or "").split(".")[-1]
    if module and op.name.startswith(module + "_"):
        names.append(module + "." + op.name[len(module) + 1:])
    return names


HUGE = 2 ** 62
INT64_MAX, INT64_MIN = 2 ** 63 - 1, -2 ** 63
# Sizes, counts and dims around the integer limits.
INT_EDGES = [("99", 99), ("-99", -99), ("2**31", 2 ** 31), ("2**32", 2 ** 32), ("huge", HUGE),
             ("int64 max", INT64_MAX), ("int64 min", INT64_MIN)]
INT_LIST_EDGES = [("()", ()), ("(99,)", (99,)), ("(-99,)", (-99,)), ("huge", (HUGE, HUGE)),
                  ("(2**31, 2**33)", (2 ** 31, 2 ** 33)), ("(2**32, 2**32)", (2 ** 32, 2 ** 32)),
                  ("(int64 max,)", (INT64_MAX,)), ("(int64 min,)", (INT64_MIN,)), ("(-1, int64 max)", (-1, INT64_MAX))]
NARROW_INTEGRAL = ["uint8", "int8", "int16", "int32", "int64"]
UNFIT_NUMBERS = [("300", 300), ("-1", -1), ("2**31", 2 ** 31), ("int64 max", INT64_MAX), ("int64 min", INT64_MIN),
                 ("nan", float("nan")), ("inf", float("inf"))]


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
            cases += [(d, lambda v=v: v) for d, v in INT_EDGES]
        elif a.base == "int" and a.is_list:
            cases += [(d, lambda v=v: v) for d, v in INT_LIST_EDGES]
        elif a.base == "Scalar":
            cases += [("nan", lambda: float("nan")), ("inf", lambda: float("inf")), ("2**70", lambda: 2 ** 70)]
        elif a.base == "float":
            cases += [("nan", lambda: float("nan")), ("inf", lambda: float("inf"))]
        for desc, make in cases:
            out.append((f"{a.name}={desc}", a.name, make))
    return out


def narrow_scalar_mutations(op, sample):
    """(description, args) for each integer dtype of the Tensor arguments times each number that does not fit
    it, in every Scalar argument at once: the checked conversion of class 3, for every op with a number."""
    tl = T.tl
    scalars = [a.name for a in op.arguments if a.base == "Scalar" and not a.is_list]
    tensors = [a.name for a in op.arguments if a.is_tensor and isinstance(sample.get(a.name), tl.Tensor)
               and (sample[a.name].dtype.is_floating_point or sample[a.name].dtype in (tl.int64, tl.int32))]
    if not scalars or not tensors:
        return []
    out = []
    for dtype in NARROW_INTEGRAL:
        for desc, value in UNFIT_NUMBERS:
            def make(dtype=dtype, value=value):
                args = dict(sample)
                for n in tensors:
                    args[n] = sample[n].to(getattr(tl, dtype))
                for n in scalars:
                    args[n] = value
                return args
            out.append((f"{dtype} tensors, {'/'.join(scalars)}={desc}", make))
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

    def attempt(desc, make_args):
        try:
            args = make_args()
            if kind == "inplace":
                args["self"] = T.clone(args["self"])
        except Exception:  # noqa: BLE001  (the mutation itself cannot be built: nothing to fuzz)
            return
        try:
            op.reseed()
            op.call(kind, args)
            results.append({"case": desc, "type": None, "message": ""})
        except Exception as e:  # noqa: BLE001
            results.append({"case": desc, "type": type(e).__name__, "message": str(e)[:300]})

    for desc, name, make in mutations(op, op.sample()):
        attempt(desc, lambda name=name, make=make: {**op.sample(), name: make()})
    for desc, make_args in narrow_scalar_mutations(op, op.sample()):
        attempt(desc, make_args)
    return results


_RUNNER = r"""
import json, os, resource, sys
# Sizes that fit int64 but not memory must raise, not take the machine (an address-space limit makes such
# an allocation fail at once, as it would on a machine without that much memory). Under AddressSanitizer
# (tools/sanitize.sh), whose shadow memory needs terabytes of address space, its max_allocation_size_mb does
# that instead.
if "libasan" not in os.environ.get("LD_PRELOAD", ""):
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
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
           (r["type"] not in ALLOWED or not any(n in r["message"] for n in _names(op)))]
    assert not bad, f"{op.full_name}: " + json.dumps(bad, indent=1)
