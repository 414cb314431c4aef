"""Model -> text: builds each template's context and writes generated/.

Output is byte-deterministic (sorted, no timestamps, no absolute paths) and a
file is rewritten only when its content changes, so the build recompiles only
what an edit touched. Compiled files name their op and schema, never YAML line
numbers; line numbers appear only in the .pyi stub.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import jinja2

from . import cpp
from . import expr as E
from .autograd import AutogradCtx, autograd_context, node_indices
from .facts import facts_module
from .load import BUILTIN_METAS, dtype_category, load, named_returns
from .model import AnyDevice, Kernels, NativeFunction, Pointwise
from .python_sig import (NUM_SHARDS, PyName, allows_number, arg_kind, pyi_default, pyi_type, python_names)

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(os.path.dirname(HERE), "templates")


def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)


# ------------------------------------------------------------------ op contexts

@dataclass
class PointwiseCase:
    dtype_enum: str
    cpp_type: str
    expr: str
    out_type: str  # the result's C++ type: cpp_type, bool (always_bool), or a complex one's real type
    ret: str  # the lambda's return type: op_t, bool, or real_t<op_t>


@dataclass
class PromotionCtx:
    body: list[str]  # the statements of kernels::<key>_compute_dtype
    result_is_bool: bool  # always_bool: the result is bool whatever the compute dtype
    # tags: [complex_to_real]: a complex computation's result is its real counterpart (abs: complex64 ->
    # float32); other dtypes keep the compute dtype.
    result_is_real: bool = False


@dataclass
class ImplCtx:
    """How the wrappers reach the implementation: the meta rule and the kernel table, or the `any`
    function (a composite needs nothing: composite::<key>)."""
    meta_expr: str = ""  # C++ expression giving the output's TensorMeta (or one per return)
    custom_meta: str | None = None  # a hand-written meta::<name> to declare
    kernel_type: str = ""
    cpu: str | None = None  # a CPU kernel to declare
    cuda: str | None = None
    # A hand-written CUDA kernel is written once for two backends (kernels/gpu/): the same function is
    # also compiled for the host as kernels::on_host::<name>, which tests run on CPU tensors.
    on_host: str | None = None
    cpu_slot: str | None = None  # what the CPU runs: the CPU kernel, or on_host::<cuda> (`cpu: on_host`)
    any_fn: str | None = None


@dataclass
class OutputsCtx:
    """The kernel's output targets: `out`, or one per return (out0, out1, ...) for ops with several."""
    names: list[str]
    params: str  # const Tensor& out0, const Tensor& out1
    multi: bool
    meta_type: str  # TensorMeta, or std::array<TensorMeta, N>
    ret: str  # the out= variant's C++ return type
    composite_args: str  # a composite out= variant's arguments: dtype and device taken from out when not given
    grad_args: str  # every tensor argument and target (out= refuses to run when one requires grad)
    # tags: [exact_out_dtype]: out= must have the result's dtype exactly (PyTorch refuses a cast there).
    exact: bool
    exact_with_dtype: bool  # reductions and scans: with dtype= given, out= must have exactly that dtype


@dataclass
class PointwiseKernelCtx:
    """The generated CPU and CUDA kernels of a `pointwise:` op."""
    cases: list[PointwiseCase]  # one per dtype
    used_tensors: list[str]  # the lambda's parameters, v_<name>
    used_scalars: list[tuple[str, str]]  # s_<name> and its conversion to op_t
    has_flags: list[str]  # h_<name>: whether an optional argument was given
    lambda_params: str
    has_complex: bool = False  # a complex dtype among the cases: the kernels include kernels/ComplexMath.h


