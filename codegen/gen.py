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
from .autograd import AutogradCtx, autograd_context, node_indices
from .expr import tokenize
from .load import dtype_category, dtype_list, load, load_helpers, named_returns
from .model import NativeFunction
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


@dataclass
class OpCtx:
    nf: NativeFunction
    key: str
    name: str
    overload: str
    schema: str
    kind: str
    params_decl: str
    params: str
    args: str
    ret: str
    has_inplace: bool
    has_out: bool
    is_view: bool
    differentiable: bool
    tensor_ptrs: str
    promotion_body: list[str]
    has_promotion: bool
    result_is_bool: bool
    meta_expr: str
    kernel_type: str
    kernel_cpu: str | None
    kernel_cuda: str | None
    # A hand-written CUDA kernel is written once for two backends (kernels/gpu/): the same function is
    # also compiled for the host as kernels::on_host::<name>, which tests run on CPU tensors.
    kernel_on_host: str | None
    any_fn: str | None
    custom_meta: str | None
    out_args: str
    view_base: str | None
    used_tensors: list[str] = field(default_factory=list)
    used_scalars: list[tuple[str, str]] = field(default_factory=list)
    has_flags: list[str] = field(default_factory=list)
    checks: list[tuple[str, str]] = field(default_factory=list)
    lambda_params: str = ""
    cases: list[PointwiseCase] = field(default_factory=list)
    siblings: list[str] = field(default_factory=list)
    # out= variants: one target `out`, or one per return (out0, out1, ...) for ops with several returns.
    multi: bool = False
    out_names: list[str] = field(default_factory=list)
    out_params: str = ""
    out_ret: str = ""
    meta_type: str = "TensorMeta"
    # tags: [exact_out_dtype]: out= must have the result's dtype exactly (PyTorch refuses a cast there).
    out_exact: bool = False
    exact_out_dtype: bool = False
    # autograd: the backward node (differentiable ops), the inputs that decide whether to record,
    # and every tensor argument (out= refuses to run when one requires grad).
    ag: AutogradCtx | None = None
    diff_args: str = ""
    all_tensor_args: str = ""
    out_grad_args: str = ""
    args_original_self: str = ""  # the arguments with self replaced by original_self
    args_fw_self: str = ""  # the arguments with self replaced by fw_self (its value before an in-place op)


def _promotion_body(nf: NativeFunction) -> list[str]:
    s = nf.schema
    lines = []
    dtype_arg = s.arg("dtype")
    if dtype_arg is not None and dtype_arg.type.base == "ScalarType":
        lines.append("if (dtype.has_value()) return *dtype;")
    p = nf.promotion
    if p in ("self_dtype", "int_to_long"):
        lines.append("ScalarType r = self.scalar_type();")
    else:
        lines.append("ResultTypeState state;")
        for a in nf.promotion_args:
            lines.append(f"update_result_type(state, {a});")
        lines.append("ScalarType r = result_type(state);")
    if p == "int_to_float":
        lines.append("if (is_integral_type(r, /*include_bool=*/true)) r = default_dtype();")
    if p == "int_to_long":
        lines.append("if (is_integral_type(r, /*include_bool=*/true)) r = ScalarType::Int64;")
    lines.append("return r;")
    return lines


def _pointwise_expr(nf: NativeFunction, text: str, used_t: set, used_s: set) -> str:
    tensor_names = {a.name for a in nf.schema.arguments if a.type.is_tensor}
    out = []
    for t in tokenize(text):
        if t.kind == "ident":
            if t.text in tensor_names:
                used_t.add(t.text)
                out.append(f"v_{t.text}")
            elif t.text.startswith("has_") and nf.schema.arg(t.text) is None:
                used_s.add(t.text[4:])
                out.append(f"h_{t.text[4:]}")
            else:
                used_s.add(t.text)
                out.append(f"s_{t.text}")
        elif t.kind == "call":
            out.append(f"scalar_math::{t.text}")
        elif t.kind == "number":
            out.append(f"op_t({t.text.rstrip('fF')})")
        else:
            out.append(t.text)
    text = ""
    for i, tok in enumerate(out):
        glue = i == 0 or tok in (")", ",") or out[i - 1] == "(" or (tok == "(" and out[i - 1].startswith(
            "scalar_math::")) or (out[i - 1] in ("-", "!", "~") and (i == 1 or out[i - 2] in ("(", ",", "+", "-",
                                                                                                "*", "/")))
        text += ("" if glue else " ") + tok
    return text


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


