"""The typed model of native_functions.yaml.

Parsing a `func:` string gives a FunctionSchema; one YAML entry gives a
NativeFunction. Everything the templates need is derived from these classes
(see cpp.py and python_sig.py); templates hold no logic.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

BASE_TYPES = ("Tensor", "Scalar", "int", "float", "bool", "str", "ScalarType", "Device", "Generator")
# Types that may be lists (Tensor[], int[], int[N], float[], bool[N]).
LIST_BASES = ("Tensor", "int", "float", "bool")
# Types that only make sense as optionals.
OPTIONAL_ONLY = ("Device", "Generator")


class SchemaError(Exception):
    """A problem in one entry; str() reads `native_functions.yaml:LINE: op: message`."""

    def __init__(self, message: str, line: int | None = None, op: str | None = None,
                 path: str = "native_functions.yaml"):
        self.message, self.line, self.op, self.path = message, line, op, path
        where = path if line is None else f"{path}:{line}"
        super().__init__(f"{where}: {op}: {message}" if op else f"{where}: {message}")


@dataclass(frozen=True)
class Type:
    base: str
    is_list: bool = False
    size: int | None = None  # int[2] -> 2
    optional: bool = False
    alias: str | None = None  # Tensor(a) -> "a"
    elem_optional: bool = False  # Tensor?[]: a list whose items may be None

    _RE = re.compile(r"^(\w+)(\((\w)(!?)\))?(\[(\d*)\])?(\?)?$")

    @staticmethod
    def parse(text: str, arg: str) -> "Type":
        if text == "Tensor?[]":  # index_put's indices: the only list of optionals
            return Type("Tensor", is_list=True, elem_optional=True)
        m = Type._RE.match(text)
        if not m or m.group(1) not in BASE_TYPES:
            raise ValueError(f"unknown type '{text}' for '{arg}' (known: {', '.join(BASE_TYPES)}, "
                             "with [] or [N] for lists of Tensor/int/float/bool and ? for optionals)")
        base, alias, bang, is_list, size, opt = (m.group(1), m.group(3), m.group(4), m.group(5) is not None,
                                                m.group(6), m.group(7) is not None)
        if bang:
            raise ValueError(f"'{arg}' is annotated ({alias}!): write in-place and out variants with "
                             "`variants: [inplace, out]` instead of mutable alias annotations")
        if alias and base != "Tensor":
            raise ValueError(f"alias annotation on non-Tensor '{arg}'")
        if is_list and base not in LIST_BASES:
            raise ValueError(f"unknown type '{text}' for '{arg}': lists of {base} are not supported")
        if base in OPTIONAL_ONLY and not opt:
            raise ValueError(f"type '{text}' for '{arg}' must be optional ({base}?)")
        return Type(base, is_list, int(size) if size else None, opt, alias)

    def __str__(self) -> str:
        s = self.base
        if self.alias:
            s += f"({self.alias})"
        if self.elem_optional:
            s += "?"
        if self.is_list:
            s += f"[{self.size or ''}]"
        if self.optional:
            s += "?"
        return s

    @property
    def is_tensor(self) -> bool:
        return self.base == "Tensor" and not self.is_list

    @property
    def without_alias(self) -> "Type":
        return Type(self.base, self.is_list, self.size, self.optional, None, self.elem_optional)


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: str | None  # as written, e.g. "1", "None", "[]", "False"
    kwonly: bool

    def __str__(self) -> str:
        return f"{self.type} {self.name}" + (f"={self.default}" if self.default is not None else "")


@dataclass(frozen=True)
class Return:
    name: str | None
    type: Type


_INT_RE = re.compile(r"^-?\d+$")
_FLOAT_RE = re.compile(r"^-?(\d+\.\d*|\d*\.\d+|\d+)([eE][-+]?\d+)?$|^-?inf$")


def check_default(arg_name: str, t: Type, default: str) -> None:
    """Raises ValueError when `default` is not a valid literal for type t."""

    def bad():
        return ValueError(f"bad default '{default}' for argument '{arg_name}' of type {t}")

    if default == "None":
        if not t.optional:
            raise bad()
        return
    if t.base in OPTIONAL_ONLY or t.base == "Tensor":
        raise bad()
    if t.is_list:
        items = None
        if default.startswith("[") and default.endswith("]"):
            inner = default[1:-1].strip()
            items = [x.strip() for x in inner.split(",")] if inner else []
        elif t.size is not None:
            items = [default]  # int[2] stride=1
        if items is None:
            raise bad()
        if t.size is not None and len(items) not in (0, 1, t.size) and default.startswith("["):
            raise bad()
        elem = Type(t.base)
        for x in items:
            check_default(arg_name, elem, x) if x else None
        return
    ok = {
        "int": lambda d: bool(_INT_RE.match(d)),
        "float": lambda d: bool(_FLOAT_RE.match(d)),
        "Scalar": lambda d: bool(_FLOAT_RE.match(d)) or d in ("True", "False"),
        "bool": lambda d: d in ("True", "False"),
        "str": lambda d: len(d) >= 2 and d[0] == d[-1] and d[0] in "'\"",
    }[t.base](default)
    if not ok:
        raise bad()


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


@dataclass(frozen=True)
class FunctionSchema:
    name: str
    overload: str
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    _RE = re.compile(r"^([a-z_][a-z0-9_]*)(?:\.([A-Za-z0-9_]+))?\((.*)\)\s*->\s*(.+)$", re.S)

    @staticmethod
    def parse(func: str) -> "FunctionSchema":
        m = FunctionSchema._RE.match(func.strip())
        if not m:
            raise ValueError(f"cannot parse func '{func}': expected name.overload(Type arg, ...) -> Ret")
        name, overload, args_text, ret_text = m.group(1), m.group(2) or "", m.group(3), m.group(4).strip()
        if name.endswith("_"):
            raise ValueError(f"op name '{name}' ends with '_': declare the functional op and add "
                             "`inplace` to its variants")
        args, kwonly, seen = [], False, set()
        for part in _split_top(args_text):
            if part == "*":
                if kwonly:
                    raise ValueError("'*' appears twice")
                kwonly = True
                continue
            am = re.match(r"^(\S+)\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s*=\s*(.+))?$", part)
            if not am:
                raise ValueError(f"cannot parse argument '{part}'")
            t = Type.parse(am.group(1), am.group(2))
            if am.group(2) in seen:
                raise ValueError(f"duplicate argument '{am.group(2)}'")
            if am.group(2) in ("out", "grad", "result", "grads", "grad_input_mask"):
                raise ValueError(f"argument name '{am.group(2)}' is reserved")
            seen.add(am.group(2))
            default = am.group(3).strip() if am.group(3) else None
            if default is not None:
                check_default(am.group(2), t, default)
            args.append(Argument(am.group(2), t, default, kwonly))
        for a, b in zip(args, args[1:]):
            if a.default is not None and b.default is None and not b.kwonly and not a.kwonly:
                raise ValueError(f"argument '{b.name}' without a default follows '{a.name}' with one")
        rets = []
        if ret_text != "()":
            inner = ret_text[1:-1] if ret_text.startswith("(") and not ret_text.startswith("()") \
                and ret_text.endswith(")") and "," in ret_text else ret_text
            for part in _split_top(inner):
                bits = part.split()
                rname = bits[1] if len(bits) == 2 else None
                if len(bits) not in (1, 2):
                    raise ValueError(f"cannot parse return '{part}'")
                rt = Type.parse(bits[0], rname or "return")
                if rt.base != "Tensor" and rt.base not in ("Scalar", "int", "float", "bool"):
                    raise ValueError(f"unsupported return type '{rt}'")
                rets.append(Return(rname, rt))
        return FunctionSchema(name, overload, tuple(args), tuple(rets))

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def key(self) -> str:
        """File and symbol stem: add_Tensor, sum, sum_dim_IntList."""
        return f"{self.name}_{self.overload}" if self.overload else self.name

    @property
    def tensor_args(self) -> list[Argument]:
        return [a for a in self.arguments if a.type.base == "Tensor"]

    @property
    def return_names(self) -> list[str]:
        """How formulas name the returns: their names, `result` for one unnamed return, else result0, result1..."""
        return [r.name or ("result" if len(self.returns) == 1 else f"result{i}") for i, r in enumerate(self.returns)]

    @property
    def is_view(self) -> bool:
        return any(r.type.alias for r in self.returns)

    def arg(self, name: str) -> Argument | None:
        return next((a for a in self.arguments if a.name == name), None)

    def __str__(self) -> str:
        args, star = [], False
        for a in self.arguments:
            if a.kwonly and not star:
                args.append("*")
                star = True
            args.append(str(a))
        if len(self.returns) == 1 and self.returns[0].name is None:
            ret = str(self.returns[0].type)
        else:
            ret = "(" + ", ".join(f"{r.type}" + (f" {r.name}" if r.name else "") for r in self.returns) + ")"
        return f"{self.full_name}({', '.join(args)}) -> {ret}"


# ------------------------------------------------------------------ one entry

# Metadata methods a formula may call on a tensor argument or a return (`self.sizes()`): the node saves the
# value at forward time, not the tensor. method -> (C++ member type, how it is read, the type the formula
# sees when that differs).
METADATA = {
    "sizes": ("std::vector<int64_t>", "{t}.sizes().vec()", "IntArrayRef"),
    "strides": ("std::vector<int64_t>", "{t}.strides().vec()", "IntArrayRef"),
    "dim": ("int64_t", "{t}.dim()", None),
    "numel": ("int64_t", "{t}.numel()", None),
    "scalar_type": ("ScalarType", "{t}.scalar_type()", None),
    "device": ("Device", "{t}.device()", None),
    "is_contiguous": ("bool", "{t}.is_contiguous()", None),
    "is_complex": ("bool", "is_complex_type({t}.scalar_type())", None),
}


@dataclass(frozen=True)
class Expr:
    """An expression of the schema, parsed once (codegen/expr.py) when it loads."""
    text: str  # as written
    tree: object  # its expr.* node
    line: int


@dataclass(frozen=True)
class Promotion:
    """How the result dtype follows the inputs: kind (default, int_to_float, ...) over args."""
    kind: str
    args: tuple[str, ...]


# `dispatch: {cpu: on_host, cuda: g}`: the CPU runs the host compilation of the CUDA kernel g.
ON_HOST = "on_host"


# What an op is: exactly one implementation.

@dataclass(frozen=True)
class Pointwise:
    """`pointwise:` an expression per dtype category; CPU and CUDA kernels are generated from it."""
    exprs: dict  # "floating" / "integral" / "bool" -> Expr
    meta: str  # broadcast or same_as_self
    kind = "pointwise"


@dataclass(frozen=True)
class Kernels:
    """`dispatch: {cpu: f, cuda: g}`: hand-written out-kernels, sized by `meta`. `cpu: on_host` makes the CPU
    run g's host compilation (a kernel written once in kernels/gpu/, as fast there as a CPU kernel)."""
    cpu: str | None
    cuda: str | None
    meta: str  # a built-in rule or a C++ function in namespace meta
    kind = "dispatch"

    @property
    def cpu_on_host(self) -> bool:
        return self.cpu == ON_HOST


