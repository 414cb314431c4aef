"""Loading native_functions.yaml into the typed model, and every rule the schema must follow.

All validation lives here: one parse function per schema key builds its part of the model
(codegen/model.py), every expression is parsed once into a tree (codegen/expr.py), and the rules that
need the whole schema (op names, helpers) run on the model and those trees. Any schema that loads is one
that the generator generates and whose C++ compiles. Every problem raises SchemaError, whose message reads
`FILE:LINE: op: message` with the file that was given.
"""
from __future__ import annotations

import os
import re

import yaml

from . import expr as E
from .model import (METADATA, ON_HOST, AnyDevice, Composite, Derivatives, Expr, Formula, FunctionSchema, Jvp,
                    Kernels, NativeFunction, Pointwise, Promotion, SchemaError, TestSpec)

KNOWN_KEYS = ("func", "variants", "dtypes", "promotion", "pointwise", "dispatch", "meta", "composite",
              "checks", "checked_scalars", "no_overlap", "derivatives", "jvp", "python_module", "tags", "doc", "test",
              "autocast")
CHECKED_SCALAR_TARGETS = ("dtype", "opmath", "integral")
AUTOCAST_POLICIES = ("lower", "fp32", "promote")
VARIANTS = ("function", "method", "inplace", "out")
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
FLOATING = ("float16", "bfloat16", "float32", "float64")
INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")
# PyTorch's barebones unsigned types (few ops) and the complex types: in no set but their own, `every`, and
# the *_and_complex ones; an op lists them to support them.
UNSIGNED = ("uint16", "uint32", "uint64")
COMPLEX = ("complex64", "complex128")
ALL_DTYPES = DTYPES + UNSIGNED + COMPLEX
DTYPE_SETS = {
    "all": DTYPES,
    "all_but_bool": DTYPES[1:],
    "floating": FLOATING,
    "integral": INTEGRAL,
    "integral_and_bool": ("bool",) + INTEGRAL,
    "complex": COMPLEX,
    "all_and_complex": DTYPES + COMPLEX,
    "all_but_bool_and_complex": DTYPES[1:] + COMPLEX,
    "floating_and_complex": FLOATING + COMPLEX,
    "every": ALL_DTYPES,
}
PROMOTIONS = ("default", "int_to_float", "always_bool", "self_dtype", "int_to_long")
BUILTIN_METAS = ("broadcast", "same_as_self", "reduction")
POINTWISE_CATEGORIES = ("floating", "integral", "bool", "complex")
PYTHON_MODULES = ("nn.functional", "linalg", "special", "fft")
TEST_KEYS = ("domain", "xfail", "not_twice_differentiable")
DERIVATIVE_META_KEYS = ("nondiff", "nondiff_outputs", "save_if", "zero_fill")
JVP_KINDS = ("elementwise", "linear")
SCALAR_ARG_BASES = ("Tensor", "Scalar", "int", "float", "bool")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Operators a pointwise expression may use (C semantics on the op-math type).
POINTWISE_OPS = ("+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "!", "&", "|", "^", "~")

HERE = os.path.dirname(os.path.abspath(__file__))


def dtype_category(dtype: str) -> str:
    if dtype in COMPLEX:
        return "complex"
    return "bool" if dtype == "bool" else "integral" if dtype in INTEGRAL + UNSIGNED else "floating"


def _name_list(value) -> list[str] | None:
    """A list of names written as [a, b] or "a, b"; None when it is neither."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


# ------------------------------------------------------------------ YAML with line numbers

class _LineLoader(yaml.SafeLoader):
    """Records the line of every mapping and of each of its keys."""


class _LinedDict(dict):
    line: int
    lines: dict


def _construct_mapping(loader, node, deep=False):
    mapping, lines = {}, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise SchemaError(f"duplicate key '{key}'", key_node.start_mark.line + 1)
        mapping[key] = loader.construct_object(value_node, deep=True)
        lines[key] = key_node.start_mark.line + 1
    result = _LinedDict(mapping)
    result.line = node.start_mark.line + 1
    result.lines = lines
    return result


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


# ------------------------------------------------------------------ entry points

def load_helpers(path: str | None = None) -> dict:
    with open(path or os.path.join(HERE, "helpers.yaml")) as f:
        return yaml.safe_load(f)


def display_path(path: str) -> str:
    """The schema file as errors name it: relative to the working directory when it lies below it."""
    rel = os.path.relpath(os.path.abspath(path))
    return path if rel.startswith("..") else rel


def load(path: str, helpers: dict | None = None) -> list[NativeFunction]:
    with open(path) as f:
        text = f.read()
    return load_text(text, helpers, display_path(path))


def load_text(text: str, helpers: dict | None = None, filename: str = "native_functions.yaml"
              ) -> list[NativeFunction]:
    helpers = helpers or load_helpers()
    try:
        entries = yaml.load(text, Loader=_LineLoader)
    except SchemaError as e:
        raise SchemaError(e.message, e.line, None, filename) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise SchemaError(f"invalid YAML: {getattr(e, 'problem', e)}", mark.line + 1 if mark else None,
                          None, filename) from None
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise SchemaError("the file must be a list of entries (- func: ...)", 1, None, filename)
    functions, seen = [], {}
    for raw in entries:
        nf = _parse_entry(_Entry(raw, filename))
        prev = seen.get(nf.schema.full_name)
        if prev is not None:
            raise SchemaError(f"duplicate overload '{nf.schema.full_name}' (first defined at line {prev})",
                              nf.line, nf.schema.full_name, filename)
        seen[nf.schema.full_name] = nf.line
        functions.append(nf)
    _check_cpp_names(functions, filename)
    _check_return_names(functions, filename)
    names = _Names(helpers, {f.name for f in functions})
    for nf in functions:
        _check_expressions(nf, names, filename)
    return functions


class _Entry:
    """One raw YAML entry while it is parsed: its keys, their lines, and errors that point at them."""

    def __init__(self, raw, filename: str):
        if not isinstance(raw, dict) or "func" not in raw:
            raise SchemaError("each entry must be a mapping with a `func:` key", getattr(raw, "line", None), None,
                              filename)
        self.raw, self.filename, self.line = raw, filename, raw.line
        self.op = str(raw["func"]).split("(")[0].strip()  # the full name once func parses

    def get(self, key, default=None):
        return self.raw.get(key, default)

    def err(self, message: str, key: str | None = None) -> SchemaError:
        line = self.raw.lines.get(key, self.line) if key else self.line
        return SchemaError(message, line, self.op, self.filename)

    def err_at(self, message: str, line: int | None) -> SchemaError:
        return SchemaError(message, line or self.line, self.op, self.filename)

    def parse_expr(self, text, what: str, line: int) -> Expr:
        text = str(text)
        try:
            return Expr(text, E.parse(text), line)
        except ValueError as e:
            raise self.err_at(f"{what}: {e}", line) from None


def _parse_entry(e: _Entry) -> NativeFunction:
    for key in e.raw:
        if key not in KNOWN_KEYS:
            raise e.err(f"unknown key '{key}' (known keys: {', '.join(KNOWN_KEYS)})", key)
    schema = _parse_func(e)
    variants = _parse_variants(e)
    dtypes_name, dtype_list = _parse_dtypes(e)
    promotion = _parse_promotion(e, schema)
    impl = _parse_impl(e, schema, promotion, dtypes_name, dtype_list)
    checks = _parse_checks(e)
    checked_scalars = _parse_checked_scalars(e, schema)
    no_overlap = _parse_no_overlap(e, schema, impl, variants)
    tags = _parse_tags(e)
    _check_views(e, schema, impl, variants, tags)
    _check_variants(e, schema, impl, variants)
    derivatives = _parse_derivatives(e, schema, impl)
    return NativeFunction(
        schema=schema, line=e.line, lines=dict(e.raw.lines), variants=variants, dtypes=dtypes_name,
        dtype_list=dtype_list, promotion=promotion, impl=impl, checks=checks, checked_scalars=checked_scalars,
        no_overlap=no_overlap,
        derivatives=derivatives,
        python_module=_parse_python_module(e), tags=tags, doc=_parse_doc(e), test=_parse_test(e),
        autocast=_parse_autocast(e, schema))


# ------------------------------------------------------------------ one parse function per key

def _parse_func(e: _Entry) -> FunctionSchema:
    try:
        schema = FunctionSchema.parse(str(e.get("func")))
    except ValueError as err:
        raise e.err(str(err), "func") from None
    e.op = schema.full_name
    return schema


def _parse_variants(e: _Entry) -> tuple[str, ...]:
    variants = _name_list(e.get("variants", ["function"]))
    if not variants:
        raise e.err(f"variants must be a non-empty list of {', '.join(VARIANTS)}", "variants")
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        raise e.err(f"unknown variant '{bad[0]}' (known: {', '.join(VARIANTS)})", "variants")
    return tuple(v for v in VARIANTS if v in variants)


def _parse_dtypes(e: _Entry) -> tuple[str, tuple[str, ...]]:
    dtypes = e.get("dtypes", "all")
    if isinstance(dtypes, list):
        if not dtypes:
            raise e.err("dtypes is an empty list: name a set or at least one dtype", "dtypes")
        bad = [d for d in dtypes if d not in ALL_DTYPES]
        if bad:
            raise e.err(f"unknown dtype '{bad[0]}' in dtypes (known: {', '.join(ALL_DTYPES)})", "dtypes")
        listed = tuple(d for d in ALL_DTYPES if d in dtypes)
        return ", ".join(listed), listed
    if dtypes in DTYPE_SETS:
        return dtypes, DTYPE_SETS[dtypes]
    raise e.err(f"unknown dtypes '{dtypes}' (known sets: {', '.join(DTYPE_SETS)}, or a list of dtypes)", "dtypes")


def _parse_promotion(e: _Entry, schema: FunctionSchema) -> Promotion | None:
    promotion, args = e.get("promotion"), ()
    if isinstance(promotion, dict):
        if len(promotion) != 1:
            raise e.err("promotion as a mapping takes one kind: {default: [self, other]}", "promotion")
        promotion, listed = next(iter(promotion.items()))
        names = _name_list(listed if listed is not None else [])
        if names is None:
            raise e.err("promotion as a mapping lists argument names: {default: [self, other]}", "promotion")
        args = tuple(names)
        for a in args:
            arg = schema.arg(a)
            if arg is None or arg.type.base not in ("Tensor", "Scalar") or arg.type.is_list:
                raise e.err(f"promotion names '{a}', which is not a Tensor or Scalar argument", "promotion")
    if promotion is None:
        return None
    if promotion not in PROMOTIONS:
        raise e.err(f"unknown promotion '{promotion}' (known: {', '.join(PROMOTIONS)})", "promotion")
    if not args:
        args = tuple(a.name for a in schema.tensor_args if not a.type.is_list)
    if promotion in ("self_dtype", "int_to_long") and schema.arg("self") is None:
        raise e.err(f"promotion {promotion} needs a Tensor argument named 'self'", "promotion")
    return Promotion(promotion, args)


def _parse_pointwise(e: _Entry) -> dict | None:
    pointwise = e.get("pointwise")
    if pointwise is None:
        return None
    if isinstance(pointwise, (int, float)) and not isinstance(pointwise, bool):
        pointwise = str(pointwise)
    if isinstance(pointwise, str):
        pointwise = {c: pointwise for c in POINTWISE_CATEGORIES}
    elif isinstance(pointwise, dict):
        for k in pointwise:
            if k not in POINTWISE_CATEGORIES:
                raise e.err(f"unknown dtype category '{k}' in pointwise (known: {', '.join(POINTWISE_CATEGORIES)})",
                            "pointwise")
    else:
        raise e.err("pointwise must be an expression or a map by dtype category", "pointwise")
    line = e.raw.lines.get("pointwise", e.line)
    return {k: e.parse_expr(v, f"pointwise expression '{v}'", line) for k, v in pointwise.items()}


def _parse_dispatch(e: _Entry) -> dict | None:
    dispatch = e.get("dispatch")
    if dispatch is None:
        return None
    if not isinstance(dispatch, dict) or not dispatch:
        raise e.err("dispatch must be a mapping {cpu: f, cuda: g} or {any: f}", "dispatch")
    for k, v in dispatch.items():
        if k not in ("cpu", "cuda", "any"):
            raise e.err(f"unknown dispatch key '{k}' (known: cpu, cuda, any)", "dispatch")
        if not isinstance(v, str) or not IDENT_RE.match(v):
            raise e.err(f"dispatch {k}: '{v}' is not a C++ function name", "dispatch")
    if "any" in dispatch and len(dispatch) > 1:
        raise e.err("dispatch 'any' serves every device: it cannot be combined with cpu or cuda", "dispatch")
    for k, v in dispatch.items():
        if v == ON_HOST and (k != "cpu" or not dispatch.get("cuda")):
            raise e.err(f"dispatch {k}: '{ON_HOST}' names the host compilation of the CUDA kernel: write "
                        f"{{cpu: {ON_HOST}, cuda: g}}", "dispatch")
    return dict(dispatch)


def _parse_impl(e: _Entry, schema: FunctionSchema, promotion: Promotion | None, dtypes_name: str,
                dtype_list: tuple[str, ...]):
    """pointwise, dispatch or composite (exactly one), with `meta`: the op's implementation."""
    pointwise = _parse_pointwise(e)
    dispatch = _parse_dispatch(e)
    composite = e.get("composite", False)
    if composite not in (True, False):
        raise e.err("composite must be true or false", "composite")
    impls = [k for k, present in (("pointwise", pointwise is not None), ("dispatch", dispatch is not None),
                                  ("composite", composite)) if present]
    if not impls:
        raise e.err("no implementation: give one of pointwise, dispatch or composite")
    if len(impls) > 1:
        raise e.err(f"more than one implementation: {' and '.join(impls)} (give exactly one)", impls[1])

    meta = e.get("meta")
    if meta is not None and (not isinstance(meta, str) or not IDENT_RE.match(meta)):
        raise e.err(f"meta '{meta}' is neither a built-in ({', '.join(BUILTIN_METAS)}) nor a C++ function name",
                    "meta")
    kernels = dispatch is not None and "any" not in dispatch
    if kernels and meta is None:
        raise e.err("dispatch with out-kernels needs meta (a built-in rule or a C++ function) to size the output",
                    "dispatch")
    if kernels and meta in BUILTIN_METAS and promotion is None:
        raise e.err(f"meta {meta} takes the result dtype from promotion: add promotion ({', '.join(PROMOTIONS)})",
                    "meta")
    if dispatch is not None and "any" in dispatch and meta is not None:
        raise e.err("meta is not used with dispatch 'any' (the function returns its result)", "meta")
    if composite and meta is not None:
        raise e.err("meta is not used with composite ops", "meta")

    if pointwise is not None:
        if promotion is None:
            raise e.err("pointwise ops need promotion (default, int_to_float, always_bool, self_dtype, int_to_long)")
        if len(schema.returns) != 1 or not schema.returns[0].type.is_tensor:
            raise e.err("pointwise ops return exactly one Tensor", "func")
        if meta is not None and meta not in ("broadcast", "same_as_self"):
            raise e.err(f"pointwise ops take meta broadcast or same_as_self, not '{meta}'", "meta")
        for a in schema.arguments:
            if a.type.base == "Tensor" and (a.type.optional or a.type.is_list):
                raise e.err(f"pointwise ops take plain Tensor arguments; '{a.name}' is {a.type}", "func")
        needed = {dtype_category(d) for d in dtype_list}
        missing = [c for c in POINTWISE_CATEGORIES if c in needed and c not in pointwise]
        if missing:
            raise e.err(f"pointwise has no expression for {missing[0]} dtypes, which dtypes '{dtypes_name}' "
                        "includes", "pointwise")
        tensors = [a.name for a in schema.arguments if a.type.is_tensor]
        return Pointwise(pointwise, meta or ("same_as_self" if tensors == ["self"] else "broadcast"))
    if meta == "reduction" and schema.arg("self") is None:
        raise e.err("meta reduction needs a Tensor argument named 'self'", "meta")
    if kernels and len(schema.returns) > 1 and meta in BUILTIN_METAS:
        raise e.err(f"meta {meta} sizes one output: an op with several returns needs a C++ meta function "
                    f"returning std::array<TensorMeta, {len(schema.returns)}>", "meta")
    if kernels:
        return Kernels(dispatch.get("cpu"), dispatch.get("cuda"), meta)
    if dispatch is not None:
        return AnyDevice(dispatch["any"])
    return Composite()


def _parse_checks(e: _Entry) -> tuple[tuple[str, str], ...]:
    """`checks:` {C++ condition: message}; the conditions are C++, compiled as written."""
    checks = e.get("checks") or {}
    if not isinstance(checks, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                               for k, v in checks.items()):
        raise e.err("checks must map C++ conditions to error messages: {\"cond\": \"message\"}", "checks")
    return tuple((k, v) for k, v in checks.items())


def _parse_checked_scalars(e: _Entry, schema: FunctionSchema) -> tuple[tuple[str, str], ...]:
    """`checked_scalars: [min, max]` or `{value: opmath}`: Scalar arguments (or Tensor arguments, when the
    caller passed a Python number for them) that the kernel converts to the op's dtype (the computation
    dtype when the op has `promotion:`, else self's), refused when they do not fit it (PyTorch's checked
    conversion). `opmath` checks against float32 for float16/bfloat16, for the ops that
    PyTorch converts in float32; `integral` checks only integral dtypes (floating ones take the number as a
    double)."""
    value = e.get("checked_scalars")
    if value is None:
        return ()
    names = _name_list(value)
    if names is not None:
        pairs = [(n, "dtype") for n in names]
    elif isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        pairs = list(value.items())
    else:
        raise e.err("checked_scalars must be a list of Scalar arguments or {argument: dtype|opmath|integral}",
                    "checked_scalars")
    for name, target in pairs:
        arg = schema.arg(name)
        if (arg is None or arg.type.base not in ("Scalar", "Tensor") or arg.type.is_list
                or (arg.type.optional and arg.type.base == "Tensor")):
            raise e.err(f"checked_scalars: '{name}' is not a Scalar or Tensor argument of this op",
                        "checked_scalars")
        if target not in CHECKED_SCALAR_TARGETS:
            raise e.err(f"checked_scalars: '{name}: {target}': the target must be one of "
                        f"{', '.join(CHECKED_SCALAR_TARGETS)}", "checked_scalars")
    return tuple(pairs)


def _parse_no_overlap(e: _Entry, schema: FunctionSchema, impl, variants) -> tuple[str, ...]:
    """`no_overlap: [src]`: Tensor inputs of a kernel op's out= or in-place variant that may not share any
    memory with the written-to tensor (the kernel reads them after writing it). Every other input may overlap
    it fully but not partially (stage/Outputs.h)."""
    value = e.get("no_overlap")
    if value is None:
        return ()
    names = _name_list(value)
    if names is None:
        raise e.err("no_overlap must be a list of Tensor arguments", "no_overlap")
    if not isinstance(impl, Kernels) or not ({"inplace", "out"} & set(variants)):
        raise e.err("no_overlap is for ops with `dispatch:` kernels and an inplace or out variant", "no_overlap")
    for name in names:
        arg = schema.arg(name)
        if arg is None or arg.type.base != "Tensor":
            raise e.err(f"no_overlap: '{name}' is not a Tensor argument of this op", "no_overlap")
    return tuple(names)


def _parse_tags(e: _Entry) -> tuple[str, ...]:
    tags = _name_list(e.get("tags", []))
    if tags is None:
        raise e.err("tags must be a list of names", "tags")
    return tuple(tags)


def _parse_autocast(e: _Entry, schema: FunctionSchema) -> tuple[str | None, str | None]:
    """`autocast: lower` (both devices) or `autocast: {cpu: lower, cuda: fp32}`: how the op's floating Tensor
    inputs are cast inside an autocast region."""
    value = e.get("autocast")
    if value is None:
        return (None, None)
    if isinstance(value, str):
        value = {"cpu": value, "cuda": value}
    if not isinstance(value, dict) or not set(value) <= {"cpu", "cuda"}:
        raise e.err("autocast must be a policy or a map {cpu: policy, cuda: policy}", "autocast")
    for policy in value.values():
        if policy not in AUTOCAST_POLICIES:
            raise e.err(f"unknown autocast policy '{policy}' (known: {', '.join(AUTOCAST_POLICIES)})", "autocast")
    if not any(a.type.base == "Tensor" and not a.type.is_list for a in schema.arguments):
        raise e.err("autocast needs Tensor (or Tensor?) arguments to cast", "autocast")
    if any(a.type.base == "Tensor" and a.type.is_list for a in schema.arguments):
        raise e.err("autocast does not cast Tensor[] arguments", "autocast")
    return (value.get("cpu"), value.get("cuda"))


def _parse_python_module(e: _Entry) -> str | None:
    python_module = e.get("python_module")
    if python_module is not None and python_module not in PYTHON_MODULES:
        raise e.err(f"unknown python_module '{python_module}' (known: {', '.join(PYTHON_MODULES)})", "python_module")
    return python_module


def _parse_doc(e: _Entry) -> str | None:
    doc = e.get("doc")
    if doc is not None and not isinstance(doc, str):
        raise e.err("doc must be a string", "doc")
    return doc


def _parse_test(e: _Entry) -> TestSpec:
    test = e.get("test") or {}
    if not isinstance(test, dict):
        raise e.err("test must be a mapping", "test")
    for k in test:
        if k not in TEST_KEYS:
            raise e.err_at(f"unknown key '{k}' in test (known: {', '.join(TEST_KEYS)})",
                           getattr(test, "lines", {}).get(k))
    for k in ("xfail", "not_twice_differentiable"):
        v = test.get(k)
        if v is not None and (not isinstance(v, str) or not v.strip()):
            raise e.err(f"test {k} needs a reason: {k}: \"why\"", "test")
    domain = test.get("domain")
    if domain is not None and (not isinstance(domain, list) or len(domain) != 2
                               or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in domain)):
        raise e.err("test domain is [low, high]", "test")
    return TestSpec(tuple(domain) if domain else None, test.get("xfail"), test.get("not_twice_differentiable"))


