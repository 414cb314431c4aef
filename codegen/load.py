"""Loading and validating native_functions.yaml into the typed model.

Every problem raises SchemaError, whose message reads
`native_functions.yaml:LINE: op: message`, before any C++ is generated.
"""
from __future__ import annotations

import os
import re

import yaml

from .expr import POINTWISE_OPS, tokenize
from .model import Derivative, FunctionSchema, NativeFunction, SchemaError, TestSpec

KNOWN_KEYS = ("func", "variants", "dtypes", "promotion", "pointwise", "dispatch", "meta", "composite",
              "checks", "derivatives", "jvp", "python_module", "tags", "doc", "test")
VARIANTS = ("function", "method", "inplace", "out")
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
FLOATING = ("float16", "bfloat16", "float32", "float64")
INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")
DTYPE_SETS = {
    "all": DTYPES,
    "all_but_bool": DTYPES[1:],
    "floating": FLOATING,
    "integral": INTEGRAL,
    "integral_and_bool": ("bool",) + INTEGRAL,
}
PROMOTIONS = ("default", "int_to_float", "always_bool", "self_dtype", "int_to_long")
BUILTIN_METAS = ("broadcast", "same_as_self", "reduction")
POINTWISE_CATEGORIES = ("floating", "integral", "bool")
PYTHON_MODULES = ("nn.functional", "linalg", "special", "fft")
TEST_KEYS = ("ref", "domain", "tol", "xfail", "not_twice_differentiable")
DERIVATIVE_META_KEYS = ("nondiff", "nondiff_outputs", "save_if", "zero_fill")
JVP_KINDS = ("elementwise", "linear")
SCALAR_ARG_BASES = ("Tensor", "Scalar", "int", "float", "bool")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

HERE = os.path.dirname(os.path.abspath(__file__))


