"""Python bindings: grouping overloads under one Python name, in PyTorch's order."""
from __future__ import annotations

import zlib
from dataclasses import dataclass

from .model import Argument, NativeFunction, Type

NUM_SHARDS = 8

# Runtime parser kinds (csrc/python/ArgParser.h, enum class ArgKind).
def arg_kind(t: Type) -> str:
    if t.elem_optional:
        return "OptTensorList"
    if t.is_list:
        return {"Tensor": "TensorList", "int": "IntList", "float": "FloatList", "bool": "BoolList"}[t.base]
    return {"Tensor": "Tensor", "Scalar": "Scalar", "int": "Int", "float": "Float", "bool": "Bool", "str": "String",
            "ScalarType": "ScalarType", "Device": "Device", "Generator": "Generator"}[t.base]


def python_type_name(t: Type) -> str:
    return str(t.without_alias)


@dataclass
class PyParam:
    name: str
    type: Type
    default: str | None
    kwonly: bool
    is_out: bool = False
    python_only: bool = False  # requires_grad= of factories: applied to the result, not passed to C++

    @property
    def display(self) -> str:
        return f"{python_type_name(self.type)} {self.name}" + (f"={self.default}" if self.default is not None
                                                               else "")


@dataclass
class PySignature:
    nf: NativeFunction
    kind: str  # function | method | inplace
    params: list[PyParam]
    has_out: bool

    @property
    def display(self) -> str:
        parts, star = [], False
        for p in self.params:
            if p.kwonly and not star:
                parts.append("*")
                star = True
            parts.append(p.display)
        return f"({', '.join(parts)})"


@dataclass
class PyName:
    name: str  # Python name: add, add_, sum
    module: str  # "functions", "nn", ... or "method"
    base: str  # op base name, picks the shard
    signatures: list[PySignature]

    @property
    def shard(self) -> int:
        return zlib.crc32(self.base.encode()) % NUM_SHARDS


def _params(nf: NativeFunction, kind: str) -> list[PyParam]:
    out = []
    for a in nf.schema.arguments:
        if kind in ("method", "inplace") and a.name == "self":
            continue
        out.append(PyParam(a.name, a.type, a.default, a.kwonly))
    if kind == "function" and "out" in nf.variants:
        n = len(nf.schema.returns)
        # Several returns: out= takes a tuple of that many tensors (torch.max(x, 0, out=(values, indices))).
        t = Type("Tensor", is_list=True, size=n, optional=True) if n > 1 else Type("Tensor", optional=True)
        out.append(PyParam("out", t, "None", True, is_out=True))
    if takes_requires_grad(nf, kind):
        out.append(PyParam("requires_grad", Type("bool"), "False", True, python_only=True))
    return out


def takes_requires_grad(nf: NativeFunction, kind: str) -> bool:
    """Factories (a keyword-only `Device? device`) take PyTorch's `requires_grad=False` in Python."""
    d = nf.schema.arg("device")
    return (kind in ("function", "method") and d is not None and d.type.base == "Device" and d.kwonly
            and not nf.name.startswith("_"))


def _rank(t: Type) -> int:
    # PyTorch's order: Tensor before Scalar, int before int[].
    if t.base == "Scalar" or (t.is_list and t.base == "int"):
        return 1
    return 0


def _sort_key(sig: PySignature):
    # Overloads tagged `deprecated` (add(a, 10, b)) come last, as in PyTorch.
    return ("deprecated" in sig.nf.tags,) + tuple(_rank(p.type) for p in sig.params if not p.kwonly)


def python_names(functions: list[NativeFunction]) -> list[PyName]:
    groups: dict[tuple[str, str], PyName] = {}

    def add(name, module, nf, kind):
        key = (module, name)
        if key not in groups:
            groups[key] = PyName(name, module, nf.name, [])
        groups[key].signatures.append(PySignature(nf, kind, _params(nf, kind), kind == "function" and
                                                  "out" in nf.variants))

    for nf in functions:
        module = {None: "functions", "nn.functional": "nn", "linalg": "linalg", "special": "special",
                  "fft": "fft"}[nf.python_module]
        if "function" in nf.variants:
            add(nf.name, module, nf, "function")
        if "method" in nf.variants:
            add(nf.name, "method", nf, "method")
        if "inplace" in nf.variants:
            add(nf.name + "_", "method", nf, "inplace")
    for g in groups.values():
        g.signatures.sort(key=_sort_key)  # stable: YAML order among equals
    return sorted(groups.values(), key=lambda g: (g.module, g.name))


def allows_number(nf: NativeFunction, a: PyParam) -> bool:
    """Python numbers are accepted for the Tensor arguments of ops that promote over their operands, and
    for the non-self ones of composite ops (which pass them on to such ops: div(a, 2, rounding_mode=
    'floor')). `self` takes a number only in ops with several Tensor operands (torchlite.add(1, t); the
    method variant's self is always the tensor). Ops whose result takes self's dtype (copy_, lerp) want
    tensors, as in PyTorch, and so do ops tagged `no_python_numbers` (maximum, atan2: PyTorch has no Scalar
    overload for them; max.other: max(x, 1) means a dim, not max(x, other))."""
    if not a.type.is_tensor or a.type.is_list or a.is_out or "no_python_numbers" in nf.tags:
        return False
    promotes = nf.promotion is not None and nf.promotion.kind != "self_dtype"
    if a.name == "self":
        return promotes and sum(1 for x in nf.schema.arguments if x.type.is_tensor and not x.type.is_list) > 1
    return promotes or nf.kind == "composite"


def pyi_type(t: Type, number_ok: bool = False) -> str:
    if t.is_list:
        inner = {"Tensor": "Tensor", "int": "int", "float": "float", "bool": "bool"}[t.base]
        if t.elem_optional:
            inner = "Tensor | None"
        base = f"Sequence[{inner}]" + (" | int" if t.base == "int" and t.size else "")
    else:
        base = {"Tensor": "Tensor", "Scalar": "Number", "int": "int", "float": "float", "bool": "bool",
                "str": "str", "ScalarType": "dtype", "Device": "device | str", "Generator": "Generator"}[t.base]
        if number_ok:
            base = "Tensor | Number"
    return base + (" | None" if t.optional else "")


def pyi_default(p: PyParam) -> str:
    if p.default is None:
        return ""
    d = p.default
    if d.startswith("["):
        d = "(" + d[1:-1] + ("," if d[1:-1].strip() and "," not in d else "") + ")"
    return f" = {d}"