def _tensor_list(names: list[str]) -> str:
    return "{" + ", ".join(f"&{n}" for n in names) + "}"


def op_context(nf: NativeFunction, first_default: int = 0, node_index: int = 0,
               helpers: set[str] | None = None, op_names: set[str] | None = None) -> OpCtx:
    s = nf.schema
    tensor_args = [a.name for a in s.arguments if a.type.base == "Tensor" and not a.type.is_list]
    has_promotion = nf.promotion is not None
    args = ", ".join(cpp.arg_names(s))
    meta_expr, custom_meta = "", None
    result_dtype_call = f"kernels::{nf.key}_result_dtype({args})"
    kind = nf.kind
    if kind == "pointwise":
        meta = nf.meta or ("same_as_self" if tensor_args == ["self"] else "broadcast")
        if meta == "broadcast":
            meta_expr = f"meta_broadcast(kOp, {_tensor_list(tensor_args)}, {result_dtype_call})"
        else:
            others = [t for t in tensor_args if t != "self"]
            meta_expr = f"meta_same_as_self(kOp, self, {_tensor_list(others)}, {result_dtype_call})"
    elif kind == "dispatch":
        if nf.meta == "reduction":
            dim = s.arg("dim")
            dims = "std::nullopt"  # every dim
            if dim is not None and dim.type.is_list:
                dims = "dim"
            elif dim is not None and dim.type.optional:  # int? dim: None reduces every dim
                dims = "dim.has_value() ? std::optional<IntArrayRef>(IntArrayRef(*dim)) : std::nullopt"
            elif dim is not None:
                dims = "IntArrayRef(dim)"
            keepdim = "keepdim" if s.arg("keepdim") is not None else "false"
            meta_expr = f"meta_reduction(kOp, self, {dims}, {keepdim}, {result_dtype_call})"
        elif nf.meta == "broadcast":
            meta_expr = f"meta_broadcast(kOp, {_tensor_list(tensor_args)}, {result_dtype_call})"
        elif nf.meta == "same_as_self":
            others = [t for t in tensor_args if t != "self"]
            meta_expr = f"meta_same_as_self(kOp, self, {_tensor_list(others)}, {result_dtype_call})"
        else:
            custom_meta = nf.meta
            meta_expr = f"meta::{nf.meta}({args})"
    if "computes_in_out_dtype" in nf.tags:  # the kernel computes in out's dtype: any out= dtype passes
        meta_expr = f"with_any_target_dtype({meta_expr})"
    kernel_cpu = kernel_cuda = kernel_on_host = any_fn = None
    if kind == "pointwise":
        kernel_cpu, kernel_cuda = f"{nf.key}_out_cpu", f"{nf.key}_out_cuda"
    elif kind == "dispatch":
        kernel_cpu, kernel_cuda = nf.dispatch.get("cpu"), nf.dispatch.get("cuda")
        if kernel_cuda is not None and kernel_cuda != kernel_cpu:  # not a device-generic kernel
            kernel_on_host = kernel_cuda
    elif kind == "any":
        any_fn = nf.dispatch["any"]
    dtype_arg = s.arg("dtype")
    device_arg = s.arg("device")
    multi = len(s.returns) > 1
    out_names = [f"out{i}" for i in range(len(s.returns))] if multi else ["out"]
    out_params = ", ".join(f"const Tensor& {o}" for o in out_names)
    ctx = OpCtx(
        nf=nf, key=nf.key, name=s.name, overload=s.overload, schema=str(s), kind=kind,
        params_decl=", ".join(cpp.params(s, defaults=True, first_default=first_default)), params=", ".join(cpp.params(s, defaults=False)),
        args=args, ret=cpp.return_type(s), has_inplace="inplace" in nf.variants, has_out="out" in nf.variants, is_view=s.is_view,
        differentiable=nf.differentiable, tensor_ptrs=_tensor_list(tensor_args),
        promotion_body=_promotion_body(nf) if has_promotion else [], has_promotion=has_promotion,
        result_is_bool=nf.promotion == "always_bool", meta_expr=meta_expr,
        kernel_type=f"void (*)({', '.join(cpp.params(s, defaults=False) + [out_params])})",
        kernel_cpu=kernel_cpu, kernel_cuda=kernel_cuda, kernel_on_host=kernel_on_host, any_fn=any_fn, custom_meta=custom_meta,
        out_args=", ".join(_out_arg(a.name, dtype_arg, device_arg, out_names[0]) for a in s.arguments),
        view_base=next((a.name for a in s.arguments if a.type.alias), None),
    )
    # A message is prefixed with the op's name unless it starts with it ("mean(): could not infer ...").
    ctx.checks = [(cond, _cpp_message(msg if re.match(rf"{s.name}\b", msg) else f"{s.name}: {msg}"))
                  for cond, msg in nf.checks]
    all_tensors = [a.name for a in s.arguments if a.type.base == "Tensor"]
    ctx.all_tensor_args = ", ".join(all_tensors)
    ctx.args_original_self = ", ".join("original_self" if n == "self" else n for n in cpp.arg_names(s))
    ctx.args_fw_self = ", ".join("fw_self" if n == "self" else n for n in cpp.arg_names(s))
    ctx.out_grad_args = ", ".join(all_tensors + out_names)
    if nf.differentiable:
        ctx.ag = autograd_context(nf, node_index, helpers or set(), op_names or set())
        ctx.diff_args = ", ".join(d.name for d in ctx.ag.inputs)
    ctx.multi, ctx.out_names, ctx.out_params = multi, out_names, out_params
    ctx.out_exact = "exact_out_dtype" in nf.tags
    ctx.out_ret = cpp.return_type(s) if multi else "const Tensor&"
    ctx.meta_type = f"std::array<TensorMeta, {len(s.returns)}>" if multi else "TensorMeta"
    # PyTorch's reductions and scans: an out= target must have exactly the dtype that `dtype=` asks for.
    self_arg = s.arg("self")
    ctx.exact_out_dtype = (dtype_arg is not None and dtype_arg.type.base == "ScalarType" and self_arg is not None
                           and self_arg.type.is_tensor and "out" in nf.variants)
    if kind == "pointwise":
        used_t, used_s = set(), set()
        for d in dtype_list(nf):
            expr = _pointwise_expr(nf, nf.pointwise[dtype_category(d)], used_t, used_s)
            ctx.cases.append(PointwiseCase(cpp.dtype_enum(d), cpp.DTYPE_CPP[d], expr))
        ctx.used_tensors = [a for a in tensor_args if a in used_t]
        # Scalars convert with Scalar::to<op_t>(); int/float/bool arguments with a cast. An optional
        # one is its value or 0, and h_<name> says whether it was given.
        for a in s.arguments:
            if a.name not in used_s:
                continue
            value = f"(*{a.name})" if a.type.optional else a.name
            conv = f"{value}.to<op_t>()" if a.type.base == "Scalar" else f"static_cast<op_t>({value})"
            if a.type.optional:
                ctx.used_scalars.append((a.name, f"{a.name}.has_value() ? {conv} : op_t(0)"))
                ctx.has_flags.append(a.name)
            else:
                ctx.used_scalars.append((a.name, conv))
        ctx.lambda_params = ", ".join(f"op_t v_{t}" for t in ctx.used_tensors)
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


def generate(yaml_path: str, out_dir: str, with_cuda_sources: bool = True) -> Writer:
    helpers = load_helpers()
    functions = load(yaml_path, helpers)
    env = _env()
    w = Writer(out_dir)
    by_name: dict[str, list] = {}
    for nf in functions:
        by_name.setdefault(nf.name, []).append(nf.schema)
    firsts = {}
    for schemas in by_name.values():
        firsts.update(cpp.first_defaults(schemas))
    formula_helpers = set(helpers.get("formula_helpers", {}))
    op_names = {nf.name for nf in functions}
    node_index = node_indices(functions)
    ops = [op_context(nf, firsts[nf.schema.full_name], node_index.get(nf.schema.full_name, 0), formula_helpers,
                      op_names) for nf in functions]
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
    by_op = {op.key: op for op in ops}
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
    w.write("files.cmake", env.get_template("files.cmake.j2").render(
        cpu=sorted(cpu_sources), cuda=sorted(cuda_sources), python=py_sources, num_shards=NUM_SHARDS))
    del by_op
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
