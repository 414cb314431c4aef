"""The op database: one OpInfo per schema entry, with everything a test needs to run the op.

Each OpInfo joins two sources:
- the op's facts, generated from native_functions.yaml into torchlite._op_facts (its arguments, variants,
  dtypes, promotion, implementation kind, derivatives and `test:` key: see codegen/facts.py), and
- its samples and references, from the tables of torchlite/testing/_samples/ (one module per op family).

The op tests, the gradient checks, the CUDA and on-host runs and `python -m codegen audit` all read this one
registry, so a new op needs one entry there: a pointwise op its NumPy reference, another op a sample (and a
reference where NumPy can compute it).
"""
from __future__ import annotations

import functools
import inspect
from collections import namedtuple

import numpy as np

import torchlite as tl

from .. import _op_facts
from . import _helpers as H

Promotion = namedtuple("Promotion", ["kind", "args"])

# Layouts of pointwise samples: shapes of (self, the other tensor arguments). "noncontiguous" builds (3, 2)
# and transposes it.
LAYOUTS = {
    "contiguous": ((2, 3), (2, 3)),
    "noncontiguous": ((2, 3), (2, 3)),
    "broadcast_other": ((2, 3), (3,)),
    "broadcast_both": ((2, 1), (1, 3)),
    "zero_dim": ((), ()),
    "zero_dim_other": ((2, 3), ()),
    "empty": ((0, 3), (3,)),
    "number_int": ((2, 3), None),
    "number_float": ((2, 3), None),
    "number_bool": ((2, 3), None),
}
UNARY_LAYOUTS = ("contiguous", "noncontiguous", "zero_dim", "empty")
# Python numbers standing in for the non-self Tensor arguments.
NUMBER_SAMPLES = {"number_int": 3, "number_float": -1.5, "number_bool": True}


class MissingSample(LookupError):
    """An op of the schema has no sample or reference in the registry yet: the message says where to add it."""


class Arg:
    """One schema argument: name, type (as written, without alias), base type and flags, default (as
    written), keyword-only, and whether a Python number may stand in for it (a Tensor argument)."""
    __slots__ = ("name", "type", "base", "is_list", "optional", "elem_optional", "default", "kwonly", "number_ok")

    def __init__(self, d):
        self.name, self.type, self.base = d["name"], d["type"], d["base"]
        self.is_list, self.optional, self.elem_optional = d["list"], d["optional"], d["elem_optional"]
        self.default, self.kwonly, self.number_ok = d["default"], d["kwonly"], d["number_ok"]

    @property
    def is_tensor(self) -> bool:
        return self.base == "Tensor" and not self.is_list

    def __repr__(self):
        return f"Arg({self.type} {self.name})"