@dataclass
class OpCtx:
    nf: NativeFunction
    key: str
    name: str
    overload: str
    schema: str
    schema_literal: str  # the schema as a C++ string literal (a str default is quoted: padding="valid")
    kind: str
    params_decl: str  # C++ parameters with their defaults (the header)
    params: str  # without defaults
    args: str  # the argument names, comma-separated
    ret: str
    has_inplace: bool
    has_out: bool
    is_view: bool
    view_base: str | None
    promo: PromotionCtx | None
    impl: ImplCtx
    outs: OutputsCtx
    pw: PointwiseKernelCtx | None
    checks: list[tuple[str, str]]
    scalar_checks: list[str]  # C++ statements: the checked_scalars' conversions
    overlap_inplace: list[str]  # C++ statements: the memory-overlap checks of a kernel's in-place target
    overlap_out: list[str]  # and of its out= targets
    siblings: list[str] = field(default_factory=list)
    # autograd: the backward node (differentiable ops), the inputs that decide whether to record.
    ag: AutogradCtx | None = None
    diff_args: str = ""
    all_tensor_args: str = ""
    args_original_self: str = ""  # the arguments with self replaced by original_self
    args_fw_self: str = ""  # the arguments with self replaced by fw_self (its value before an in-place op)
    # autocast: the per-device policies ("autocast::Policy::Lower, ..."), the Tensor arguments as pointers,
    # and the call's arguments with each Tensor one cast.
    autocast_policies: str = ""
    autocast_ptrs: str = ""
    autocast_args: str = ""
    # conjugated views (stage/Conj.h): whether the variants resolve them first (kernel ops not tagged
    # conj_aware), the Tensor arguments, the call's arguments with each Tensor one resolved, and the same with
    # self replaced by self_value (the in-place variant's resolved target)
    conj_fallback: bool = False
    conj_tensors: str = ""
    conj_args: str = ""
    conj_args_self_value: str = ""


def _promotion_body(nf: NativeFunction) -> list[str]:
    s = nf.schema
    lines = []
    dtype_arg = s.arg("dtype")
    if dtype_arg is not None and dtype_arg.type.base == "ScalarType":
        lines.append("if (dtype.has_value()) return *dtype;")
    p = nf.promotion.kind
    if p in ("self_dtype", "int_to_long"):
        lines.append("ScalarType r = self.scalar_type();")
    else:
        lines.append("ResultTypeState state;")
        for a in nf.promotion.args:
            lines.append(f"update_result_type(state, {a});")
        lines.append("ScalarType r = result_type(state);")
    if p == "int_to_float":
        lines.append("if (is_integral_type(r, /*include_bool=*/true)) r = default_dtype();")
    if p == "int_to_long":
        lines.append("if (is_integral_type(r, /*include_bool=*/true)) r = ScalarType::Int64;")
    lines.append("return r;")
    return lines


class _PointwisePrinter(E.Printer):
    """A `pointwise:` expression as the body of the kernel's lambda: tensor arguments are the lambda's
    parameters v_<name>, other arguments locals s_<name> (h_<name>: whether an optional one was given),
    numbers op_t(...) and functions scalar_math::f."""

    def __init__(self, nf: NativeFunction):
        self.tensors = {a.name for a in nf.schema.arguments if a.type.is_tensor}
        self.args = {a.name for a in nf.schema.arguments}
        self.used_tensors: set[str] = set()
        self.used_scalars: set[str] = set()

    def name(self, name: str) -> str:
        if name in self.tensors:
            self.used_tensors.add(name)
            return f"v_{name}"
        if name.startswith("has_") and name not in self.args:
            self.used_scalars.add(name[4:])
            return f"h_{name[4:]}"
        self.used_scalars.add(name)
        return f"s_{name}"

    def number(self, text: str) -> str:
        return f"op_t({text.rstrip('fF')})"

    def function(self, name: str) -> str:
        return f"scalar_math::{name}"


def _out_arg(name, dtype_arg, device_arg, out="out") -> str:
    """Composite out= variants take dtype and device from `out` (the first target) when not given."""
    if dtype_arg is not None and name == "dtype" and dtype_arg.type.base == "ScalarType":
        return f"dtype.has_value() ? dtype : std::optional<ScalarType>({out}.scalar_type())"
    if device_arg is not None and name == "device" and device_arg.type.base == "Device":
        return f"device.has_value() ? device : std::optional<Device>({out}.device())"
    return name


def _cpp_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _cpp_message(text: str) -> str:
    """A check's message as str(...) arguments: `{expr}` parts are C++ values appended to the text."""
    parts = re.split(r"\{([^{}]+)\}", text)
    return ", ".join(_cpp_string(p) if i % 2 == 0 else p for i, p in enumerate(parts) if p)


