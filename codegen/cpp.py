"""C++ spellings of the model: parameter types, defaults, signatures."""
from __future__ import annotations

from .model import Argument, FunctionSchema, NativeFunction, Type

DTYPE_ENUM = {
    "bool": "Bool", "uint8": "UInt8", "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64",
    "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
    "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}
DTYPE_CPP = {
    "bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
    "int64": "int64_t", "float16": "Half", "bfloat16": "BFloat16", "float32": "float", "float64": "double",
    "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t", "complex64": "Complex<float>",
    "complex128": "Complex<double>",
}


def param_type(t: Type) -> str:
    """The C++ type of a parameter of schema type t."""
    if t.elem_optional:
        return "ArrayRef<std::optional<Tensor>>"
    if t.is_list:
        base = {"Tensor": "ArrayRef<Tensor>", "int": "IntArrayRef", "float": "ArrayRef<double>",
                "bool": "ArrayRef<bool>"}[t.base]
        return f"std::optional<{base}>" if t.optional else base
    base = {"Tensor": "Tensor", "Scalar": "Scalar", "int": "int64_t", "float": "double", "bool": "bool",
            "str": "std::string_view", "ScalarType": "ScalarType", "Device": "Device",
            "Generator": "Generator"}[t.base]
    if t.optional:
        base = f"std::optional<{base}>"
    if base in ("Tensor", "Scalar", "Generator", "std::optional<Tensor>", "std::optional<Scalar>",
                "std::optional<Generator>"):
        return f"const {base}&"
    return base


def _literal(t: Type, text: str) -> str:
    if text == "None":
        return "std::nullopt"
    if text in ("True", "False"):
        return "true" if text == "True" else "false"
    if text in ("inf", "-inf"):
        return ("-" if text[0] == "-" else "") + "std::numeric_limits<double>::infinity()"
    if t.base == "float" and "." not in text and "e" not in text.lower():
        return text + ".0"
    if t.base == "Scalar" and "." not in text and "e" not in text.lower():
        return f"int64_t({text})"
    if t.base == "str":
        return '"' + text[1:-1] + '"'
    return text


def list_items(t: Type, default: str) -> list[str]:
    if default.startswith("["):
        inner = default[1:-1].strip()
        items = [x.strip() for x in inner.split(",")] if inner else []
    else:
        items = [default]
    if t.size and len(items) == 1:
        items = items * t.size
    return items


def default_decl(a: Argument) -> str:
    """The default as written in a C++ declaration: ` = 1`, or ''."""
    if a.default is None:
        return ""
    if a.default != "None" and a.type.is_list:
        items = list_items(a.type, a.default)
        return " = {" + ", ".join(_literal(Type(a.type.base), x) for x in items) + "}"
    return " = " + _literal(a.type, a.default)


def params(schema: FunctionSchema, defaults: bool, skip_self: bool = False, first_default: int = 0) -> list[str]:
    """C++ parameters; with defaults, only parameters from index first_default on keep theirs."""
    out = []
    for i, a in enumerate(schema.arguments):
        if skip_self and a.name == "self":
            continue
        out.append(f"{param_type(a.type)} {a.name}" + (default_decl(a) if defaults and i >= first_default else ""))
    return out


def _callable_counts(schema: FunctionSchema) -> range:
    required = len(schema.arguments)
    while required and schema.arguments[required - 1].default is not None:
        required -= 1
    return range(required, len(schema.arguments) + 1)


def first_defaults(schemas: list[FunctionSchema]) -> dict[str, int]:
    """Overloads of one C++ name whose default arguments would make a call ambiguous (`all(self)` and
    `all(self, dim=None, keepdim=False)` both take `all(x)`): for each, the index of its first parameter
    that may keep a default, so that the longer (or later) overload needs more arguments than the other takes."""
    firsts = {s.full_name: 0 for s in schemas}
    types = {s.full_name: [param_type(a.type) for a in s.arguments] for s in schemas}
    for j, b in enumerate(schemas):
        for i, a in enumerate(schemas):
            # The longer overload gives way; of two as long, the later one.
            if a is b or len(a.arguments) > len(b.arguments) or (len(a.arguments) == len(b.arguments) and i > j):
                continue
            for k in _callable_counts(a):
                if k in _callable_counts(b) and types[a.full_name][:k] == types[b.full_name][:k]:
                    firsts[b.full_name] = max(firsts[b.full_name], k + 1)
    return firsts


def return_type(schema: FunctionSchema) -> str:
    if not schema.returns:
        return "void"
    if len(schema.returns) == 1:
        return _ret(schema.returns[0].type)
    return "std::tuple<" + ", ".join(_ret(r.type) for r in schema.returns) + ">"


def _ret(t: Type) -> str:
    return {"Tensor": "Tensor", "Scalar": "Scalar", "int": "int64_t", "float": "double", "bool": "bool"}[t.base] \
        if not t.is_list else "std::vector<Tensor>"


def arg_names(schema: FunctionSchema) -> list[str]:
    return [a.name for a in schema.arguments]


def dtype_enum(d: str) -> str:
    return "ScalarType::" + DTYPE_ENUM[d]


def python_default_value(a: Argument) -> str:
    """C++ expression for a Python-side default (used when an argument is omitted)."""
    t = a.type
    if a.default == "None":
        return "std::nullopt"
    if t.is_list:
        return "IntArrayRef(kDefault_" + a.name + ")"
    if t.base == "Scalar":
        return f"Scalar({_literal(t, a.default)})"
    return _literal(t, a.default)


def needs_static_default(a: Argument) -> str | None:
    if a.default is not None and a.default != "None" and a.type.is_list:
        items = list_items(a.type, a.default)
        # Zero-length C arrays are not allowed: keep one unused slot.
        return f"static const int64_t kDefault_{a.name}_data[] = {{{', '.join(items) or '0'}}};\n" \
               f"  static const IntArrayRef kDefault_{a.name}(kDefault_{a.name}_data, {len(items)});"
    return None


def doc_comment(nf: NativeFunction) -> str:
    return f"// {nf.schema}"