class OpInfo:
    """One schema entry (an overload) with its samples, reference and tolerances.

    Facts (from the schema): name, full_name, schema, line, arguments, returns, is_view, variants, kind
    (pointwise, dispatch, any, composite), meta, kernels ({cpu, cuda} names of a dispatch op), dtypes,
    promotion, python_module, tags, differentiable, nondiff, jvp, domain, xfail, not_twice_differentiable.
    From the registry: reference (a NumPy function) and tolerances (per result dtype)."""

    def __init__(self, facts, sample=None, reference=None, gradcheck_sample=None, tolerances=None, derived=None,
                 nondiff_outputs=(), gradcheck_outputs=None):
        self.name, self.full_name, self.schema, self.line = (facts["name"], facts["full_name"], facts["schema"],
                                                             facts["line"])
        self.arguments = tuple(Arg(a) for a in facts["arguments"])
        self.returns = tuple((r["name"], r["type"]) for r in facts["returns"])
        self.is_view, self.kind, self.meta, self.kernels = (facts["is_view"], facts["kind"], facts["meta"],
                                                            facts["kernels"])
        self.variants, self.dtypes, self.tags = tuple(facts["variants"]), tuple(facts["dtypes"]), tuple(facts["tags"])
        p = facts["promotion"]
        self.promotion = None if p is None else Promotion(p["kind"], tuple(p["args"]))
        self.python_module = facts["python_module"]
        self.differentiable, self.nondiff, self.jvp = facts["differentiable"], tuple(facts["nondiff"]), facts["jvp"]
        # a composite's are declared in its family's NONDIFF_OUTPUTS (a composite has no `derivatives:`)
        self.nondiff_outputs = tuple(facts["nondiff_outputs"]) + tuple(nondiff_outputs)
        test = facts["test"]
        self.domain = tuple(test["domain"]) if test["domain"] else None
        self.xfail, self.not_twice_differentiable = test["xfail"], test["not_twice_differentiable"]
        self._sample, self.reference, self._gradcheck_sample = sample, reference, gradcheck_sample
        self._own_tolerances = dict(tolerances or {})
        self._derived = derived
        self._gradcheck_outputs = gradcheck_outputs

    def __repr__(self):
        return f"OpInfo({self.full_name})"

    @property
    def tolerances(self):
        """(rtol, atol) per result dtype against a float64 reference: the defaults, or the family's."""
        return dict(H.TOLERANCES, **self._own_tolerances)

    # ------------------------------------------------------------------ schema
    def arg(self, name):
        return next((a for a in self.arguments if a.name == name), None)

    @property
    def tensor_args(self):
        return [a for a in self.arguments if a.is_tensor]

    @property
    def is_random(self) -> bool:
        return "random" in self.tags

    @property
    def is_reparameterized(self) -> bool:
        """A random op whose draws are differentiable in its parameters (_standard_gamma)."""
        return "reparameterized" in self.tags

    @property
    def is_factory(self) -> bool:
        """Ops whose tensor argument only gives a shape or dtype (zeros_like, new_ones, rand_like...)."""
        d = self.arg("device")
        return d is not None and d.kwonly

    # ------------------------------------------------------------------ calling
    @property
    def function(self):
        """The function the schema binds: torchlite.<name> for a top-level op, else the generated binding of
        its python_module (torchlite._C._nn.<name>: torchlite.nn.functional wraps some of them in Python,
        as PyTorch's torch.nn.functional wraps torch._C._nn, adding `inplace=` and dropping `out=`)."""
        if self.python_module:
            return getattr(getattr(tl._C, "_" + self.python_module.split(".")[0]), self.name)
        return getattr(tl, self.name)

    @property
    def namespace(self):
        """The public module the op's function lives in (torchlite, torchlite.nn.functional, ...)."""
        if self.python_module:
            return functools.reduce(getattr, self.python_module.split("."), tl)
        return tl

    @property
    def primary_kind(self) -> str:
        """The variant tests call first: the function, else the method, else the in-place method."""
        for kind in ("function", "method", "inplace"):
            if kind in self.variants:
                return kind
        raise AssertionError(self.full_name)

    def split_args(self, kind, args):
        """args by name as (positional, keyword) in the schema's order: after a missing argument, or from the
        keyword-only ones on, by keyword; a method's self is the object."""
        pos, kw, by_keyword = [], {}, False
        for a in self.arguments:
            if kind in ("method", "inplace") and a.name == "self":
                continue
            if a.name not in args:
                by_keyword = True
                continue
            if a.kwonly or by_keyword:
                kw[a.name] = args[a.name]
            else:
                pos.append(args[a.name])
        return pos, kw

    def call(self, kind, args, out=None):
        """Calls a variant (function | method | inplace) with args by name, as the schema orders them."""
        pos, kw = self.split_args(kind, args)
        if out is not None:
            kw["out"] = out
        if kind == "function":
            fn = self.function
        elif kind == "method":
            fn = getattr(args["self"], self.name)
        else:
            fn = getattr(args["self"], self.name + "_")
        return fn(*pos, **kw)

    def run_primary(self, args):
        """Calls the primary variant; an in-place one on a copy of self."""
        kind = self.primary_kind
        if kind == "inplace":
            args = dict(args, self=H.clone(args["self"]))
        return self.call(kind, args)

    def reseed(self):
        """Random ops draw from the default generator: re-seeded before each call, they draw the same numbers."""
        if self.is_random:
            tl.manual_seed(1234)

    # ------------------------------------------------------------------ pointwise samples
    @property
    def layouts(self):
        """The layouts a pointwise op is sampled on (numbers where its Tensor arguments take them)."""
        if len(self.tensor_args) == 1:
            return UNARY_LAYOUTS
        numbers_ok = all(a.number_ok for a in self.tensor_args[1:])
        out = []
        for name in LAYOUTS:
            if name == "broadcast_both" and self.meta == "same_as_self":
                continue  # self is the output: it must have the broadcast shape
            if name in NUMBER_SAMPLES and not numbers_ok:
                continue
            out.append(name)
        return tuple(out)

    def expected_dtype(self, args):
        """The result dtype PyTorch's promotion gives for these arguments."""
        kind = self.promotion.kind
        if kind == "self_dtype":
            return H.dtype_name(args["self"].dtype)
        common = H.result_type([args[n] for n in self.promotion.args])
        if kind == "default":
            return common
        if kind == "int_to_float":
            return common if common in H.FLOATING else "float32"
        if kind == "int_to_long":
            return common if common in H.FLOATING else "int64"
        if kind == "always_bool":
            return "bool"
        raise AssertionError(f"torchlite.testing: teach expected_dtype promotion '{kind}' ({self.full_name})")

    def pointwise_args(self, dtype, layout, rng):
        """(arguments by name, result dtype) for one pointwise sample; Scalars follow the input's dtype
        category when they take part in promotion, else the result's."""
        from ._samples import pointwise as P

        shapes = LAYOUTS[layout]
        args = {}
        for i, a in enumerate(self.tensor_args):
            if i > 0 and layout in NUMBER_SAMPLES:
                args[a.name] = NUMBER_SAMPLES[layout]
                continue
            shape = shapes[0] if i == 0 else shapes[1]
            d = "bool" if a.name in P.BOOL_TENSOR_ARGS else dtype
            nonzero = i > 0 and self.full_name in P.INTEGER_DIVISION
            args[a.name] = H.make(shape, d, rng, noncontiguous=layout == "noncontiguous", domain=self.domain,
                                  nonzero=nonzero)
        for a in self.arguments:
            if a.is_tensor:
                continue
            if a.name not in P.SCALAR_SAMPLES:
                if a.default is None:
                    raise MissingSample(f"add a sample value for argument '{a.name}' of {self.full_name} to "
                                        "SCALAR_SAMPLES in torchlite/testing/_samples/pointwise.py")
                continue
            if a.name in self.promotion.args:
                args[a.name] = P.SCALAR_SAMPLES[a.name][H.dtype_category(dtype)]
        result = self.expected_dtype(args)
        for a in self.arguments:
            if not a.is_tensor and a.name in P.SCALAR_SAMPLES and a.name not in args:
                args[a.name] = P.SCALAR_SAMPLES[a.name][H.dtype_category(result)]
        return args, result

    def refused(self, args) -> bool:
        """Whether PyTorch refuses this sample although its result dtype is supported (sub of bools)."""
        from ._samples import pointwise as P

        pred = P.REFUSED_SAMPLES.get(self.full_name)
        return pred is not None and pred(args)

    # ------------------------------------------------------------------ samples and references
    @property
    def has_sample(self) -> bool:
        return self.kind == "pointwise" or self._sample is not None

    def sample(self):
        """One sample call's arguments by name (new tensors on each call); for a pointwise op, float32 (or
        its first dtype) in the broadcast layout."""
        if self.kind == "pointwise":
            dtype = "float32" if "float32" in self.dtypes else self.dtypes[0]
            args, _ = self.pointwise_args(dtype, "broadcast_other", H.rng_for("variants", self.full_name))
            return args
        if self._sample is None:
            raise MissingSample(f"add a sample for {self.full_name} to a module of torchlite/testing/_samples/")
        return self._sample()

    def reference_result(self, args, result_dtype=None):
        """The reference's result for these arguments, as float64 NumPy (a tuple for several returns).
        A pointwise reference gets the arguments in schema order (by name, or positionally for ufuncs) and,
        if it asks, the result dtype's name; a sample's reference gets them by name."""
        if self.reference is None:
            raise MissingSample(f"add a NumPy reference for {self.full_name} to torchlite/testing/_samples/")
        if self.kind != "pointwise":
            return self.reference(**{k: H.f64_arg(v) for k, v in args.items()})
        kwargs = {a.name: H.to_f64(args[a.name]) for a in self.arguments if a.name in args}
        with np.errstate(all="ignore"):
            if isinstance(self.reference, (np.ufunc, np.vectorize)):
                return np.asarray(self.reference(*kwargs.values()), dtype=np.float64)
            if "result_dtype" in inspect.signature(self.reference).parameters:
                kwargs["result_dtype"] = result_dtype
            return np.asarray(self.reference(**kwargs), dtype=np.float64)

    def kernel_samples(self):
        """[(function, args, kwargs)]: calls that take each path of the op's hand-written kernels (long rows,
        NaN, ties, strides...); built on first use."""
        return _kernel_tables().get(self.full_name, [])

    def sample_tolerance(self, dtype):
        """(rtol, atol) of a sampled (non-pointwise) op's result of `dtype` against its reference: None, exact,
        unless its family gives tolerances (TOLERANCES)."""
        return self._own_tolerances.get(dtype)

    # ------------------------------------------------------------------ gradient checks
    @property
    def diff_names(self):
        """Arguments that get gradients: Tensor and Tensor[] arguments not listed as nondiff."""
        return [a.name for a in self.arguments if a.base == "Tensor" and a.name not in self.nondiff
                and not a.elem_optional]

    def gradcheck_samples(self):
        """[(label, args by name)] with float64 differentiable inputs: for a pointwise op a broadcast and a
        non-contiguous sample (in its `test: domain`), for the others the op's sample with new float64
        values in the same layout (random ops keep their meaningful values: probabilities, deviations)."""
        if self.kind == "pointwise":
            out = []
            for layout in [lay for lay in ("broadcast_other", "noncontiguous") if lay in self.layouts]:
                args, _ = self.pointwise_args("float64", layout, H.rng_for("autograd", self.full_name, layout))
                out.append((layout, args))
            return out
        rng = H.rng_for("autograd", self.full_name)
        args = dict(self.sample())
        if self._gradcheck_sample is not None:
            args.update(self._gradcheck_sample())
        if isinstance(args.get("dtype"), tl.dtype) and args["dtype"].is_floating_point:
            args["dtype"] = tl.float64
        for name in self.diff_names:
            v = args.get(name)
            if self.is_random:
                if isinstance(v, tl.Tensor):
                    args[name] = v.double()
                continue
            # an integer input of a differentiable op (max of int64) becomes float64; a composite's integer
            # tensors are indices or counts
            if _is_float_tensor(v) or (isinstance(v, tl.Tensor) and self.differentiable):
                args[name] = _fresh_f64(v, rng, self.domain)
            elif isinstance(v, (list, tuple)) and v and all(_is_float_tensor(x) for x in v):
                args[name] = [_fresh_f64(x, rng, self.domain) for x in v]
        return [("sample", args)]

    def gradcheck_sample(self, label):
        return dict(self.gradcheck_samples())[label]

    def as_function(self, args, kind="function"):
        """(function of the differentiable inputs as separate tensors, those inputs with requires_grad), as
        gradcheck takes them; kind "inplace" runs the in-place variant on a copy."""
        names = [n for n in self.diff_names if n in args and (_is_float_tensor(args[n]) or isinstance(args[n], list))]
        flat = []
        for n in names:
            flat.extend(args[n] if isinstance(args[n], list) else [args[n]])
        inputs = tuple(x.detach().requires_grad_() for x in flat)

        def fn(*xs):
            a, it = dict(args), iter(xs)
            for n in names:
                a[n] = [next(it) for _ in args[n]] if isinstance(args[n], list) else next(it)
            if self._derived is not None:  # nondiff inputs that are functions of the others move with them
                a.update(self._derived(a))
            if self.is_random:
                tl.manual_seed(2024)  # the same draws on every evaluation
            call_kind = kind if kind == "inplace" else self.primary_kind
            if call_kind == "inplace":
                a["self"] = a["self"].clone()  # a non-leaf, so it may be written in place
            out = self.call(call_kind, a)
            if self._gradcheck_outputs is not None:  # outputs defined up to a gauge: a function of them that is not
                out = self._gradcheck_outputs(out)
            if not isinstance(out, tuple):
                return out
            # returns that carry no gradient (saved statistics) are left out of the checked function
            kept = tuple(o for (name, _), o in zip(self.returns, out) if name not in self.nondiff_outputs)
            return kept[0] if len(kept) == 1 else kept

        return fn, inputs


