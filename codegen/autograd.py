"""Derivative formulas -> the backward Node of an op (model side).

Each formula's tree (parsed when the schema loaded, codegen/expr.py) is printed as C++:
method calls become free functions (`grad.view(s)` -> `view(grad, s)`),
metadata calls on a tensor (`self.sizes()`) become values saved at forward
time, `grad`/`grad_<ret>`/`grads[i]` read the incoming gradients, `result`
(or a return's name) reads a saved output. What a formula reads decides what
the node saves, and under which condition: a tensor is saved only when an
input whose formula reads it requires grad.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import expr as E
from .model import METADATA, Argument, NativeFunction, Type


# ------------------------------------------------------------------ the node model


@dataclass
class SavedMember:
    """One value the node keeps: a tensor (SavedVariable), a list of them, a value, or metadata."""
    member: str  # C++ member name
    decl: str  # C++ member type
    save: list[str]  # statements run at forward time (node is `node`)
    condition: str | None  # C++ condition for saving tensors (None: always)
    local: str  # C++ statement declaring the local the formula reads, in apply()
    python_name: str  # grad_fn._saved_<python_name>
    when: str = "input"  # "input" (saved before the kernel runs) or "output" (after)
    is_tensor: bool = False
    release: str | None = None  # statement freeing it
    kind: str = "value"  # value (a number, list or string argument), tensor, output, metadata
    needed_by: tuple[str, ...] = ()  # a tensor: the inputs whose formulas read it (saved if one needs a gradient)



@dataclass
class FormulaCtx:
    inputs: list[str]  # the op inputs it computes
    cpp: str  # the C++ expression
    locals: list[str]  # local declarations it needs (from SavedMember.local)
    text: str  # the formula as written
    joint: bool = False
    is_list: bool = False  # returns std::vector<Tensor> (a Tensor[] input)
    tuple_type: str = ""  # a joint formula's result: std::tuple<Tensor, Tensor, ...>, one per input


@dataclass
class DiffInput:
    name: str
    kind: str  # tensor, optional, list
    index: int  # position among the differentiable inputs


@dataclass
class AutogradCtx:
    node: str  # MulBackward0
    inputs: list[DiffInput]
    members: list[SavedMember]
    formulas: list[FormulaCtx]
    outputs: list[str]  # C++ names of the forward outputs
    diff_outputs: list[int]  # indices of outputs that get history
    zero_fill: bool  # several differentiable outputs: undefined gradients become zeros
    helpers_used: bool
    ops_used: list[str]
    # An op with an in-place variant whose formulas read `self`: the C++ condition under which the
    # original self is saved (the in-place variant clones it first), else "".
    self_condition: str
    index_of: dict[str, int] = field(default_factory=dict)  # differentiable input -> its index
    # Forward mode (`jvp:`): "elementwise" sums each input's backward formula with its tangent as `grad`
    # (jvp_terms: (input, C++ expression)); "linear" calls the op on the tangents (linear_args).
    jvp: str | None = None
    jvp_terms: list[tuple[str, str]] = field(default_factory=list)
    linear_args: str = ""
    # explicit jvp: formulas, C++ (`<input>_t` is that input's tangent): (output index, expression)
    jvp_outputs: list[tuple[int, str]] = field(default_factory=list)
    jvp_reads_self: bool = False  # whether the tangents read self's value (its in-place variant keeps a copy)
    # save_if: (member flag, C++ condition over the arguments), evaluated when the node is made
    keep_flags: list[tuple[str, str]] = field(default_factory=list)
    # tags: [complex_autograd]: the formulas follow PyTorch's complex convention (grad * conj(f'(z))), so the
    # node may take and give complex gradients; other nodes refuse complex tensors (autograd::set_history).
    supports_complex: bool = False


def node_indices(functions: list[NativeFunction]) -> dict[str, int]:
    """Full name -> k of XBackward<k>: the position among the name's differentiable overloads."""
    out, seen = {}, {}
    for nf in functions:
        if nf.differentiable:
            out[nf.schema.full_name] = seen.get(nf.name, 0)
            seen[nf.name] = seen.get(nf.name, 0) + 1
    return out


def node_name(nf: NativeFunction, index: int) -> str:
    """PyTorch's naming: mul -> MulBackward0, softsign_bar -> SoftsignBarBackward0 (index: overload order)."""
    base = "".join(p[:1].upper() + p[1:] for p in nf.name.strip("_").split("_") if p)
    return f"{base}Backward{index}"