def _check_views(e: _Entry, schema: FunctionSchema, impl, variants: tuple[str, ...], tags: tuple[str, ...]) -> None:
    if schema.is_view:
        aliases = {a.type.alias for a in schema.arguments if a.type.alias}
        for r in schema.returns:
            if r.type.alias and r.type.alias not in aliases:
                raise e.err(f"return alias ({r.type.alias}) matches no argument", "func")
        if "out" in variants:
            raise e.err("view ops (alias annotations) have no out variant", "variants")
        if not isinstance(impl, AnyDevice):
            raise e.err("view ops (alias annotations) are written as dispatch: {any: f}", "dispatch")
    elif any(a.type.alias for a in schema.arguments):
        raise e.err("an argument has an alias annotation but no return does: annotate the view's return "
                    "too, e.g. Tensor(a) self -> Tensor(a)", "func")
    elif isinstance(impl, AnyDevice) and schema.tensor_args and schema.returns and schema.returns[0].type.is_tensor \
            and "view" in tags:
        raise e.err("view ops carry alias annotations: Tensor(a) self -> Tensor(a)", "func")


def _check_variants(e: _Entry, schema: FunctionSchema, impl, variants: tuple[str, ...]) -> None:
    self_arg = schema.arg("self")
    if ("method" in variants or "inplace" in variants) and (self_arg is None or not self_arg.type.is_tensor):
        raise e.err("method and inplace variants need a Tensor argument named 'self'", "variants")
    if "inplace" in variants and (len(schema.returns) != 1 or not schema.returns[0].type.is_tensor):
        raise e.err("inplace variants need exactly one Tensor return", "variants")
    if "out" in variants and (not schema.returns or not all(r.type.is_tensor for r in schema.returns)):
        raise e.err("out variants need Tensor returns", "variants")
    named = [r.name for r in schema.returns if r.name]
    if len(schema.returns) > 1 and named and len(named) != len(schema.returns):
        raise e.err("name every return or none: named returns make a named tuple "
                    "(torchlite.return_types.<name>)", "func")
    if "function" not in variants and "out" in variants:
        raise e.err("an out variant needs the function variant", "variants")