def _scalar_checks(nf: NativeFunction, has_compute_dtype: bool) -> list[str]:
    """The `checked_scalars:` as check_scalar_fits calls, against the computation dtype (`dtype` in
    check_args) when the op has one, else self's dtype."""
    dtype = "dtype" if has_compute_dtype else "self.scalar_type()"
    targets = {"dtype": dtype, "opmath": f"opmath_dtype({dtype})", "integral": dtype}
    calls = []
    for name, target in nf.checked_scalars:
        fn = "check_wrapped_number_fits" if nf.schema.arg(name).type.base == "Tensor" else "check_scalar_fits"
        call = f"{fn}({_cpp_string(nf.name)}, {name}, {targets[target]})"
        calls.append(f"if (is_integral_type({dtype}, false)) {call}" if target == "integral" else call)
    return calls


def _overlap_checks(nf: NativeFunction, targets: list[str], inplace: bool) -> list[str]:
    """A kernel op's written-to tensors against its inputs (stage/Outputs.h check_write_overlap): no internal
    overlap (unless tagged allows_internal_overlap), no partial overlap with an input, none at all with a
    `no_overlap:` input. Pointwise ops check their inputs in their iterator; composites write a fresh result
    first."""
    if nf.kind == "pointwise" and not inplace:
        # The iterator checks the inputs, after out= is resized: a refused out= must keep its shape.
        return [f"check_write_overlap({t}, false)" for t in targets]
    if nf.kind != "dispatch":
        return []
    s = nf.schema
    inputs = [a for a in s.arguments if a.type.base == "Tensor" and not (inplace and a.name == "self")]
    internal_ok = "true" if "allows_internal_overlap" in nf.tags else "false"
    calls = []
    for t in targets:
        calls.append(f"check_write_overlap({t}, {internal_ok})")
        for a in inputs:
            strict = "true" if a.name in nf.no_overlap else "false"
            calls.append(f"check_input_overlap({t}, {a.name}, {strict})")
    return calls


def _tensor_list(names: list[str]) -> str:
    return "{" + ", ".join(f"&{n}" for n in names) + "}"


def _meta_expr(nf: NativeFunction, tensor_args: list[str], args: str) -> str:
    s, impl = nf.schema, nf.impl
    result_dtype_call = f"kernels::{nf.key}_result_dtype({args})"
    if impl.meta == "reduction":
        dim = s.arg("dim")
        dims = "std::nullopt"  # every dim
        if dim is not None and dim.type.is_list:
            dims = "dim"
        elif dim is not None and dim.type.optional:  # int? dim: None reduces every dim
            dims = "dim.has_value() ? std::optional<IntArrayRef>(IntArrayRef(*dim)) : std::nullopt"
        elif dim is not None:
            dims = "IntArrayRef(dim)"
        keepdim = "keepdim" if s.arg("keepdim") is not None else "false"
        expr = f"meta_reduction(kOp, self, {dims}, {keepdim}, {result_dtype_call})"
    elif impl.meta == "broadcast":
        expr = f"meta_broadcast(kOp, {_tensor_list(tensor_args)}, {result_dtype_call})"
    elif impl.meta == "same_as_self":
        others = [t for t in tensor_args if t != "self"]
        expr = f"meta_same_as_self(kOp, self, {_tensor_list(others)}, {result_dtype_call})"
    else:
        expr = f"meta::{impl.meta}({args})"
    if "computes_in_out_dtype" in nf.tags:  # the kernel computes in out's dtype: any out= dtype passes
        expr = f"with_any_target_dtype({expr})"
    return expr


def _impl_context(nf: NativeFunction, tensor_args: list[str], args: str, out_params: str) -> ImplCtx:
    impl, s = nf.impl, nf.schema
    if isinstance(impl, AnyDevice):
        return ImplCtx(any_fn=impl.fn)
    if not isinstance(impl, (Pointwise, Kernels)):
        return ImplCtx()
    ctx = ImplCtx(meta_expr=_meta_expr(nf, tensor_args, args),
                  custom_meta=impl.meta if impl.meta not in BUILTIN_METAS else None,
                  kernel_type=f"void (*)({', '.join(cpp.params(s, defaults=False) + [out_params])})")
    if isinstance(impl, Pointwise):
        ctx.cpu, ctx.cuda = f"{nf.key}_out_cpu", f"{nf.key}_out_cuda"
    else:
        ctx.cpu, ctx.cuda = (None if impl.cpu_on_host else impl.cpu), impl.cuda
        if impl.cuda is not None and impl.cuda != impl.cpu:  # not a device-generic kernel
            ctx.on_host = impl.cuda
    ctx.cpu_slot = f"on_host::{ctx.on_host}" if isinstance(impl, Kernels) and impl.cpu_on_host else ctx.cpu
    return ctx