_SIMPLE = {"int": "int64_t", "float": "double", "bool": "bool", "Scalar": "Scalar", "ScalarType": "ScalarType",
           "Device": "Device", "str": "std::string"}


def _value_member(a: Argument) -> tuple[str, list[str], str]:
    """(member type, save statements, local declaration) for a non-tensor argument."""
    t, n = a.type, a.name
    m = f"{n}_"
    if t.is_list:
        elem = {"int": "int64_t", "float": "double"}.get(t.base)
        if elem is None:
            raise ValueError(f"formulas cannot read a {t} argument ('{n}')")
        view = "IntArrayRef" if t.base == "int" else "ArrayRef<double>"
        if t.optional:
            return (f"std::optional<std::vector<{elem}>>",
                    [f"if ({n}.has_value()) node->{m} = {n}->vec();"],
                    f"std::optional<{view}> {n} = {m}.has_value() ? std::optional<{view}>(*{m}) : std::nullopt;")
        return f"std::vector<{elem}>", [f"node->{m} = {n}.vec();"], f"{view} {n} = {m};"
    if t.base == "Generator":
        raise ValueError(f"formulas cannot read the generator '{n}'")
    base = _SIMPLE[t.base]
    if t.base == "str":
        if t.optional:
            return ("std::optional<std::string>", [f"if ({n}.has_value()) node->{m} = std::string(*{n});"],
                    f"std::optional<std::string_view> {n} = {m};")
        return "std::string", [f"node->{m} = std::string({n});"], f"std::string_view {n} = {m};"
    decl = f"std::optional<{base}>" if t.optional else base
    return decl, [f"node->{m} = {n};"], f"const {decl}& {n} = {m};"


def _tensor_member(n: str, t: Type, condition: str, needed_by: tuple[str, ...]) -> SavedMember:
    """A saved Tensor, Tensor? or Tensor[]/Tensor?[] argument: its member, how it is saved and unpacked."""
    if t.is_list:
        decl = "std::vector<autograd::SavedVariable>"
        if t.elem_optional:
            save = f"for (const auto& t : {n}) node->{n}_.emplace_back(t.has_value() ? *t : Tensor(), false);"
            local = f"std::vector<std::optional<Tensor>> {n} = autograd::unpack_optional_list({n}_);"
        else:
            save = f"for (const Tensor& t : {n}) node->{n}_.emplace_back(t, false);"
            local = f"std::vector<Tensor> {n} = autograd::unpack_list({n}_);"
        release = f"{n}_.clear();"
    else:
        decl, release = "autograd::SavedVariable", f"{n}_.reset();"
        if t.optional:
            save = f"if ({n}.has_value()) node->{n}_ = autograd::SavedVariable(*{n}, false);"
            local = f"std::optional<Tensor> {n} = autograd::unpack_optional({n}_);"
        else:
            save = f"node->{n}_ = autograd::SavedVariable({n}, false);"
            local = f"Tensor {n} = {n}_.unpack();"
    return SavedMember(f"{n}_", decl, [save], condition, local, n, is_tensor=True, release=release, kind="tensor",
                       needed_by=needed_by)


def output_index(schema, name: str) -> int | None:
    """The return a formula's name reads (`result`, `result<i>`, a return's name), or None."""
    names = [r.name for r in schema.returns]
    if name == "result" and len(names) == 1:
        return 0
    m = re.fullmatch(r"result(\d+)", name)
    if m and int(m.group(1)) < len(names):
        return int(m.group(1))
    if name in names and schema.arg(name) is None:
        return names.index(name)
    return None