def _parse_derivatives(e: _Entry, schema: FunctionSchema, impl) -> Derivatives | None:
    d = e.get("derivatives")
    jvp = e.get("jvp")
    if d is None:
        if jvp is not None:
            raise e.err("jvp without derivatives", "jvp")
        return None
    if isinstance(impl, Composite):
        raise e.err("composite ops get gradients through the ops they call: remove derivatives", "derivatives")
    if not isinstance(d, dict):
        raise e.err("derivatives must be a mapping {input: formula}", "derivatives")
    dlines = getattr(d, "lines", {})

    def err(message, key):
        return e.err_at(message, dlines.get(key))

    for k in ("nondiff", "nondiff_outputs"):
        if _name_list(d.get(k, [])) is None:
            raise err(f"derivatives {k} must be a list of names", k)
    nondiff = tuple(_name_list(d.get("nondiff", [])))
    nondiff_outputs = tuple(_name_list(d.get("nondiff_outputs", [])))
    save_if = d.get("save_if") or {}
    if not isinstance(save_if, dict):
        raise err("derivatives save_if must be a mapping {input: condition}", "save_if")
    zero_fill = d.get("zero_fill", True)
    if not isinstance(zero_fill, bool):
        raise err("derivatives zero_fill must be true or false (false: the formulas take an undefined "
                  "gradient as zeros)", "zero_fill")
    if not schema.returns or not all(r.type.is_tensor for r in schema.returns):
        raise e.err("differentiable ops return Tensors (not lists or numbers): write the op as a composite",
                    "derivatives")
    diff_inputs = [a.name for a in schema.arguments if a.type.base == "Tensor"]
    formulas, covered = [], set()
    for key, text in d.items():
        if key in DERIVATIVE_META_KEYS:
            continue
        names = tuple(n.strip() for n in str(key).split(","))
        for n in names:
            if n not in diff_inputs:
                raise err(f"derivative for '{n}', which is not a Tensor argument "
                          f"(Tensor arguments: {', '.join(diff_inputs) or 'none'})", key)
            if n in covered:
                raise err(f"'{n}' has two derivative formulas", key)
            covered.add(n)
        if len(names) > 1:
            lists = [n for n in names if schema.arg(n).type.is_list]
            if lists:
                raise err(f"a joint formula cannot compute the gradient of the Tensor[] argument '{lists[0]}': "
                          "give it its own formula", key)
        formulas.append(Formula(names, e.parse_expr(text, f"derivative formula for '{', '.join(names)}'",
                                                     dlines.get(key, e.line))))
    for n in nondiff:
        if n not in diff_inputs:
            raise err(f"nondiff names '{n}', which is not a Tensor argument", "nondiff")
    rets = [r.name or "result" for r in schema.returns]
    for n in nondiff_outputs:
        if n not in rets:
            raise err(f"nondiff_outputs names '{n}', which is not a return (returns: {', '.join(rets) or 'none'})",
                      "nondiff_outputs")
    for n in diff_inputs:
        if n not in covered and n not in nondiff:
            raise e.err(f"differentiable input '{n}' has no derivative formula (add one, or list it "
                        "in derivatives: nondiff: [...])", "derivatives")
    save_line = dlines.get("save_if", e.raw.lines.get("derivatives", e.line))
    conditions = {str(k): e.parse_expr(v, f"save_if condition for '{k}'", save_line) for k, v in save_if.items()}
    return Derivatives(tuple(formulas), nondiff, nondiff_outputs, conditions, zero_fill,
                       _parse_jvp(e, schema, jvp, tuple(formulas), nondiff, nondiff_outputs),
                       e.raw.lines.get("derivatives", e.line))


