"""Generated from the schema: every derivative formula checked numerically.

For every op with `derivatives:` in native_functions.yaml (including ops a user
adds later), gradcheck and gradgradcheck run in float64 at their default
tolerances on random inputs that differ per argument (a swapped formula fails):
a broadcast sample and a non-contiguous one for pointwise ops, the op's sample
from tests/test_ops.py (with its layout kept) for the others, and the in-place
variant where there is one. Inputs come from the op's `test: domain`. An op's
`test: xfail` / `not_twice_differentiable` reasons mark the checks (the audit
shows them). Ops with a `jvp:` entry also get a forward-mode check. Random ops (tags: [random]) have a zero gradient
(and tangent) by definition, as in PyTorch: that is what their checks assert.
"""
import numpy as np
import pytest

import torchlite as tl
from torchlite.autograd import forward_ad, gradcheck, gradgradcheck

import test_ops as T

DIFFERENTIABLE = [nf for nf in T.FUNCTIONS if nf.differentiable]


def _is_factory(nf):
    """Ops whose tensor argument only gives a shape or dtype (zeros_like, new_ones, rand_like...)."""
    d = nf.schema.arg("device")
    return d is not None and d.kwonly


# Composites get their gradients from the ops they call: they are checked the same way, so a composite
# that bypasses autograd (a raw alias, a kernel call) fails here. Not checked, with the reason:
COMPOSITE_NOT_CHECKED = {
    "detach": "not differentiable by definition",
}
COMPOSITES = [nf for nf in T.FUNCTIONS if nf.kind == "composite" and not _is_factory(nf)
              and "random" not in nf.tags and nf.schema.full_name not in COMPOSITE_NOT_CHECKED]


def diff_names(nf):
    """Arguments that get gradients: Tensor and Tensor[] arguments not listed as nondiff."""
    return [a.name for a in nf.schema.arguments if a.type.base == "Tensor" and a.name not in nf.nondiff
            and not a.type.elem_optional]


def _fresh_f64(t, rng, domain):
    """A float64 tensor shaped like t with new random values in domain, keeping a transposed/sliced layout
    (an expanded one becomes contiguous: gradcheck needs every element to be its own memory)."""
    lo, hi = domain or (-2.0, 2.0)
    values = rng.uniform(lo, hi, size=tuple(t.shape))
    if t.is_contiguous() or 0 in t.stride() or t.dim() == 0:
        return tl.tensor(values, dtype=tl.float64)
    out = tl.empty_strided(tuple(t.shape), t.stride(), dtype=tl.float64)
    np.asarray(out)[...] = values
    return out


def _is_float_tensor(v):
    return isinstance(v, tl.Tensor) and v.dtype.is_floating_point


# Samples that differ from tests/test_ops.py's for gradcheck, with the reason.
SAMPLES = {
    # an index smaller than src leaves src entries unused: their gradient would have index's shape, which
    # PyTorch refuses too ("returned an invalid gradient"); a full index gives every src entry a place
    "scatter.src": lambda: {"index": tl.tensor([[1, 0, 1, 0], [0, 1, 0, 1]]),
                            "self": tl.zeros(2, 4), "src": tl.zeros(2, 4)},
}


def samples(nf):
    """[(label, args by name)] with float64 differentiable inputs."""
    rng = T.rng_for("autograd", nf.schema.full_name)
    if nf.kind == "pointwise":
        layouts = [lay for lay in ("broadcast_other", "noncontiguous") if lay in T.layouts_for(nf)]
        out = []
        for layout in layouts:
            args, _ = T.pointwise_args(nf, "float64", layout, T.rng_for("autograd", nf.schema.full_name, layout))
            out.append((layout, args))
        return out
    args = dict(T.variant_sample(nf))
    if nf.schema.full_name in SAMPLES:
        args.update(SAMPLES[nf.schema.full_name]())
    if isinstance(args.get("dtype"), tl.dtype) and args["dtype"].is_floating_point:
        args["dtype"] = tl.float64
    names = diff_names(nf)
    for name in names:
        v = args.get(name)
        if "random" in nf.tags:
            # the sample's values are meaningful (probabilities, standard deviations): keep them
            if isinstance(v, tl.Tensor):
                args[name] = v.double()
            continue
        # an integer input of a differentiable op (max of int64) becomes float64; a composite's integer
        # tensors are indices or counts
        if _is_float_tensor(v) or (isinstance(v, tl.Tensor) and nf.differentiable):
            args[name] = _fresh_f64(v, rng, nf.test.domain)
        elif isinstance(v, (list, tuple)) and v and all(_is_float_tensor(x) for x in v):
            args[name] = [_fresh_f64(x, rng, nf.test.domain) for x in v]
    return [("sample", args)]


def as_function(nf, args, kind):
    """(function of the differentiable inputs as separate tensors, those inputs with requires_grad)."""
    names = [n for n in diff_names(nf) if n in args and (_is_float_tensor(args[n]) or isinstance(args[n], list))]
    flat = []
    for n in names:
        flat.extend(args[n] if isinstance(args[n], list) else [args[n]])
    inputs = tuple(x.detach().requires_grad_() for x in flat)

    def fn(*xs):
        a, it = dict(args), iter(xs)
        for n in names:
            a[n] = [next(it) for _ in args[n]] if isinstance(args[n], list) else next(it)
        if "random" in nf.tags:
            tl.manual_seed(2024)  # the same draws on every evaluation
        call_kind = kind if kind == "inplace" else T.primary_kind(nf)
        if call_kind == "inplace":
            a["self"] = a["self"].clone()  # a non-leaf, so it may be written in place
        out = T.call(nf, call_kind, a)
        return tuple(out) if isinstance(out, tuple) else out

    return fn, inputs