class _Emitter(E.Printer):
    """Prints one formula's tree as C++, recording what it reads."""

    def __init__(self, nf: NativeFunction, op_names: set[str], jvp: bool = False):
        # jvp: printed for the forward wrapper (arguments and outputs read directly, grad is a tangent)
        self.jvp = jvp
        self.schema = nf.schema
        self.args = {a.name: a for a in nf.schema.arguments}
        self.rets = [r.name for r in nf.schema.returns]
        self.op_names = op_names
        self.reads: set[str] = set()  # arg names / output indices ("out:i") / metadata ("meta:x:f")
        self.uses_helpers = False
        self.ops: set[str] = set()

    def function(self, name: str) -> str:
        if name in self.op_names:
            self.ops.add(name)  # its header is included
        else:
            self.uses_helpers = True  # the loader checked: a formula helper
        return name

    def method(self, node: E.Method) -> str:
        if node.name not in METADATA:
            return super().method(node)
        # The loader checked: a tensor argument's or a return's, with no arguments. Backward reads the value
        # saved at forward time; forward mode reads it directly.
        owner = node.receiver.name
        self.reads.add(f"meta:{owner}:{node.name}")
        if not self.jvp:
            return f"{owner}_{node.name}"
        i = output_index(self.schema, owner)
        target = owner if i is None else f"out{i}"
        read = METADATA[node.name][1]
        return f"{target}.{node.name}()" if read.startswith("{t}.") else "(" + read.format(t=target) + ")"

    def list(self, node: E.ListLit) -> str:
        if not node.items:
            return "IntArrayRef{}"
        return "std::vector<int64_t>" + super().list(node)

    def name(self, n: str) -> str:
        if n in ("true", "false", "grads", "grad_input_mask"):
            return n
        if n == "grad":
            return "grad" if self.jvp else "grads[0]"
        if n.startswith("grad_") and n[5:] in self.rets:
            return f"grads[{self.rets.index(n[5:])}]"
        if self.jvp and n.endswith("_t") and n[:-2] in self.args and self.args[n[:-2]].type.base == "Tensor":
            return f"t_{n[:-2]}"  # an input's tangent (zeros when it has none)
        if n in self.args:
            self.reads.add(n)
            return n
        i = output_index(self.schema, n)
        self.reads.add(f"out:{i}")
        return f"out{i}" if self.jvp else f"result{i}"