def _is_float_tensor(v):
    """A tensor that can require grad: floating or complex."""
    return isinstance(v, tl.Tensor) and (v.dtype.is_floating_point or v.dtype.is_complex)


def _fresh_f64(t, rng, domain):
    """A float64 (complex128 for a complex t) tensor shaped like t with new random values in domain, keeping a transposed/sliced layout
    (an expanded one becomes contiguous: gradcheck needs every element to be its own memory)."""
    lo, hi = domain or (-2.0, 2.0)
    values = rng.uniform(lo, hi, size=tuple(t.shape))
    dtype = tl.float64
    if t.dtype.is_complex:  # complex128, with random imaginary parts too
        values, dtype = values + 1j * rng.uniform(lo, hi, size=tuple(t.shape)), tl.complex128
    if t.is_contiguous() or 0 in t.stride() or t.dim() == 0:
        return tl.tensor(values, dtype=dtype)
    out = tl.empty_strided(tuple(t.shape), t.stride(), dtype=dtype)
    np.asarray(out)[...] = values
    return out


def check_random_gradient(op, fn, inputs):
    """A random op's gradient: zero by definition (as PyTorch), of each input's shape, on its device; for a
    `reparameterized` op (its draws are differentiable in its parameters), finite instead of zero."""
    outs = fn(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    grads = tl.autograd.grad([o for o in outs if o.requires_grad], inputs,
                             [tl.ones_like(o) for o in outs if o.requires_grad], allow_unused=True)
    for x, g in zip(inputs, grads):
        assert g is not None and tuple(g.shape) == tuple(x.shape) and g.device == x.device, (
            f"{op.full_name}: a gradient of each input's shape and device")
        if op.is_reparameterized:
            assert bool(g.isfinite().all()), f"{op.full_name}: a reparameterized draw's gradient is finite"
        else:
            assert not g.any(), f"{op.full_name}: a random op's gradient is zero by definition"


def check_random_tangent(op, fn, inputs):
    """A random op's forward-mode tangent: zero by definition, of the output's shape."""
    from torchlite.autograd import forward_ad

    rng = np.random.default_rng(0)
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x.detach(), tl.tensor(rng.uniform(1.0, 2.0, size=tuple(x.shape))))
                 for x in inputs]
        outs = fn(*duals)
        for out in outs if isinstance(outs, tuple) else (outs,):
            tangent = forward_ad.unpack_dual(out).tangent
            assert tangent is not None and tuple(tangent.shape) == tuple(out.shape), (
                f"{op.full_name}: a tangent of the output's shape")
            if op.is_reparameterized:
                assert bool(tangent.isfinite().all()), f"{op.full_name}: a reparameterized draw's tangent is finite"
            else:
                assert not tangent.any(), f"{op.full_name}: a random op's tangent is zero by definition"