def _parse_jvp(e: _Entry, schema: FunctionSchema, jvp, formulas: tuple[Formula, ...], nondiff: tuple[str, ...],
               nondiff_outputs: tuple[str, ...]) -> Jvp | None:
    if jvp is None:
        return None
    line = e.raw.lines.get("jvp", e.line)
    rets = schema.return_names
    if isinstance(jvp, dict):
        for k in jvp:
            if k not in rets or k in nondiff_outputs:
                raise e.err(f"jvp names '{k}', which is not a differentiable return (returns: {', '.join(rets)})",
                            "jvp")
        return Jvp("formulas", {str(k): e.parse_expr(v, f"jvp formula for {k}", line) for k, v in jvp.items()},
                   True, line)
    jvp = str(jvp)
    if jvp in JVP_KINDS:
        if len(schema.returns) != 1:
            raise e.err(f"jvp: {jvp} serves ops with one return: give one formula per differentiable return, "
                        "jvp: {<return>: formula}", "jvp")
        if jvp == "elementwise":
            for f in formulas:
                if len(f.inputs) == 1 and f.inputs[0] in nondiff:
                    continue
                arg = schema.arg(f.inputs[0])
                if f.joint or not arg.type.is_tensor or arg.type.optional:
                    raise e.err("jvp: elementwise needs one formula per single Tensor input", "jvp")
        return Jvp(jvp, {}, False, line)
    if len(schema.returns) != 1:
        raise e.err("an op with several returns needs one jvp formula per differentiable return: "
                    "jvp: {<return>: formula}", "jvp")
    return Jvp("formulas", {rets[0]: e.parse_expr(jvp, "jvp formula", line)}, False, line)