def _floating_result(nf):
    """Whether the op, on float64 inputs, gives a floating result (argwhere, nonzero... do not)."""
    try:
        fn, inputs = as_function(nf, samples(nf)[0][1], "function")
        if not inputs:
            return False
        out = fn(*inputs)
    except Exception:  # noqa: BLE001  (the op's own tests cover its errors)
        return True  # keep it: test_gradcheck shows the error
    outs = out if isinstance(out, tuple) else (out,)
    return any(isinstance(o, tl.Tensor) and o.dtype.is_floating_point for o in outs)


CHECKED = DIFFERENTIABLE + [nf for nf in COMPOSITES if _floating_result(nf)]
CASES = []
for _nf in CHECKED:
    for _label, _ in samples(_nf):
        CASES.append(pytest.param(_nf, _label, "function", id=f"{_nf.schema.full_name}-{_label}"))
    if "inplace" in _nf.variants and "random" not in _nf.tags:
        CASES.append(pytest.param(_nf, samples(_nf)[0][0], "inplace", id=f"{_nf.schema.full_name}-inplace"))


def _sample(nf, label):
    return dict(samples(nf))[label]


def _marks(nf):
    if nf.test.xfail:
        pytest.xfail(nf.test.xfail)


@pytest.mark.parametrize("nf,label,kind", CASES)
def test_gradcheck(nf, label, kind):
    _marks(nf)
    fn, inputs = as_function(nf, _sample(nf, label), kind)
    if not inputs:
        pytest.fail(f"{nf.schema.full_name}: its sample has no floating input to differentiate")
    if "random" in nf.tags:
        check_zero_gradient(nf, fn, inputs)
        return
    assert gradcheck(fn, inputs)


def check_zero_gradient(nf, fn, inputs):
    """A random op's gradient: zero by definition, of each input's shape, on its device."""
    outs = fn(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    grads = tl.autograd.grad([o for o in outs if o.requires_grad], inputs,
                             [tl.ones_like(o) for o in outs if o.requires_grad], allow_unused=True)
    for x, g in zip(inputs, grads):
        assert g is not None and tuple(g.shape) == tuple(x.shape) and g.device == x.device and not g.any(), (
            f"{nf.schema.full_name}: a random op's gradient is zero by definition")


@pytest.mark.parametrize("nf,label,kind", [c for c in CASES if "random" not in c.values[0].tags])
def test_gradgradcheck(nf, label, kind):
    _marks(nf)
    if nf.test.not_twice_differentiable:
        pytest.skip(f"not twice differentiable: {nf.test.not_twice_differentiable}")
    fn, inputs = as_function(nf, _sample(nf, label), kind)
    assert gradgradcheck(fn, inputs)


# Every case of an op with a `jvp:`, in-place variants included.
FORWARD_CASES = [c for c in CASES if c.values[0].derivatives and c.values[0].derivatives.jvp]


@pytest.mark.parametrize("nf,label,kind", FORWARD_CASES)
def test_forward_ad(nf, label, kind):
    """Ops with a `jvp:` entry: forward-mode Jacobians (dual tensors) against finite differences; for random
    ops, whose derivative is zero by definition (finite differences of their draws mean nothing), a zero
    tangent of the output's shape."""
    _marks(nf)
    fn, inputs = as_function(nf, _sample(nf, label), kind)
    if "random" in nf.tags:
        rng = np.random.default_rng(0)
        with forward_ad.dual_level():
            duals = [forward_ad.make_dual(x.detach(), tl.tensor(rng.uniform(1.0, 2.0, size=tuple(x.shape))))
                     for x in inputs]
            outs = fn(*duals)
            for out in outs if isinstance(outs, tuple) else (outs,):
                tangent = forward_ad.unpack_dual(out).tangent
                assert tangent is not None and tuple(tangent.shape) == tuple(out.shape) and not tangent.any(), (
                    f"{nf.schema.full_name}: a random op's tangent is zero by definition")
        return
    assert gradcheck(fn, inputs, check_forward_ad=True, check_backward_ad=False)


def test_every_differentiable_op_is_checked():
    checked = {c.values[0].schema.full_name for c in CASES}
    assert checked >= {nf.schema.full_name for nf in DIFFERENTIABLE}


def test_composites_record_their_history():
    """A composite with a floating input that requires grad gives a result that requires grad."""
    for nf in COMPOSITES:
        if nf not in CHECKED:
            continue
        fn, inputs = as_function(nf, samples(nf)[0][1], "function")
        out = fn(*inputs)
        outs = out if isinstance(out, tuple) else (out,)
        floating = [o for o in outs if isinstance(o, tl.Tensor) and o.dtype.is_floating_point]
        assert floating and all(o.requires_grad for o in floating), nf.schema.full_name


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
    assert all(op["checks"]["gradcheck"] == "pass" for op in ops)

    def strip(text):
        return re.sub(r"\(max error [^)]*\)", "", text)

    with open(os.path.join(root, "docs", "autograd_audit.md")) as f:
        committed = f.read()
    assert strip(committed) == strip(markdown(ops)), "docs/autograd_audit.md is stale: run python -m codegen audit"


def test_audit_fails_when_its_checks_cannot_run(monkeypatch, capsys):
    """`python -m codegen audit` exits non-zero, saying why, when it cannot run its checks (here: the sample
    module cannot be imported), instead of reporting zero passes as success."""
    import os
    import sys

    from codegen.audit import main

    monkeypatch.setitem(sys.modules, "test_autograd_ops", None)  # makes `import test_autograd_ops` fail
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    assert main(os.path.join(root, "native_functions.yaml"), None, None, run=True) == 1
    err = capsys.readouterr().err
    assert "audit: error: checks not run: ModuleNotFoundError" in err, err