def autograd_context(nf: NativeFunction, index: int, op_names: set[str]) -> AutogradCtx:
    """The backward node of a differentiable op. The loader has checked every rule: this only prints."""
    s = nf.schema
    d = nf.derivatives
    diff_inputs: list[DiffInput] = []
    for a in s.arguments:
        if a.type.base != "Tensor" or a.name in d.nondiff:
            continue
        kind = "list" if a.type.is_list else "optional" if a.type.optional else "tensor"
        diff_inputs.append(DiffInput(a.name, kind, len(diff_inputs)))
    by_name = {x.name: x for x in diff_inputs}

    formulas: list[FormulaCtx] = []
    reads_by_formula: list[tuple[list[str], set[str]]] = []
    uses_helpers = False
    ops: set[str] = set()
    for f in d.formulas:
        inputs = [n for n in f.inputs if n not in d.nondiff]
        if not inputs:
            continue
        em = _Emitter(nf, op_names)
        cpp = em.print(f.expr.tree)
        uses_helpers |= em.uses_helpers
        ops |= em.ops
        formulas.append(FormulaCtx(inputs, cpp, [], f.expr.text, joint=f.joint,
                                   is_list=len(inputs) == 1 and by_name[inputs[0]].kind == "list",
                                   tuple_type="std::tuple<" + ", ".join(["Tensor"] * len(inputs)) + ">"))
        reads_by_formula.append((inputs, em.reads))

    def users(name_read: str) -> tuple[str, ...]:
        return tuple(sorted({i for inputs, reads in reads_by_formula if name_read in reads for i in inputs},
                            key=lambda n: by_name[n].index))

    keep_flags: list[tuple[str, str]] = []
    keep_of: dict[str, str] = {}  # what a formula reads ("self", "out:0") -> its save_if flag
    for name, cond in d.save_if.items():
        i = output_index(s, name)
        read = name if i is None else f"out:{i}"
        flag = f"keep_{name}_"
        keep_flags.append((flag, _Emitter(nf, op_names, jvp=True).print(cond.tree)))
        keep_of[read] = flag

    def condition(name_read: str) -> str:
        needs = " || ".join(f"node->needs({by_name[u].index})" for u in users(name_read)) or "false"
        if name_read in keep_of:
            return f"node->{keep_of[name_read]} && ({needs})"
        return needs

    members: list[SavedMember] = []
    all_reads = set().union(*(r for _, r in reads_by_formula)) if reads_by_formula else set()
    for a in s.arguments:
        if a.name not in all_reads:
            continue
        n, t = a.name, a.type
        if t.base == "Tensor":
            members.append(_tensor_member(n, t, condition(n), users(n)))
        else:
            decl, save, local = _value_member(a)
            members.append(SavedMember(f"{n}_", decl, save, None, local, n))
    nondiff_out = _nondiff_output_indices(nf)
    for r in sorted(x for x in all_reads if x.startswith("out:")):
        i = int(r[4:])
        members.append(SavedMember(
            f"result{i}_", "autograd::SavedVariable",
            [f"node->result{i}_ = autograd::SavedVariable(out{i}, /*is_output=*/{'false' if i in nondiff_out else 'true'});"],
            condition(r), f"Tensor result{i} = result{i}_.unpack(shared_from_this());",
            f"result{i}" if len(s.returns) > 1 else "result", when="output", is_tensor=True,
            release=f"result{i}_.reset();", kind="output", needed_by=users(r)))
    for r in sorted(x for x in all_reads if x.startswith("meta:")):
        _, owner, meth = r.split(":")
        decl, read, view = METADATA[meth]
        member = f"{owner}_{meth}"
        i = output_index(s, owner)
        src = owner if i is None else f"out{i}"
        local = f"{view} {member} = {member}_;" if view else f"const {decl}& {member} = {member}_;"
        members.append(SavedMember(f"{member}_", decl, [f"node->{member}_ = {read.format(t=src)};"], None, local,
                                   member, when="input" if src == owner else "output", kind="metadata"))

    # Which locals each formula needs.
    local_of = {m.python_name: m.local for m in members}
    for f, (inputs, reads) in zip(formulas, reads_by_formula):
        for r in sorted(reads):
            if r.startswith("out:"):
                key = "result" if len(s.returns) == 1 else f"result{r[4:]}"
            elif r.startswith("meta:"):
                _, owner, meth = r.split(":")
                key = f"{owner}_{meth}"
            else:
                key = r
            f.locals.append(local_of[key])

    diff_outputs = [i for i in range(len(s.returns)) if i not in nondiff_out]
    self_condition = ""
    self_member = next((m for m in members if m.member == "self_" and m.is_tensor), None)
    if "inplace" in nf.variants and self_member is not None:
        # The in-place variant saves a copy of self made before the op: which inputs need it
        # is known from their requires_grad before the node exists.
        self_users = sorted({i for inputs, reads in reads_by_formula if "self" in reads for i in inputs},
                            key=lambda n: by_name[n].index)
        self_condition = "(" + " || ".join(f"autograd::requires_grad_of({u})" for u in self_users) + ")"
        if "self" in keep_of:
            self_condition = f"(({dict(keep_flags)[keep_of['self']]}) && {self_condition})"
        self_member.save = [x.replace("SavedVariable(self,", "SavedVariable(self_value,") for x in self_member.save]

    jvp_terms, linear_args, jvp_outputs, jvp_reads_self = [], "", [], False
    jvp = d.jvp
    if jvp is not None and jvp.kind == "elementwise":
        for f in d.formulas:
            if f.inputs[0] in d.nondiff:
                continue
            em = _Emitter(nf, op_names, jvp=True)
            jvp_terms.append((f.inputs[0], em.print(f.expr.tree)))
            jvp_reads_self |= "self" in em.reads
    elif jvp is not None and jvp.kind == "linear":
        linear_args = ", ".join(f"t_{a.name}" if a.name in by_name else a.name for a in s.arguments)
    elif jvp is not None:
        rets = s.return_names
        for out_name, ex in jvp.formulas.items():
            em = _Emitter(nf, op_names, jvp=True)
            jvp_outputs.append((rets.index(out_name), em.print(ex.tree)))
            ops |= em.ops
            uses_helpers |= em.uses_helpers
            jvp_reads_self |= "self" in em.reads
    return AutogradCtx(
        jvp=None if jvp is None else jvp.kind,
        jvp_terms=jvp_terms, linear_args=linear_args, jvp_outputs=jvp_outputs, jvp_reads_self=jvp_reads_self,
        keep_flags=keep_flags,
        node=node_name(nf, index), inputs=diff_inputs, members=members, formulas=formulas,
        outputs=[f"out{i}" for i in range(len(s.returns))], diff_outputs=diff_outputs,
        zero_fill=len(diff_outputs) > 1 and d.zero_fill, helpers_used=uses_helpers, ops_used=sorted(ops),
        self_condition=self_condition, index_of={x.name: x.index for x in diff_inputs},
        supports_complex="complex_autograd" in nf.tags)


def _nondiff_output_indices(nf: NativeFunction) -> set[int]:
    names = [r.name for r in nf.schema.returns]
    return {names.index(n) for n in nf.derivatives.nondiff_outputs if n in names}