# ------------------------------------------------------------------ rules over the whole schema

def _check_cpp_names(functions: list[NativeFunction], filename: str) -> None:
    """Two overloads may not produce the same C++ file stem or entry point."""
    keys = {}
    for nf in functions:
        if nf.key in keys:
            raise SchemaError(f"overload '{nf.schema.full_name}' and '{keys[nf.key]}' both map to "
                              f"'{nf.key}'", nf.line, nf.schema.full_name, filename)
        keys[nf.key] = nf.schema.full_name


def named_returns(nf: NativeFunction) -> tuple[str, ...] | None:
    """The field names of the named tuple an op with several named returns gives in Python, else None."""
    names = tuple(r.name for r in nf.schema.returns)
    return names if len(names) > 1 and all(names) else None


def _check_return_names(functions: list[NativeFunction], filename: str) -> None:
    """Overloads of one name share its named-tuple type (torchlite.return_types.max): same field names."""
    first = {}
    for nf in functions:
        names = named_returns(nf)
        if names is None:
            continue
        prev = first.setdefault(nf.name, (names, nf.schema.full_name))
        if prev[0] != names:
            raise SchemaError(f"returns ({', '.join(names)}) differ from {prev[1]}'s ({', '.join(prev[0])}): "
                              f"overloads of '{nf.name}' share one named tuple type", nf.line,
                              nf.schema.full_name, filename)