# ------------------------------------------------------------------ the database
def _build(families=None, facts=None):
    """The OpInfos of `facts` (default: the generated ones) with the tables of `families` (default: every
    module of _samples); a sample given twice, or for an op the schema does not have, is an error."""
    from . import _samples

    families = _samples.FAMILIES if families is None else families
    facts = _op_facts.OPS if facts is None else facts
    samples, refs, grad_samples, tolerances, derived, nondiff_outputs, grad_outputs = {}, {}, {}, {}, {}, {}, {}
    pointwise_refs, facts_by_name = set(), {f["full_name"]: f for f in facts}
    for fam in families:
        for name, fn in (fam.samples() if hasattr(fam, "samples") else {}).items():
            if name in samples:
                raise ValueError(f"{fam.__name__}: a sample for {name} is given twice")
            samples[name] = fn
        for name, (fn, ref) in (fam.numpy_cases() if hasattr(fam, "numpy_cases") else {}).items():
            if name in samples:
                raise ValueError(f"{fam.__name__}: a sample for {name} is given twice")
            samples[name], refs[name] = fn, ref
        for name, ref in getattr(fam, "POINTWISE_REFS", {}).items():
            if name in refs:
                raise ValueError(f"{fam.__name__}: a reference for {name} is given twice")
            refs[name] = ref
            pointwise_refs.add(name)
        grad_samples.update(getattr(fam, "GRADCHECK_SAMPLES", {}))
        tolerances.update(getattr(fam, "TOLERANCES", {}))
        derived.update(getattr(fam, "DERIVED_ARGS", {}))
        nondiff_outputs.update(getattr(fam, "NONDIFF_OUTPUTS", {}))
        grad_outputs.update(getattr(fam, "GRADCHECK_OUTPUTS", {}))
    not_pointwise = sorted(n for n in pointwise_refs if n in facts_by_name and facts_by_name[n]["kind"] != "pointwise")
    if not_pointwise:
        raise ValueError(f"torchlite.testing: POINTWISE_REFS for ops that are not pointwise: {not_pointwise}")
    db = []
    for f in facts:
        n = f["full_name"]
        db.append(OpInfo(f, sample=samples.pop(n, None), reference=refs.pop(n, None),
                         gradcheck_sample=grad_samples.pop(n, None),
                         tolerances=tolerances.pop(n, None), derived=derived.pop(n, None),
                         nondiff_outputs=nondiff_outputs.pop(n, ()), gradcheck_outputs=grad_outputs.pop(n, None)))
    stray = (set(samples) | set(refs) | set(grad_samples) | set(tolerances) | set(derived) | set(nondiff_outputs)
             | set(grad_outputs))
    if stray:
        raise ValueError(f"torchlite.testing: samples for ops the schema does not have: {sorted(stray)}")
    return db


op_db = _build()
op_by_name = {op.full_name: op for op in op_db}


@functools.lru_cache(maxsize=None)
def _kernel_tables():
    from . import _samples

    calls = {}
    for fam in _samples.FAMILIES:
        calls.update(fam.kernel_samples() if hasattr(fam, "kernel_samples") else {})
    stray = set(calls) - set(op_by_name)
    if stray:
        raise ValueError(f"torchlite.testing: kernel samples for ops the schema does not have: {sorted(stray)}")
    return calls


def error_cases():
    """Bad-input cases of every family: (code, exception type name, parts of the message), code evaluated
    with tl = torchlite, a = ones(2, 3), i = tensor([1, 2, 3]), b = tensor([True, False])."""
    from . import _samples

    return [case for fam in _samples.FAMILIES for case in getattr(fam, "ERRORS", [])]


def string_args():
    """op name -> {argument: message part}: arguments PyTorch takes a string for besides numbers
    (norm's p='fro'), so a stray string gives a RuntimeError rather than a TypeError."""
    from . import _samples

    out = {}
    for fam in _samples.FAMILIES:
        out.update(getattr(fam, "STRING_ARGS", {}))
    return out