def _outputs_context(nf: NativeFunction) -> OutputsCtx:
    s = nf.schema
    multi = len(s.returns) > 1
    names = [f"out{i}" for i in range(len(s.returns))] if multi else ["out"]
    dtype_arg, device_arg, self_arg = s.arg("dtype"), s.arg("device"), s.arg("self")
    tensors = [a.name for a in s.arguments if a.type.base == "Tensor"]
    return OutputsCtx(
        names=names, params=", ".join(f"const Tensor& {o}" for o in names), multi=multi,
        meta_type=f"std::array<TensorMeta, {len(s.returns)}>" if multi else "TensorMeta",
        ret=cpp.return_type(s) if multi else "const Tensor&",
        composite_args=", ".join(_out_arg(a.name, dtype_arg, device_arg, names[0]) for a in s.arguments),
        grad_args=", ".join(tensors + names), exact="exact_out_dtype" in nf.tags,
        exact_with_dtype=(dtype_arg is not None and dtype_arg.type.base == "ScalarType" and self_arg is not None
                          and self_arg.type.is_tensor and "out" in nf.variants))


def _pointwise_kernel_context(nf: NativeFunction, tensor_args: list[str]) -> PointwiseKernelCtx:
    s = nf.schema
    printer = _PointwisePrinter(nf)
    is_bool, is_real = nf.promotion.kind == "always_bool", "complex_to_real" in nf.tags
    cases = []
    for d in nf.dtype_list:
        cpp_type = cpp.DTYPE_CPP[d]
        out_type, ret = ("bool", "bool") if is_bool else (cpp_type, "op_t")
        if is_real and dtype_category(d) == "complex":
            out_type, ret = f"real_t<{cpp_type}>", "real_t<op_t>"
        cases.append(PointwiseCase(cpp.dtype_enum(d), cpp_type, printer.print(nf.impl.exprs[dtype_category(d)].tree),
                                   out_type, ret))
    used_tensors = [a for a in tensor_args if a in printer.used_tensors]
    # Scalars convert with Scalar::to<op_t>(); int/float/bool arguments with a cast. An optional
    # one is its value or 0, and h_<name> says whether it was given.
    used_scalars, has_flags = [], []
    for a in s.arguments:
        if a.name not in printer.used_scalars:
            continue
        value = f"(*{a.name})" if a.type.optional else a.name
        conv = f"{value}.to<op_t>()" if a.type.base == "Scalar" else f"static_cast<op_t>({value})"
        if a.type.optional:
            used_scalars.append((a.name, f"{a.name}.has_value() ? {conv} : op_t(0)"))
            has_flags.append(a.name)
        else:
            used_scalars.append((a.name, conv))
    return PointwiseKernelCtx(cases, used_tensors, used_scalars, has_flags,
                              ", ".join(f"op_t v_{t}" for t in used_tensors),
                              any(dtype_category(d) == "complex" for d in nf.dtype_list))