def _name_list(value) -> list[str] | None:
    """A list of names written as [a, b] or "a, b"; None when it is neither."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def dtype_category(dtype: str) -> str:
    return "bool" if dtype == "bool" else "integral" if dtype in INTEGRAL else "floating"


class _LineLoader(yaml.SafeLoader):
    """Records the line of every mapping and of each of its keys."""


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


class _LinedDict(dict):
    line: int
    lines: dict


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_helpers(path: str | None = None) -> dict:
    with open(path or os.path.join(HERE, "helpers.yaml")) as f:
        return yaml.safe_load(f)


def load(path: str, helpers: dict | None = None) -> list[NativeFunction]:
    with open(path) as f:
        text = f.read()
    return load_text(text, helpers, os.path.basename(path))


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
    for entry in entries:
        nf = _parse_entry(entry, filename)
        prev = seen.get(nf.schema.full_name)
        if prev is not None:
            raise SchemaError(f"duplicate overload '{nf.schema.full_name}' (first defined at line {prev})",
                              nf.line, nf.schema.full_name, filename)
        seen[nf.schema.full_name] = nf.line
        functions.append(nf)
    _check_cpp_names(functions, filename)
    _check_return_names(functions, filename)
    op_names = {f.name for f in functions}
    for nf in functions:
        _validate_expressions(nf, helpers, op_names, filename)
    return functions


def _parse_entry(entry, filename: str) -> NativeFunction:
    if not isinstance(entry, dict) or "func" not in entry:
        line = getattr(entry, "line", None)
        raise SchemaError("each entry must be a mapping with a `func:` key", line, None, filename)
    line = entry.line

    def err(msg, key=None):
        return SchemaError(msg, entry.lines.get(key, line) if key else line, op_name, filename)

    op_name = str(entry["func"]).split("(")[0].strip()
    for key in entry:
        if key not in KNOWN_KEYS:
            raise err(f"unknown key '{key}' (known keys: {', '.join(KNOWN_KEYS)})", key)
    try:
        schema = FunctionSchema.parse(str(entry["func"]))
    except ValueError as e:
        raise err(str(e), "func") from None
    op_name = schema.full_name

    variants = _name_list(entry.get("variants", ["function"]))
    if not variants:
        raise err(f"variants must be a non-empty list of {', '.join(VARIANTS)}", "variants")
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        raise err(f"unknown variant '{bad[0]}' (known: {', '.join(VARIANTS)})", "variants")

    dtypes = entry.get("dtypes", "all")
    if isinstance(dtypes, list):
        if not dtypes:
            raise err("dtypes is an empty list: name a set or at least one dtype", "dtypes")
        bad = [d for d in dtypes if d not in DTYPES]
        if bad:
            raise err(f"unknown dtype '{bad[0]}' in dtypes (known: {', '.join(DTYPES)})", "dtypes")
        dtype_list = tuple(d for d in DTYPES if d in dtypes)
        dtypes_name = ", ".join(dtype_list)
    elif dtypes in DTYPE_SETS:
        dtype_list, dtypes_name = DTYPE_SETS[dtypes], dtypes
    else:
        raise err(f"unknown dtypes '{dtypes}' (known sets: {', '.join(DTYPE_SETS)}, or a list of dtypes)",
                  "dtypes")

    promotion, promotion_args = entry.get("promotion"), ()
    if isinstance(promotion, dict):
        if len(promotion) != 1:
            raise err("promotion as a mapping takes one kind: {default: [self, other]}", "promotion")
        promotion, promotion_args = next(iter(promotion.items()))
        names = _name_list(promotion_args if promotion_args is not None else [])
        if names is None:
            raise err("promotion as a mapping lists argument names: {default: [self, other]}", "promotion")
        promotion_args = tuple(names)
        for a in promotion_args:
            arg = schema.arg(a)
            if arg is None or arg.type.base not in ("Tensor", "Scalar") or arg.type.is_list:
                raise err(f"promotion names '{a}', which is not a Tensor or Scalar argument", "promotion")
    if promotion is not None and promotion not in PROMOTIONS:
        raise err(f"unknown promotion '{promotion}' (known: {', '.join(PROMOTIONS)})", "promotion")
    if promotion is not None and not promotion_args:
        promotion_args = tuple(a.name for a in schema.tensor_args if not a.type.is_list)
    if promotion in ("self_dtype", "int_to_long") and schema.arg("self") is None:
        raise err(f"promotion {promotion} needs a Tensor argument named 'self'", "promotion")

    pointwise = entry.get("pointwise")
    if pointwise is not None:
        if isinstance(pointwise, (int, float)) and not isinstance(pointwise, bool):
            pointwise = str(pointwise)
        if isinstance(pointwise, str):
            pointwise = {c: pointwise for c in POINTWISE_CATEGORIES}
        elif isinstance(pointwise, dict):
            for k in pointwise:
                if k not in POINTWISE_CATEGORIES:
                    raise err(f"unknown dtype category '{k}' in pointwise (known: "
                              f"{', '.join(POINTWISE_CATEGORIES)})", "pointwise")
        else:
            raise err("pointwise must be an expression or a map by dtype category", "pointwise")
        pointwise = {k: str(v) for k, v in pointwise.items()}

    dispatch = entry.get("dispatch")
    if dispatch is not None:
        if not isinstance(dispatch, dict) or not dispatch:
            raise err("dispatch must be a mapping {cpu: f, cuda: g} or {any: f}", "dispatch")
        for k, v in dispatch.items():
            if k not in ("cpu", "cuda", "any"):
                raise err(f"unknown dispatch key '{k}' (known: cpu, cuda, any)", "dispatch")
            if not isinstance(v, str) or not IDENT_RE.match(v):
                raise err(f"dispatch {k}: '{v}' is not a C++ function name", "dispatch")
        if "any" in dispatch and len(dispatch) > 1:
            raise err("dispatch 'any' serves every device: it cannot be combined with cpu or cuda", "dispatch")
        dispatch = dict(dispatch)

    composite = entry.get("composite", False)
    if composite not in (True, False):
        raise err("composite must be true or false", "composite")

    impls = [k for k, present in (("pointwise", pointwise is not None), ("dispatch", dispatch is not None),
                                  ("composite", composite)) if present]
    if not impls:
        raise err("no implementation: give one of pointwise, dispatch or composite")
    if len(impls) > 1:
        raise err(f"more than one implementation: {' and '.join(impls)} (give exactly one)", impls[1])

    meta = entry.get("meta")
    if meta is not None and (not isinstance(meta, str) or not IDENT_RE.match(meta)):
        raise err(f"meta '{meta}' is neither a built-in ({', '.join(BUILTIN_METAS)}) nor a C++ function name",
                  "meta")
    if dispatch is not None and "any" not in dispatch and meta is None:
        raise err("dispatch with out-kernels needs meta (a built-in rule or a C++ function) to size the output",
                  "dispatch")
    if dispatch is not None and "any" not in dispatch and meta in BUILTIN_METAS and promotion is None:
        raise err(f"meta {meta} takes the result dtype from promotion: add promotion ({', '.join(PROMOTIONS)})",
                  "meta")
    if dispatch is not None and "any" in dispatch and meta is not None:
        raise err("meta is not used with dispatch 'any' (the function returns its result)", "meta")
    if composite and meta is not None:
        raise err("meta is not used with composite ops", "meta")

    if pointwise is not None:
        if promotion is None:
            raise err("pointwise ops need promotion (default, int_to_float, always_bool, self_dtype, int_to_long)")
        if len(schema.returns) != 1 or not schema.returns[0].type.is_tensor:
            raise err("pointwise ops return exactly one Tensor", "func")
        if meta is not None and meta not in ("broadcast", "same_as_self"):
            raise err(f"pointwise ops take meta broadcast or same_as_self, not '{meta}'", "meta")
        for a in schema.arguments:
            if a.type.base == "Tensor" and (a.type.optional or a.type.is_list):
                raise err(f"pointwise ops take plain Tensor arguments; '{a.name}' is {a.type}", "func")
        needed = {dtype_category(d) for d in dtype_list}
        missing = [c for c in POINTWISE_CATEGORIES if c in needed and c not in pointwise]
        if missing:
            raise err(f"pointwise has no expression for {missing[0]} dtypes, which dtypes '{dtypes_name}' "
                      "includes", "pointwise")
    checks = entry.get("checks") or {}
    if not isinstance(checks, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                               for k, v in checks.items()):
        raise err("checks must map C++ conditions to error messages: {\"cond\": \"message\"}", "checks")
    checks = tuple((k, v) for k, v in checks.items())

    if meta == "reduction":
        for needed in ("self",):
            if schema.arg(needed) is None:
                raise err("meta reduction needs a Tensor argument named 'self'", "meta")

    if schema.is_view:
        aliases = {a.type.alias for a in schema.arguments if a.type.alias}
        for r in schema.returns:
            if r.type.alias and r.type.alias not in aliases:
                raise err(f"return alias ({r.type.alias}) matches no argument", "func")
        if "out" in variants:
            raise err("view ops (alias annotations) have no out variant", "variants")
        if dispatch is None or "any" not in dispatch:
            raise err("view ops (alias annotations) are written as dispatch: {any: f}", "dispatch")
    elif any(a.type.alias for a in schema.arguments):
        raise err("an argument has an alias annotation but no return does: annotate the view's return "
                  "too, e.g. Tensor(a) self -> Tensor(a)", "func")
    elif dispatch is not None and "any" in dispatch and schema.tensor_args and not schema.is_view \
            and schema.returns and schema.returns[0].type.is_tensor \
            and "view" in (_name_list(entry.get("tags", [])) or []):
        raise err("view ops carry alias annotations: Tensor(a) self -> Tensor(a)", "func")

    self_arg = schema.arg("self")
    if ("method" in variants or "inplace" in variants) and (self_arg is None or not self_arg.type.is_tensor):
        raise err("method and inplace variants need a Tensor argument named 'self'", "variants")
    if "inplace" in variants and (len(schema.returns) != 1 or not schema.returns[0].type.is_tensor):
        raise err("inplace variants need exactly one Tensor return", "variants")
    if "out" in variants and (not schema.returns or not all(r.type.is_tensor for r in schema.returns)):
        raise err("out variants need Tensor returns", "variants")
    if len(schema.returns) > 1 and dispatch is not None and "any" not in dispatch and meta in BUILTIN_METAS:
        raise err(f"meta {meta} sizes one output: an op with several returns needs a C++ meta function "
                  f"returning std::array<TensorMeta, {len(schema.returns)}>", "meta")
    named = [r.name for r in schema.returns if r.name]
    if len(schema.returns) > 1 and named and len(named) != len(schema.returns):
        raise err("name every return or none: named returns make a named tuple "
                  "(torchlite.return_types.<name>)", "func")
    if "function" not in variants and "out" in variants:
        raise err("an out variant needs the function variant", "variants")

    derivs, nondiff, nondiff_outputs, save_if, zero_fill = [], (), (), {}, True
    d = entry.get("derivatives")
    if d is not None:
        if composite:
            raise err("composite ops get gradients through the ops they call: remove derivatives",
                      "derivatives")
        if not isinstance(d, dict):
            raise err("derivatives must be a mapping {input: formula}", "derivatives")
        dlines = getattr(d, "lines", {})
        for k in ("nondiff", "nondiff_outputs"):
            if _name_list(d.get(k, [])) is None:
                raise SchemaError(f"derivatives {k} must be a list of names", dlines.get(k, line), op_name,
                                  filename)
        nondiff = tuple(_name_list(d.get("nondiff", [])))
        nondiff_outputs = tuple(_name_list(d.get("nondiff_outputs", [])))
        save_if = d.get("save_if") or {}
        if not isinstance(save_if, dict):
            raise SchemaError("derivatives save_if must be a mapping {input: condition}",
                              dlines.get("save_if", line), op_name, filename)
        save_if = {str(k): str(v) for k, v in save_if.items()}
        zero_fill = d.get("zero_fill", True)
        if not isinstance(zero_fill, bool):
            raise SchemaError("derivatives zero_fill must be true or false (false: the formulas take an "
                              "undefined gradient as zeros)", dlines.get("zero_fill", line), op_name, filename)
        diff_inputs = [a.name for a in schema.arguments if a.type.base == "Tensor"]
        covered = set()
        for key, formula in d.items():
            if key in DERIVATIVE_META_KEYS:
                continue
            names = tuple(n.strip() for n in str(key).split(","))
            for n in names:
                if n not in diff_inputs:
                    raise SchemaError(f"derivative for '{n}', which is not a Tensor argument "
                                      f"(Tensor arguments: {', '.join(diff_inputs) or 'none'})",
                                      dlines.get(key, line), op_name, filename)
                if n in covered:
                    raise SchemaError(f"'{n}' has two derivative formulas", dlines.get(key, line), op_name,
                                      filename)
                covered.add(n)
            derivs.append(Derivative(names, str(formula), dlines.get(key, line)))
        for n in nondiff:
            if n not in diff_inputs:
                raise SchemaError(f"nondiff names '{n}', which is not a Tensor argument",
                                  dlines.get("nondiff", line), op_name, filename)
        ret_names = [r.name or "result" for r in schema.returns]
        for n in nondiff_outputs:
            if n not in ret_names:
                raise SchemaError(f"nondiff_outputs names '{n}', which is not a return (returns: "
                                  f"{', '.join(ret_names) or 'none'})", dlines.get("nondiff_outputs", line),
                                  op_name, filename)
        for n in diff_inputs:
            if n not in covered and n not in nondiff:
                raise err(f"differentiable input '{n}' has no derivative formula (add one, or list it "
                          "in derivatives: nondiff: [...])", "derivatives")

    jvp = entry.get("jvp")
    if jvp is not None and d is None:
        raise err("jvp without derivatives", "jvp")
    if isinstance(jvp, dict):
        # one formula per differentiable return: {values: ..., ...}
        ret_names = [r.name or ("result" if len(schema.returns) == 1 else f"result{i}")
                     for i, r in enumerate(schema.returns)]
        for k in jvp:
            if k not in ret_names or k in nondiff_outputs:
                raise err(f"jvp names '{k}', which is not a differentiable return (returns: "
                          f"{', '.join(ret_names)})", "jvp")
        jvp = {str(k): str(v) for k, v in jvp.items()}
    elif jvp is not None:
        jvp = str(jvp)

    python_module = entry.get("python_module")
    if python_module is not None and python_module not in PYTHON_MODULES:
        raise err(f"unknown python_module '{python_module}' (known: {', '.join(PYTHON_MODULES)})",
                  "python_module")

    tags = _name_list(entry.get("tags", []))
    if tags is None:
        raise err("tags must be a list of names", "tags")
    doc = entry.get("doc")
    if doc is not None and not isinstance(doc, str):
        raise err("doc must be a string", "doc")

    test = entry.get("test") or {}
    if not isinstance(test, dict):
        raise err("test must be a mapping", "test")
    for k in test:
        if k not in TEST_KEYS:
            raise SchemaError(f"unknown key '{k}' in test (known: {', '.join(TEST_KEYS)})",
                              getattr(test, "lines", {}).get(k, line), op_name, filename)
    for k in ("xfail", "not_twice_differentiable"):
        v = test.get(k)
        if v is not None and (not isinstance(v, str) or not v.strip()):
            raise err(f"test {k} needs a reason: {k}: \"why\"", "test")
    domain = test.get("domain")
    if domain is not None and (not isinstance(domain, list) or len(domain) != 2):
        raise err("test domain is [low, high]", "test")
    spec = TestSpec(test.get("ref"), tuple(domain) if domain else None, test.get("tol"), test.get("xfail"),
                    test.get("not_twice_differentiable"))

    return NativeFunction(
        schema=schema, line=line, variants=tuple(v for v in VARIANTS if v in variants), dtypes=dtypes_name,
        promotion=promotion, promotion_args=promotion_args, pointwise=pointwise, dispatch=dispatch,
        meta=meta, composite=composite, checks=checks, derivatives=tuple(derivs), nondiff=nondiff,
        nondiff_outputs=nondiff_outputs, save_if=save_if, zero_fill=zero_fill, jvp=jvp, python_module=python_module,
        tags=tuple(tags), doc=doc, test=spec, lines=dict(entry.lines))


def dtype_list(nf: NativeFunction) -> tuple[str, ...]:
    if nf.dtypes in DTYPE_SETS:
        return DTYPE_SETS[nf.dtypes]
    return tuple(d.strip() for d in nf.dtypes.split(","))


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


def _validate_expressions(nf: NativeFunction, helpers: dict, op_names: set[str], filename: str) -> None:
    schema = nf.schema
    if nf.pointwise is not None:
        usable = [a.name for a in schema.arguments if a.type.base in SCALAR_ARG_BASES and not a.type.is_list]
        # An optional Scalar/int/float is read as its value (0 when absent) and has_<name>.
        usable += [f"has_{a.name}" for a in schema.arguments
                   if a.type.optional and a.type.base in SCALAR_ARG_BASES[1:] and not a.type.is_list]
        funcs = list(helpers.get("scalar_math", {}))
        line = nf.lines.get("pointwise", nf.line)
        for cat, text in nf.pointwise.items():
            try:
                tokens = tokenize(text)
            except ValueError as e:
                raise SchemaError(f"pointwise expression '{text}': {e}", line, schema.full_name, filename) from None
            for t in tokens:
                if t.kind == "ident" and t.text not in usable:
                    raise SchemaError(f"unknown name '{t.text}' in pointwise expression (arguments: "
                                      f"{', '.join(usable)})", line, schema.full_name, filename)
                if t.kind == "call" and t.text not in funcs:
                    raise SchemaError(f"unknown function '{t.text}' in pointwise expression (not listed under "
                                      "scalar_math in codegen/helpers.yaml)", line, schema.full_name, filename)
                if t.kind in ("method", "string") or (t.kind == "op" and t.text not in POINTWISE_OPS):
                    raise SchemaError(f"'{t.text}' is not allowed in a pointwise expression", line,
                                      schema.full_name, filename)
    if nf.derivatives:
        names = {a.name for a in schema.arguments}
        ret_names = [r.name for r in schema.returns if r.name]
        names |= set(ret_names) | {"grad", "grads", "result", "grad_input_mask", "true", "false"}
        names |= {f"grad_{r}" for r in ret_names} | {f"result{i}" for i in range(len(schema.returns))}
        callables = set(helpers.get("formula_helpers", {})) | op_names
        methods = set(helpers.get("metadata", {})) | callables
        for dv in nf.derivatives:
            what = ", ".join(dv.inputs)
            try:
                tokens = tokenize(dv.formula)
            except ValueError as e:
                raise SchemaError(f"derivative formula for '{what}': {e}", dv.line, schema.full_name,
                                  filename) from None
            for t in tokens:
                if t.kind == "ident" and t.text not in names:
                    raise SchemaError(f"unknown name '{t.text}' in derivative formula for '{what}'",
                                      dv.line, schema.full_name, filename)
                if t.kind == "call" and t.text not in callables:
                    raise SchemaError(f"unknown function '{t.text}' in derivative formula for '{what}' (not an "
                                      "op in the schema nor a helper in codegen/helpers.yaml)",
                                      dv.line, schema.full_name, filename)
                if t.kind == "method" and t.text not in methods:
                    raise SchemaError(f"unknown method '.{t.text}()' in derivative formula for '{what}'",
                                      dv.line, schema.full_name, filename)
    jvp_formulas = nf.jvp if isinstance(nf.jvp, dict) else {} if nf.jvp in (None, *JVP_KINDS) else {"": nf.jvp}
    for out_name, formula in jvp_formulas.items():
        where = f"jvp formula{' for ' + out_name if out_name else ''}"
        try:
            tokens = tokenize(formula)
        except ValueError as e:
            raise SchemaError(f"{where}: {e}", nf.lines.get("jvp", nf.line), schema.full_name, filename) from None
        # A jvp formula reads the arguments, `<tensor input>_t` (its tangent) and the results.
        known = {a.name for a in schema.arguments} | {"result", "true", "false"}
        known |= {r.name for r in schema.returns if r.name} | {f"result{i}" for i in range(len(schema.returns))}
        known |= {f"{a.name}_t" for a in schema.arguments if a.type.base == "Tensor"}
        callables = set(helpers.get("formula_helpers", {})) | op_names
        for t in tokens:
            if t.kind == "ident" and t.text not in known:
                raise SchemaError(f"unknown name '{t.text}' in {where} (arguments, <input>_t, results)",
                                  nf.lines.get("jvp", nf.line), schema.full_name, filename)
            if t.kind in ("call", "method") and t.text not in callables and t.text not in helpers.get("metadata", {}):
                raise SchemaError(f"unknown function '{t.text}' in {where}", nf.lines.get("jvp", nf.line),
                                  schema.full_name, filename)
    if nf.save_if:
        # save_if: {saved tensor: condition}: the tensor (an argument or a return the formulas read) is saved
        # only when the condition, over the non-tensor arguments, holds.
        tensors = {a.name for a in schema.arguments if a.type.base == "Tensor"}
        tensors |= {r.name for r in schema.returns if r.name} | {"result"}
        tensors |= {f"result{i}" for i in range(len(schema.returns))}
        plain = {a.name for a in schema.arguments if a.type.base != "Tensor"} | {"true", "false"}
        line = nf.lines.get("derivatives", nf.line)
        for name, cond in nf.save_if.items():
            read = any(t.kind == "ident" and t.text == name for dv in nf.derivatives for t in tokenize(dv.formula))
            if name not in tensors or not read:
                raise SchemaError(f"save_if names '{name}', which is not a tensor the formulas read",
                                  line, schema.full_name, filename)
            try:
                tokens = tokenize(cond)
            except ValueError as e:
                raise SchemaError(f"save_if condition for '{name}': {e}", line, schema.full_name, filename) from None
            for t in tokens:
                if t.kind in ("ident", "method", "call") and t.text not in plain:
                    raise SchemaError(f"save_if condition for '{name}' may only read non-tensor arguments "
                                      f"({', '.join(sorted(plain - {'true', 'false'})) or 'none'}): not '{t.text}'",
                                      line, schema.full_name, filename)