class _Names:
    """What expressions may call: scalar_math in pointwise expressions; formula helpers, ops and metadata
    methods in formulas."""

    def __init__(self, helpers: dict, op_names: set[str]):
        self.scalar_math = set(helpers.get("scalar_math", {}))
        self.callables = set(helpers.get("formula_helpers", {})) | op_names


def _check_expressions(nf: NativeFunction, names: _Names, filename: str) -> None:
    s = nf.schema

    def fail(message: str, line: int):
        raise SchemaError(message, line, s.full_name, filename)

    if isinstance(nf.impl, Pointwise):
        usable = [a.name for a in s.arguments if a.type.base in SCALAR_ARG_BASES and not a.type.is_list]
        # An optional Scalar/int/float is read as its value (0 when absent) and has_<name>.
        usable += [f"has_{a.name}" for a in s.arguments
                   if a.type.optional and a.type.base in SCALAR_ARG_BASES[1:] and not a.type.is_list]
        for ex in nf.impl.exprs.values():
            for node in E.walk(ex.tree):
                if isinstance(node, E.Name) and node.name not in usable:
                    fail(f"unknown name '{node.name}' in pointwise expression (arguments: {', '.join(usable)})",
                         ex.line)
                if isinstance(node, E.Call) and node.fn not in names.scalar_math:
                    fail(f"unknown function '{node.fn}' in pointwise expression (not listed under "
                         "scalar_math in codegen/helpers.yaml)", ex.line)
                bad = {E.Method: lambda n: f".{n.name}()", E.Str: lambda n: n.text, E.Index: lambda n: "[]",
                       E.ListLit: lambda n: "[...]"}.get(type(node))
                if bad is not None:
                    fail(f"'{bad(node)}' is not allowed in a pointwise expression", ex.line)
                if isinstance(node, (E.Unary, E.Binary)) and node.op not in POINTWISE_OPS:
                    fail(f"'{node.op}' is not allowed in a pointwise expression", ex.line)
    d = nf.derivatives
    if d is None:
        return
    args = {a.name: a for a in s.arguments}
    rets = [r.name for r in s.returns if r.name]
    outputs = set(s.return_names) | {"result"} | {f"result{i}" for i in range(len(s.returns))}
    tensors = {n for n, a in args.items() if a.type.base == "Tensor"}

    def check_metadata(node, where: str, line: int) -> None:
        """x.sizes() and the like read a tensor argument's or a return's metadata."""
        if isinstance(node, E.Method) and node.name in METADATA:
            owner = node.receiver.name if isinstance(node.receiver, E.Name) else None
            tensor_arg = owner in tensors and args[owner].type.is_tensor and not args[owner].type.optional
            if node.args or owner is None or not (tensor_arg or owner in outputs and owner not in args):
                fail(f"'.{node.name}()' in {where} reads the metadata of a Tensor argument or a return, "
                     "with no arguments (self.sizes())", line)

    grads = {"grad", "grads", "grad_input_mask"} | {f"grad_{r}" for r in rets}
    known = set(args) | outputs | grads | {"true", "false"}
    for f in d.formulas:
        what = f"derivative formula for '{', '.join(f.inputs)}'"
        for node in E.walk(f.expr.tree):
            if isinstance(node, E.Name):
                if node.name not in known:
                    fail(f"unknown name '{node.name}' in {what}", f.expr.line)
                a = args.get(node.name)
                if a is not None and a.type.base == "Generator":
                    fail(f"{what} reads the generator '{a.name}': formulas cannot save a generator", f.expr.line)
                if a is not None and a.type.is_list and a.type.base in ("bool",):
                    fail(f"{what} reads '{a.name}', a {a.type}: formulas can read int[] and float[] lists",
                         f.expr.line)
            if isinstance(node, E.Call) and node.fn not in names.callables:
                fail(f"unknown function '{node.fn}' in {what} (not an op in the schema nor a helper in "
                     "codegen/helpers.yaml)", f.expr.line)
            if isinstance(node, E.Method) and node.name not in METADATA and node.name not in names.callables:
                fail(f"unknown method '.{node.name}()' in {what}", f.expr.line)
            check_metadata(node, what, f.expr.line)
    if d.jvp is not None:
        # A jvp formula reads the arguments, `<tensor input>_t` (its tangent) and the results.
        jvp_known = set(args) | outputs | {f"{n}_t" for n in tensors} | {"true", "false"}
        for out_name, ex in d.jvp.formulas.items():
            where = "jvp formula" + (f" for {out_name}" if d.jvp.per_output else "")
            for node in E.walk(ex.tree):
                if isinstance(node, E.Name) and node.name not in jvp_known:
                    fail(f"unknown name '{node.name}' in {where} (arguments, <input>_t, results)", ex.line)
                fn = node.fn if isinstance(node, E.Call) else node.name if isinstance(node, E.Method) else None
                if fn is not None and fn not in names.callables and fn not in METADATA:
                    fail(f"unknown function '{fn}' in {where}", ex.line)
                check_metadata(node, where, ex.line)
    # save_if: {saved tensor: condition}: the tensor (an argument or a return the formulas read) is saved only
    # when the condition, over the non-tensor arguments, holds.
    plain = {n for n, a in args.items() if a.type.base != "Tensor"} | {"true", "false"}
    read = {n for f in d.formulas for n in E.names(f.expr.tree)}
    for name, cond in d.save_if.items():
        if name not in (tensors | outputs) or name not in read:
            fail(f"save_if names '{name}', which is not a tensor the formulas read", cond.line)
        calls = [n.name if isinstance(n, E.Method) else n.fn for n in E.walk(cond.tree)
                 if isinstance(n, (E.Method, E.Call))]
        for used in E.names(cond.tree) + calls:
            if used not in plain:
                fail(f"save_if condition for '{name}' may only read non-tensor arguments "
                     f"({', '.join(sorted(plain - {'true', 'false'})) or 'none'}): not '{used}'", cond.line)
