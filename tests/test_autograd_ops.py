"""Every derivative formula checked numerically, from the op database (torchlite.testing.op_db).

For every op with `derivatives:` in native_functions.yaml (including ops a user adds later), gradcheck and
gradgradcheck run in float64 at their default tolerances on random inputs that differ per argument (a
swapped formula fails): the op database's gradcheck samples (a broadcast and a non-contiguous sample for
pointwise ops, the op's sample with its layout kept for the others) and the in-place variant where there is
one. Inputs come from the op's `test: domain`. An op's `test: xfail` / `not_twice_differentiable` reasons
mark the checks (the audit shows them). Ops with a `jvp:` entry also get a forward-mode check. Random ops
(tags: [random]) have a zero gradient (and tangent) by definition, as in PyTorch: that is what their checks
assert.
"""
import numpy as np
import pytest

import torchlite as tl
from torchlite.autograd import gradcheck, gradgradcheck
from torchlite.testing._opinfo import check_random_gradient, check_random_tangent, op_db

DIFFERENTIABLE = [op for op in op_db if op.differentiable]
# Composites get their gradients from the ops they call: they are checked the same way, so a composite
# that bypasses autograd (a raw alias, a kernel call) fails here.
COMPOSITES = [op for op in op_db if op.kind == "composite" and not op.is_factory and not op.is_random]


def _floating_result(op):
    """Whether the op, on float64 inputs, gives a floating result (argwhere, nonzero... do not)."""
    try:
        fn, inputs = op.as_function(op.gradcheck_samples()[0][1])
        if not inputs:
            return False
        out = fn(*inputs)
    except Exception:  # noqa: BLE001  (the op's own tests cover its errors)
        return True  # keep it: test_gradcheck shows the error
    outs = out if isinstance(out, tuple) else (out,)
    return any(isinstance(o, tl.Tensor) and o.dtype.is_floating_point for o in outs)


CHECKED = DIFFERENTIABLE + [op for op in COMPOSITES if _floating_result(op)]
CASES = []
for _op in CHECKED:
    _labels = [label for label, _ in _op.gradcheck_samples()]
    for _label in _labels:
        CASES.append(pytest.param(_op, _label, "function", id=f"{_op.full_name}-{_label}"))
    if "inplace" in _op.variants and not _op.is_random:
        CASES.append(pytest.param(_op, _labels[0], "inplace", id=f"{_op.full_name}-inplace"))


def _marks(op):
    if op.xfail:
        pytest.xfail(op.xfail)


@pytest.mark.parametrize("op,label,kind", CASES)
def test_gradcheck(op, label, kind):
    _marks(op)
    fn, inputs = op.as_function(op.gradcheck_sample(label), kind)
    if not inputs:
        pytest.fail(f"{op.full_name}: its sample has no floating input to differentiate")
    if op.is_random:
        check_random_gradient(op, fn, inputs)
        return
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize("op,label,kind", [c for c in CASES if not c.values[0].is_random])
def test_gradgradcheck(op, label, kind):
    _marks(op)
    if op.not_twice_differentiable:
        pytest.skip(f"not twice differentiable: {op.not_twice_differentiable}")
    fn, inputs = op.as_function(op.gradcheck_sample(label), kind)
    assert gradgradcheck(fn, inputs)


# Every case of an op with a `jvp:`, in-place variants included.
FORWARD_CASES = [c for c in CASES if c.values[0].jvp]


@pytest.mark.parametrize("op,label,kind", FORWARD_CASES)
def test_forward_ad(op, label, kind):
    """Ops with a `jvp:` entry: forward-mode Jacobians (dual tensors) against finite differences; for random
    ops, whose derivative is zero by definition (finite differences of their draws mean nothing), a zero
    tangent of the output's shape."""
    _marks(op)
    fn, inputs = op.as_function(op.gradcheck_sample(label), kind)
    if op.is_random:
        check_random_tangent(op, fn, inputs)
        return
    assert gradcheck(fn, inputs, check_forward_ad=True, check_backward_ad=False)


def test_every_differentiable_op_is_checked():
    checked = {c.values[0].full_name for c in CASES}
    assert checked >= {op.full_name for op in DIFFERENTIABLE}


def test_composites_record_their_history():
    """A composite with a floating input that requires grad gives a result that requires grad (empty results,
    such as native_batch_norm's statistics outside training, carry nothing). Composites whose derivative is an
    expected failure (complex and polar, which refuse complex autograd) are left out."""
    for op in COMPOSITES:
        if op not in CHECKED or op.xfail:
            continue
        fn, inputs = op.as_function(op.gradcheck_samples()[0][1])
        out = fn(*inputs)
        outs = out if isinstance(out, tuple) else (out,)
        floating = [o for o in outs if isinstance(o, tl.Tensor) and o.dtype.is_floating_point and o.numel() > 0]
        assert floating and all(o.requires_grad for o in floating), op.full_name


def test_a_swapped_formula_fails():
    """The check can fail: mul with its two formulas swapped (grad * self for self, grad * other for other,
    done with hooks that turn each correct gradient into the other one) is caught, and the message names the
    input, the element and both values."""
    rng = np.random.default_rng(0)
    a = tl.tensor(rng.uniform(1, 2, size=(2, 3))).requires_grad_()
    b = tl.tensor(rng.uniform(-2, -1, size=(2, 3))).requires_grad_()

    def swapped_mul(a, b):
        a2, b2 = a * 1, b * 1
        a2.register_hook(lambda g: g / b.detach() * a.detach())
        b2.register_hook(lambda g: g / a.detach() * b.detach())
        return a2 * b2

    assert gradcheck(lambda a, b: a * b, (a, b))
    assert not gradcheck(swapped_mul, (a, b), raise_exception=False)
    with pytest.raises(tl.autograd.GradcheckError, match=r"input 0: at input element \(\d, \d\).*"
                                                                    r"analytical .* vs numerical"):
        gradcheck(swapped_mul, (a, b))


def test_audit_passes_and_its_report_is_current():
    """python -m codegen audit runs every check now: all pass, and docs/autograd_audit.md (linked from the
    README) is what it writes, up to the error figures."""
    import os
    import re

    from codegen.audit import describe, markdown, run_checks

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ops = describe(os.path.join(root, "native_functions.yaml"))
    run_checks(ops)
    failing = [op["name"] for op in ops if "fail" in (op["checks"]["gradcheck"], op["checks"]["gradgradcheck"],
                                                      op["checks"]["forward_ad"])]
    assert not failing, failing
    assert all(op["checks"]["gradcheck"] == "pass" or (op["checks"]["gradcheck"] == "xfail" and op["test"]["xfail"])
               for op in ops)

    def strip(text):
        return re.sub(r"\(max error [^)]*\)", "", text)

    with open(os.path.join(root, "docs", "autograd_audit.md")) as f:
        committed = f.read()
    assert strip(committed) == strip(markdown(ops)), "docs/autograd_audit.md is stale: run python -m codegen audit"


def test_audit_fails_when_its_checks_cannot_run(monkeypatch, capsys):
    """`python -m codegen audit` exits non-zero, saying why, when it cannot run its checks (here: the op
    database cannot be imported), instead of reporting zero passes as success."""
    import os
    import sys

    from codegen.audit import main

    monkeypatch.setitem(sys.modules, "torchlite.testing._opinfo", None)  # makes importing the op database fail
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    assert main(os.path.join(root, "native_functions.yaml"), None, None, run=True) == 1
    err = capsys.readouterr().err
    assert "audit: error: checks not run: ModuleNotFoundError" in err, err