@dataclass(frozen=True)
class AnyDevice:
    """`dispatch: {any: f}`: one device-generic function that returns its result (views, metadata)."""
    fn: str
    kind = "any"


@dataclass(frozen=True)
class Composite:
    """`composite: true`: written with other ops in csrc/composite/<op>.cpp."""
    kind = "composite"


@dataclass(frozen=True)
class Formula:
    """One derivative formula: the gradient of one input (`self: ...`) or of several (`"self, other": ...`)."""
    inputs: tuple[str, ...]
    expr: Expr

    @property
    def joint(self) -> bool:
        return len(self.inputs) > 1


@dataclass(frozen=True)
class Jvp:
    """Forward mode: `elementwise` (the backward formulas on the tangents), `linear` (the op on the
    tangents) or `formulas`, one per differentiable return."""
    kind: str
    formulas: dict  # return name ("result" for one unnamed return) -> Expr; kind formulas only
    per_output: bool  # written as a mapping {return: formula}
    line: int


@dataclass(frozen=True)
class Derivatives:
    """An op's `derivatives:` and `jvp:`: formulas per input, what is not differentiable, what is saved when."""
    formulas: tuple[Formula, ...]
    nondiff: tuple[str, ...]
    nondiff_outputs: tuple[str, ...]
    save_if: dict  # saved tensor -> Expr over the non-tensor arguments: saved only when it holds
    zero_fill: bool  # several differentiable outputs: undefined gradients become zeros before the formulas
    jvp: Jvp | None
    line: int