def op_context(nf: NativeFunction, first_default: int = 0, node_index: int = 0,
               op_names: set[str] | None = None) -> OpCtx:
    s = nf.schema
    tensor_args = [a.name for a in s.arguments if a.type.base == "Tensor" and not a.type.is_list]
    args = ", ".join(cpp.arg_names(s))
    outs = _outputs_context(nf)
    promo = None
    if nf.promotion is not None:
        promo = PromotionCtx(_promotion_body(nf), nf.promotion.kind == "always_bool", "complex_to_real" in nf.tags)
    ctx = OpCtx(
        nf=nf, key=nf.key, name=s.name, overload=s.overload, schema=str(s),
        schema_literal=_cpp_string(str(s)), kind=nf.kind,
        params_decl=", ".join(cpp.params(s, defaults=True, first_default=first_default)),
        params=", ".join(cpp.params(s, defaults=False)), args=args, ret=cpp.return_type(s),
        has_inplace="inplace" in nf.variants, has_out="out" in nf.variants, is_view=s.is_view,
        view_base=next((a.name for a in s.arguments if a.type.alias), None), promo=promo,
        impl=_impl_context(nf, tensor_args, args, outs.params), outs=outs,
        pw=_pointwise_kernel_context(nf, tensor_args) if isinstance(nf.impl, Pointwise) else None,
        # A message is prefixed with the op's name unless it starts with it ("mean(): could not infer ...").
        checks=[(cond, _cpp_message(msg if re.match(rf"{s.name}\b", msg) else f"{s.name}: {msg}"))
                for cond, msg in nf.checks],
        scalar_checks=_scalar_checks(nf, promo is not None),
        overlap_inplace=_overlap_checks(nf, ["self"], inplace=True),
        overlap_out=_overlap_checks(nf, outs.names, inplace=False))
    ctx.all_tensor_args = ", ".join(a.name for a in s.arguments if a.type.base == "Tensor")
    ctx.args_original_self = ", ".join("original_self" if n == "self" else n for n in cpp.arg_names(s))
    ctx.args_fw_self = ", ".join("fw_self" if n == "self" else n for n in cpp.arg_names(s))
    tensor_params = {a.name for a in s.arguments if a.type.base == "Tensor"}
    ctx.conj_fallback = (bool(tensor_params) and "conj_aware" not in nf.tags
                         and (nf.kind in ("pointwise", "dispatch") or (nf.kind == "any" and not s.is_view)))
    if ctx.conj_fallback:
        arg_names = cpp.arg_names(s)
        resolved = [f"conj_view::resolved({n})" if n in tensor_params else n for n in arg_names]
        ctx.conj_tensors = ", ".join(n for n in arg_names if n in tensor_params)
        ctx.conj_args = ", ".join(resolved)
        ctx.conj_args_self_value = ", ".join("self_value" if n == "self" else r for n, r in zip(arg_names, resolved))
    if any(nf.autocast):
        names = {"lower": "Lower", "fp32": "Fp32", "promote": "Promote", None: "None"}
        ctx.autocast_policies = ", ".join(f"autocast::Policy::{names[p]}" for p in nf.autocast)
        cast = {a.name for a in s.arguments if a.type.base == "Tensor"}
        ctx.autocast_ptrs = ", ".join(f"autocast::ptr({n})" for n in cpp.arg_names(s) if n in cast)
        ctx.autocast_args = ", ".join(f"autocast::cast({n}, *to)" if n in cast else n for n in cpp.arg_names(s))
    if nf.differentiable:
        ctx.ag = autograd_context(nf, node_index, op_names or set())
        ctx.diff_args = ", ".join(d.name for d in ctx.ag.inputs)
    return ctx


# ------------------------------------------------------------------ python contexts

@dataclass
class PyArgCtx:
    name: str
    kind: str
    size: int
    optional: bool
    has_default: bool
    kwonly: bool
    number_ok: bool


@dataclass
class PySigCtx:
    display: str
    schema: str
    args: list[PyArgCtx]
    call: str  # C++ expression of the functional (or in-place) call
    out_call: str | None
    out_index: int
    statics: list[str]
    out_count: int = 1
    requires_grad_index: int = -1  # factories: the Python-only requires_grad= argument
    ret_type: str = ""  # C++ variable of the named-tuple type of the result ("" for none)
    out_ret_type: str = ""  # and of the out= result
    deprecated_warning: str = ""  # an overload tagged `deprecated`: the C++ literal of its UserWarning

    @property
    def display_literal(self) -> str:  # a C++ string literal (a str default is quoted: padding="valid")
        return _cpp_string(self.display)


@dataclass
class PyNameCtx:
    name: str
    module: str
    ident: str
    is_method: bool
    doc: str
    signatures: list[PySigCtx]


def _convert(kind: str, optional: bool, i: int, size: int = 0) -> str:
    fn = {
        "Tensor": "tensor", "Scalar": "scalar", "Int": "toint", "Float": "todouble", "Bool": "tobool",
        "String": "string", "ScalarType": "scalartype", "Device": "device", "IntList": "intlist",
        "TensorList": "tensorlist", "OptTensorList": "opttensorlist", "FloatList": "floatlist", "BoolList": "boollist", "Generator": "generator",
    }[kind]
    extra = f", {size}" if kind == "IntList" else ""
    return f"p.{fn}{'_opt' if optional else ''}({i}{extra})"


def py_name_context(g: PyName) -> PyNameCtx:
    sigs = []
    for sig in g.signatures:
        nf = sig.nf
        index = {p.name: i for i, p in enumerate(sig.params)}
        args, statics, call_args = [], [], []
        for p in sig.params:
            args.append(PyArgCtx(p.name, arg_kind(p.type), p.type.size or 0, p.type.optional,
                                 p.default is not None, p.kwonly, allows_number(nf, p)))
        for a in nf.schema.arguments:
            if a.name == "self" and sig.kind in ("method", "inplace"):
                call_args.append("self")
                continue
            i = index[a.name]
            conv = _convert(arg_kind(a.type), a.type.optional, i, a.type.size or 0)
            if a.default is not None and not (a.default == "None" and a.type.optional):
                st = cpp.needs_static_default(a)
                if st:
                    statics.append(st)
                conv = f"(p.has({i}) ? {conv} : {cpp.python_default_value(a)})"
            call_args.append(conv)
        fn = nf.name + ("_" if sig.kind == "inplace" else "")
        call = f"torchlite::{fn}({', '.join(call_args)})"
        out_call, out_index = None, -1
        nret = len(nf.schema.returns)
        if sig.has_out:
            out_index = index["out"]
            targets = [f"p.tensor({out_index})"] if nret == 1 else [f"outs[{k}]" for k in range(nret)]
            out_call = f"torchlite::{nf.name}_out({', '.join(targets + call_args)})"
        ctx = PySigCtx(f"{g.name}{sig.display}", str(nf.schema), args, call, out_call, out_index, statics, nret)
        ctx.requires_grad_index = index.get("requires_grad", -1) if any(p.python_only for p in sig.params) else -1
        if nret > 1:
            # Named returns give PyTorch's named tuple (torchlite.return_types.max, .max_out for out=),
            # unnamed ones a plain tuple.
            named = named_returns(nf)
            ctx.ret_type = f"kRet_{nf.name}" if named and sig.kind != "inplace" else "nullptr"
            ctx.out_ret_type = f"kRet_{nf.name}_out" if named else "nullptr"
        if "deprecated" in nf.tags:
            # PyTorch's text for its deprecated overloads (add(a, 10, b)): this one, then the others.
            others = "".join(f"\n\t{g.name}{s.display}" for s in g.signatures if "deprecated" not in s.nf.tags)
            ctx.deprecated_warning = _cpp_string(
                f"This overload of {g.name} is deprecated:\n\t{g.name}{sig.display}\n"
                f"Consider using one of the following signatures instead:{others}"
            ).replace("\n", "\\n").replace("\t", "\\t")
        sigs.append(ctx)
    doc_nf = g.signatures[0].nf
    doc = (doc_nf.doc or "").strip()
    doc = "\n".join(f"{g.name}{s.display}" for s in g.signatures) + ("\n\n" + doc if doc else "")
    return PyNameCtx(g.name, g.module, f"{g.module}_{g.name}", g.module == "method",
                     doc.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n"), sigs)


# ------------------------------------------------------------------ writing

class Writer:
    """Writes files under a root only when their content changed; remembers what it wrote."""

    def __init__(self, root: str):
        self.root = root
        self.written: set[str] = set()
        self.changed: list[str] = []

    def write(self, rel: str, text: str) -> None:
        path = os.path.join(self.root, rel)
        self.written.add(os.path.normpath(rel))
        try:
            with open(path) as f:
                if f.read() == text:
                    return
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
        self.changed.append(rel)

    def remove_stale(self) -> list[str]:
        removed = []
        for dirpath, _, files in os.walk(self.root):
            for fn in files:
                rel = os.path.normpath(os.path.relpath(os.path.join(dirpath, fn), self.root))
                if rel not in self.written:
                    os.remove(os.path.join(dirpath, fn))
                    removed.append(rel)
        return sorted(removed)


def generate(yaml_path: str, out_dir: str) -> Writer:
    functions = load(yaml_path)
    env = _env()
    w = Writer(out_dir)
    by_name: dict[str, list] = {}
    for nf in functions:
        by_name.setdefault(nf.name, []).append(nf.schema)
    firsts = {}
    for schemas in by_name.values():
        firsts.update(cpp.first_defaults(schemas))
    op_names = {nf.name for nf in functions}
    node_index = node_indices(functions)
    ops = [op_context(nf, firsts[nf.schema.full_name], node_index.get(nf.schema.full_name, 0), op_names)
           for nf in functions]
    cpu_sources, cuda_sources, py_sources = [], [], []
    groups: dict[str, list[OpCtx]] = {}
    for op in ops:
        groups.setdefault(op.name, []).append(op)
    keys = {op.key for op in ops}
    for op in ops:
        # The default overload's header (ops/sum.h) also brings in the other overloads. When an overload of
        # another name has that file name (scatter.reduce is ops/scatter_reduce.h, and scatter_reduce has
        # only scatter_reduce.two), its header brings in the name's overloads instead.
        if op.key == op.name:
            op.siblings = [o.key for o in groups[op.name] if o is not op]
        elif op.key in groups:
            op.siblings = [o.key for o in groups[op.key]]
        w.write(f"ops/{op.key}.h", env.get_template("op.h.j2").render(op=op))
        w.write(f"ops/{op.key}.cpp", env.get_template("op.cpp.j2").render(op=op))
        w.write(f"kernels/{op.key}.h", env.get_template("kernels.h.j2").render(op=op))
        cpu_sources.append(f"ops/{op.key}.cpp")
        if op.kind == "pointwise":
            w.write(f"kernels/{op.key}_cpu.cpp", env.get_template("pointwise_cpu.cpp.j2").render(op=op))
            cpu_sources.append(f"kernels/{op.key}_cpu.cpp")
            w.write(f"kernels/{op.key}_cuda.cu", env.get_template("pointwise_cuda.cu.j2").render(op=op))
            cuda_sources.append(f"kernels/{op.key}_cuda.cu")
    for name, members in sorted(groups.items()):
        if all(o.key != name for o in members) and name not in keys:
            w.write(f"ops/{name}.h", env.get_template("op_group.h.j2").render(name=name, ops=members))
    names = python_names(functions)
    for shard in range(NUM_SHARDS):
        members = [py_name_context(g) for g in names if g.shard == shard]
        includes = sorted({sig.nf.key for g in names if g.shard == shard for sig in g.signatures})
        ret_types = {}
        for g in names:
            if g.shard != shard:
                continue
            for sig in g.signatures:
                fields = named_returns(sig.nf)
                if fields is None:
                    continue
                ret_types[sig.nf.name] = fields
                if sig.has_out:
                    ret_types[sig.nf.name + "_out"] = fields
        w.write(f"python/shard_{shard}.cpp", env.get_template("python_shard.cpp.j2").render(
            shard=shard, names=members, includes=includes, ret_types=sorted(ret_types.items())))
        py_sources.append(f"python/shard_{shard}.cpp")
    w.write("torchlite/_C.pyi", env.get_template("stubs.pyi.j2").render(stubs=_pyi(names)))
    w.write("torchlite/_op_facts.py", facts_module(functions))
    w.write("files.cmake", env.get_template("files.cmake.j2").render(
        cpu=sorted(cpu_sources), cuda=sorted(cuda_sources), python=py_sources, num_shards=NUM_SHARDS))
    w.remove_stale()
    return w


def _pyi(names: list[PyName]) -> dict:
    out = {"methods": [], "functions": {}}
    for g in names:
        for sig in g.signatures:
            params = []
            star = False
            for p in sig.params:
                if p.kwonly and not star:
                    params.append("*")
                    star = True
                params.append(f"{p.name}: {pyi_type(p.type, allows_number(sig.nf, p))}{pyi_default(p)}")
            rets = sig.nf.schema.returns
            ret = "tuple[Tensor, ...]"
            if len(rets) == 1 and not rets[0].type.is_list:
                ret = {"Tensor": "Tensor", "bool": "bool", "int": "int", "float": "float", "Scalar": "Number"}[
                    rets[0].type.base]
            line = f"native_functions.yaml:{sig.nf.line}"
            overload = len(g.signatures) > 1
            if g.module == "method":
                out["methods"].append((g.name, ", ".join(["self"] + params), ret, line, overload))
            else:
                out["functions"].setdefault(g.module, []).append((g.name, ", ".join(params), ret, line, overload))
    return out