@dataclass(frozen=True)
class TestSpec:
    domain: tuple | None = None
    xfail: str | None = None  # the reason
    not_twice_differentiable: str | None = None  # the reason


@dataclass
class NativeFunction:
    schema: FunctionSchema
    line: int
    lines: dict  # key -> the line it is on
    variants: tuple[str, ...]
    dtypes: str  # the set's name (all, floating...) or the listed dtypes joined by ", "
    dtype_list: tuple[str, ...]
    promotion: Promotion | None
    impl: Pointwise | Kernels | AnyDevice | Composite
    checks: tuple[tuple[str, str], ...]  # (C++ condition, message), checked before the kernel runs
    # (Scalar argument, "dtype" | "opmath" | "integral"): numbers that must fit the op's dtype (check_args)
    checked_scalars: tuple[tuple[str, str], ...]
    # Tensor inputs that may not overlap an out= or in-place target at all (others: not partially)
    no_overlap: tuple[str, ...]
    derivatives: Derivatives | None
    python_module: str | None
    tags: tuple[str, ...]
    doc: str | None
    test: TestSpec
    # Inside an autocast region, per device (cpu, cuda): "lower" (the region's lower-precision dtype),
    # "fp32", "promote" (the widest floating input's dtype) or None (the op runs as called).
    autocast: tuple[str | None, str | None] = (None, None)

    @property
    def name(self) -> str:
        return self.schema.name

    @property
    def key(self) -> str:
        return self.schema.key

    @property
    def kind(self) -> str:
        return self.impl.kind

    @property
    def meta(self) -> str | None:
        return getattr(self.impl, "meta", None)

    @property
    def differentiable(self) -> bool:
        return self.derivatives is not None and bool(self.derivatives.formulas)

    @property
    def nondiff(self) -> tuple[str, ...]:
        return self.derivatives.nondiff if self.derivatives else ()
