"""The schema validator: one test per rule, each checking the exact message.

Every message reads `native_functions.yaml:LINE: op: message`. Pure Python: no
build needed.
"""
import filecmp
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from codegen import expr as E  # noqa: E402
from codegen.load import DTYPES, load, load_text  # noqa: E402
from codegen.model import AnyDevice, Promotion, SchemaError  # noqa: E402

F = "native_functions.yaml"


def error_of(text: str) -> str:
    with pytest.raises(SchemaError) as info:
        load_text(textwrap.dedent(text).lstrip("\n"))
    return str(info.value)


def check(text: str, line: int, op: str, message: str) -> None:
    assert error_of(text) == f"{F}:{line}: {op}: {message}"


# ------------------------------------------------------------------ keys and func

def test_unknown_key():
    check("""
        - func: foo(Tensor self) -> Tensor
          composite: true
          bogus: 1
        """, 3, "foo", "unknown key 'bogus' (known keys: func, variants, dtypes, promotion, pointwise, dispatch, "
        "meta, composite, checks, checked_scalars, no_overlap, derivatives, jvp, python_module, tags, doc, test, "
        "autocast)")


def test_checked_scalars_and_no_overlap():
    check("""
        - func: foo(Tensor self, int n) -> Tensor
          composite: true
          checked_scalars: [n]
        """, 3, "foo", "checked_scalars: 'n' is not a Scalar or Tensor argument of this op")
    check("""
        - func: foo(Tensor self, Scalar v) -> Tensor
          composite: true
          checked_scalars: {v: wide}
        """, 3, "foo", "checked_scalars: 'v: wide': the target must be one of dtype, opmath, integral")
    check("""
        - func: foo(Tensor self, Tensor src) -> Tensor
          variants: [function, out]
          composite: true
          no_overlap: [src]
        """, 4, "foo", "no_overlap is for ops with `dispatch:` kernels and an inplace or out variant")


def test_unknown_type():
    check("""
        - func: foo(Tensor self, Foo x) -> Tensor
          composite: true
        """, 1, "foo", "unknown type 'Foo' for 'x' (known: Tensor, Scalar, int, float, bool, str, ScalarType, "
        "Device, Generator, with [] or [N] for lists of Tensor/int/float/bool and ? for optionals)")


def test_duplicate_overload():
    check("""
        - func: foo.a(Tensor self) -> Tensor
          composite: true
        - func: foo.a(Tensor self) -> Tensor
          composite: true
        """, 3, "foo.a", "duplicate overload 'foo.a' (first defined at line 1)")


def test_bad_default_int():
    check("""
        - func: foo(Tensor self, int n=1.5) -> Tensor
          composite: true
        """, 1, "foo", "bad default '1.5' for argument 'n' of type int")


def test_bad_default_bool():
    check("""
        - func: foo(Tensor self, bool b=true) -> Tensor
          composite: true
        """, 1, "foo", "bad default 'true' for argument 'b' of type bool")


def test_bad_default_tensor():
    check("""
        - func: foo(Tensor self, Tensor other=0) -> Tensor
          composite: true
        """, 1, "foo", "bad default '0' for argument 'other' of type Tensor")


def test_op_name_ending_in_underscore():
    check("""
        - func: foo_(Tensor self) -> Tensor
          composite: true
        """, 1, "foo_", "op name 'foo_' ends with '_': declare the functional op and add `inplace` to its "
        "variants")


def test_mutable_alias_annotation():
    check("""
        - func: foo(Tensor(a!) self) -> Tensor(a!)
          dispatch: {any: foo_any}
        """, 1, "foo", "'self' is annotated (a!): write in-place and out variants with "
        "`variants: [inplace, out]` instead of mutable alias annotations")


def test_view_op_with_out_variant():
    check("""
        - func: foo(Tensor(a) self) -> Tensor(a)
          variants: [function, out]
          dispatch: {any: foo_any}
        """, 2, "foo", "view ops (alias annotations) have no out variant")


def test_argument_alias_without_aliased_return():
    check("""
        - func: foo(Tensor(a) self) -> Tensor
          dispatch: {any: foo_any}
        """, 1, "foo", "an argument has an alias annotation but no return does: annotate the view's return too, "
        "e.g. Tensor(a) self -> Tensor(a)")


# ------------------------------------------------------------------ variants, dtypes, promotion

def test_unknown_variant():
    check("""
        - func: foo(Tensor self) -> Tensor
          variants: [function, bogus]
          composite: true
        """, 2, "foo", "unknown variant 'bogus' (known: function, method, inplace, out)")


def test_empty_variants():
    check("""
        - func: foo(Tensor self) -> Tensor
          variants: []
          composite: true
        """, 2, "foo", "variants must be a non-empty list of function, method, inplace, out")


def test_unknown_dtypes_set():
    check("""
        - func: foo(Tensor self) -> Tensor
          dtypes: floats
          composite: true
        """, 2, "foo", "unknown dtypes 'floats' (known sets: all, all_but_bool, floating, integral, "
        "integral_and_bool, complex, all_and_complex, all_but_bool_and_complex, floating_and_complex, every, or a "
        "list of dtypes)")


def test_unknown_dtype_in_list():
    check("""
        - func: foo(Tensor self) -> Tensor
          dtypes: [float32, complex32]
          composite: true
        """, 2, "foo", "unknown dtype 'complex32' in dtypes (known: bool, uint8, int8, int16, int32, int64, "
        "float16, bfloat16, float32, float64, uint16, uint32, uint64, complex64, complex128)")


def test_unknown_promotion():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: bogus
          pointwise: self
        """, 2, "foo", "unknown promotion 'bogus' (known: default, int_to_float, always_bool, self_dtype, "
        "int_to_long)")


def test_promotion_map_names_unknown_argument():
    check("""
        - func: foo(Tensor self, Scalar e) -> Tensor
          promotion: {default: [self, x]}
          pointwise: self
        """, 2, "foo", "promotion names 'x', which is not a Tensor or Scalar argument")


def test_pointwise_without_promotion():
    check("""
        - func: foo(Tensor self) -> Tensor
          pointwise: self
        """, 1, "foo", "pointwise ops need promotion (default, int_to_float, always_bool, self_dtype, "
        "int_to_long)")


# ------------------------------------------------------------------ pointwise

def test_pointwise_unknown_name():
    check("""
        - func: foo(Tensor self, Scalar alpha) -> Tensor
          promotion: default
          pointwise: self + alpha * x
        """, 3, "foo", "unknown name 'x' in pointwise expression (arguments: self, alpha)")


def test_pointwise_unknown_function():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: bogus_fn(self)
        """, 3, "foo", "unknown function 'bogus_fn' in pointwise expression (not listed under scalar_math in "
        "codegen/helpers.yaml)")


def test_pointwise_optional_scalar_has_flag():
    # An optional Scalar reads as its value and has_<name>; has_<non-optional> is unknown.
    (nf,) = load_text(textwrap.dedent("""
        - func: foo(Tensor self, Scalar? lo=None) -> Tensor
          promotion: default
          pointwise: "has_lo ? max(self, lo) : self"
        """).lstrip("\n"))
    assert nf.impl.exprs["floating"].text == "has_lo ? max(self, lo) : self"
    check("""
        - func: foo(Tensor self, Scalar lo) -> Tensor
          promotion: default
          pointwise: "has_lo ? max(self, lo) : self"
        """, 3, "foo", "unknown name 'has_lo' in pointwise expression (arguments: self, lo)")


def test_checks_must_map_conditions_to_messages():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          checks: [a, b]
        """, 4, "foo", 'checks must map C++ conditions to error messages: {"cond": "message"}')
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          checks: {"self.dim() > 0": ""}
        """, 4, "foo", 'checks must map C++ conditions to error messages: {"cond": "message"}')


def test_pointwise_map_missing_category():
    check("""
        - func: foo(Tensor self) -> Tensor
          dtypes: all
          promotion: default
          pointwise: {floating: exp(self), integral: self}
        """, 4, "foo", "pointwise has no expression for bool dtypes, which dtypes 'all' includes")


def test_pointwise_map_missing_categories_reported_in_a_fixed_order():
    # Both integral and bool are missing: the first in (floating, integral, bool) order is named.
    check("""
        - func: foo(Tensor self) -> Tensor
          dtypes: all
          promotion: default
          pointwise: {floating: exp(self)}
        """, 4, "foo", "pointwise has no expression for integral dtypes, which dtypes 'all' includes")


def test_pointwise_map_unknown_category():
    check("""
        - func: foo(Tensor self) -> Tensor
          dtypes: floating
          promotion: default
          pointwise: {floats: exp(self)}
        """, 4, "foo", "unknown dtype category 'floats' in pointwise (known: floating, integral, bool, complex)")


# ------------------------------------------------------------------ implementation, dispatch, meta

def test_no_implementation():
    check("""
        - func: foo(Tensor self) -> Tensor
          variants: [function]
        """, 1, "foo", "no implementation: give one of pointwise, dispatch or composite")


def test_two_implementations():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          composite: true
        """, 4, "foo", "more than one implementation: pointwise and composite (give exactly one)")


def test_dispatch_cpu_without_meta():
    check("""
        - func: foo(Tensor self) -> Tensor
          dispatch: {cpu: foo_out_cpu}
        """, 2, "foo", "dispatch with out-kernels needs meta (a built-in rule or a C++ function) to size the "
        "output")


@pytest.mark.parametrize("dispatch,key", [("{cpu: on_host}", "cpu"), ("{cpu: f, cuda: on_host}", "cuda")])
def test_dispatch_on_host_needs_a_cuda_kernel_and_the_cpu_key(dispatch, key):
    check(f"""
        - func: foo(Tensor self) -> Tensor
          dispatch: {dispatch}
          meta: same_as_self
          promotion: default
        """, 2, "foo", f"dispatch {key}: 'on_host' names the host compilation of the CUDA kernel: write "
        "{cpu: on_host, cuda: g}")


def test_dispatch_cpu_on_host_puts_the_host_compilation_in_the_cpu_slot(tmp_path):
    from codegen.gen import generate

    schema = tmp_path / "s.yaml"
    schema.write_text("- func: foo(Tensor self) -> Tensor\n  dispatch: {cpu: on_host, cuda: foo_out_cuda}\n"
                      "  meta: same_as_self\n  promotion: default\n")
    generate(str(schema), str(tmp_path / "gen"))
    op = (tmp_path / "gen" / "ops" / "foo.cpp").read_text()
    assert "/*cpu=*/&kernels::on_host::foo_out_cuda," in op
    header = (tmp_path / "gen" / "kernels" / "foo.h").read_text()
    assert "on_host" in header and "foo_out_cpu" not in header


def test_view_op_needs_dispatch_any():
    check("""
        - func: foo(Tensor(a) self) -> Tensor(a)
          composite: true
        """, 1, "foo", "view ops (alias annotations) are written as dispatch: {any: f}")


# ------------------------------------------------------------------ derivatives

def test_derivative_unknown_name():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            self: grad * y
        """, 5, "foo", "unknown name 'y' in derivative formula for 'self'")


def test_derivative_unknown_function():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            self: bogus(grad)
        """, 5, "foo", "unknown function 'bogus' in derivative formula for 'self' (not an op in the schema nor "
        "a helper in codegen/helpers.yaml)")


def test_derivative_unknown_method():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            self: grad * self.bogus()
        """, 5, "foo", "unknown method '.bogus()' in derivative formula for 'self'")


def test_differentiable_input_without_formula():
    check("""
        - func: foo(Tensor self, Tensor other) -> Tensor
          promotion: default
          pointwise: self * other
          derivatives:
            self: grad * other
        """, 4, "foo", "differentiable input 'other' has no derivative formula (add one, or list it in "
        "derivatives: nondiff: [...])")


def test_derivative_for_non_tensor_argument():
    check("""
        - func: foo(Tensor self, Scalar alpha) -> Tensor
          promotion: default
          pointwise: self * alpha
          derivatives:
            self: grad * alpha
            alpha: grad
        """, 6, "foo", "derivative for 'alpha', which is not a Tensor argument (Tensor arguments: self)")


def test_nondiff_names_unknown_input():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            self: grad
            nondiff: [x]
        """, 6, "foo", "nondiff names 'x', which is not a Tensor argument")


def test_nondiff_must_be_a_list_of_names():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            self: grad
            nondiff: 3
        """, 6, "foo", "derivatives nondiff must be a list of names")


def test_composite_with_derivatives():
    check("""
        - func: foo(Tensor self) -> Tensor
          composite: true
          derivatives:
            self: grad
        """, 3, "foo", "composite ops get gradients through the ops they call: remove derivatives")


def test_jvp_without_derivatives():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          jvp: linear
        """, 4, "foo", "jvp without derivatives")


def test_jvp_mapping_names_a_differentiable_return():
    check("""
        - func: foo(Tensor self) -> (Tensor values, Tensor indices)
          dispatch: {cpu: foo_cpu}
          meta: foo_meta
          derivatives:
            self: grad_values
            nondiff_outputs: [indices]
          jvp: {indices: self_t}
        """, 7, "foo", "jvp names 'indices', which is not a differentiable return (returns: values, indices)")


@pytest.mark.parametrize("jvp,message", [
    ("self_t", "an op with several returns needs one jvp formula per differentiable return: "
               "jvp: {<return>: formula}"),
    ("linear", "jvp: linear serves ops with one return: give one formula per differentiable return, "
               "jvp: {<return>: formula}"),
])
def test_jvp_on_several_returns_needs_a_mapping(jvp, message):
    check(f"""
        - func: foo(Tensor self) -> (Tensor a, Tensor b)
          dispatch: {{cpu: foo_cpu}}
          meta: foo_meta
          derivatives:
            self: grad_a + grad_b
          jvp: {jvp}
        """, 6, "foo", message)


def test_jvp_elementwise_needs_one_formula_per_input():
    # Found by a new user: `check` accepted this and `generate` failed. Now the loader refuses it.
    check("""
        - func: foo(Tensor self, Tensor other) -> Tensor
          promotion: default
          pointwise: self * other
          derivatives:
            "self, other": mul_backward(grad, self, other, grad_input_mask)
          jvp: elementwise
        """, 6, "foo", "jvp: elementwise needs one formula per single Tensor input")


def test_jvp_unknown_name():
    check("""
        - func: foo(Tensor self, Tensor other) -> Tensor
          promotion: default
          pointwise: self * other
          derivatives:
            self: grad * other
            other: grad * self
          jvp: self_t * other + self * bogus_t
        """, 7, "foo", "unknown name 'bogus_t' in jvp formula (arguments, <input>_t, results)")


def test_metadata_method_reads_a_tensor_argument_or_return():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            self: sum_to_size(grad, grad.sizes())
        """, 5, "foo", "'.sizes()' in derivative formula for 'self' reads the metadata of a Tensor argument or a "
        "return, with no arguments (self.sizes())")


def test_formula_cannot_read_a_generator():
    check("""
        - func: foo(Tensor self, *, Generator? generator=None) -> Tensor
          dispatch: {cpu: foo_cpu}
          meta: same_as_self
          promotion: self_dtype
          derivatives:
            self: sum_to_size(grad, generator)
        """, 6, "foo", "derivative formula for 'self' reads the generator 'generator': formulas cannot save a "
        "generator")


def test_joint_formula_cannot_cover_a_tensor_list():
    check("""
        - func: foo(Tensor[] tensors, Tensor other) -> Tensor
          dispatch: {cpu: foo_cpu}
          meta: foo_meta
          derivatives:
            "tensors, other": foo_backward(grad, tensors, other)
        """, 5, "foo", "a joint formula cannot compute the gradient of the Tensor[] argument 'tensors': give it "
        "its own formula")


@pytest.mark.parametrize("returns", ["Tensor[]", "()", "int"])
def test_differentiable_ops_return_tensors(returns):
    check(f"""
        - func: foo(Tensor self) -> {returns}
          dispatch: {{any: foo_any}}
          derivatives:
            self: grad
        """, 3, "foo", "differentiable ops return Tensors (not lists or numbers): write the op as a composite")


def test_expression_syntax_error_names_the_column():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self +* 2
          derivatives:
            self: grad
        """, 3, "foo", "pointwise expression 'self +* 2': unexpected '*' at column 7")
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            self: grad.view(
        """, 5, "foo", "derivative formula for 'self': unexpected end of the expression")


def test_save_if_names_a_tensor_the_formulas_read():
    check("""
        - func: foo(Tensor self, Tensor other, str mode) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            "self, other": grad
            save_if: {other: mode == "x"}
        """, 6, "foo", "save_if names 'other', which is not a tensor the formulas read")


def test_save_if_condition_reads_only_non_tensor_arguments():
    check("""
        - func: foo(Tensor self, Tensor other, str mode) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            "self, other": grad * other
            save_if: {other: self.dim() > 1}
        """, 6, "foo", "save_if condition for 'other' may only read non-tensor arguments (mode): not 'self'")


def test_zero_fill_is_a_bool():
    check("""
        - func: foo(Tensor self) -> Tensor
          promotion: default
          pointwise: self
          derivatives:
            self: grad
            zero_fill: sometimes
        """, 6, "foo", "derivatives zero_fill must be true or false (false: the formulas take an undefined "
                       "gradient as zeros)")


# ------------------------------------------------------------------ other keys

def test_tags_must_be_names():
    check("""
        - func: foo(Tensor self) -> Tensor
          composite: true
          tags: 3
        """, 3, "foo", "tags must be a list of names")


def test_xfail_without_reason():
    check("""
        - func: foo(Tensor self) -> Tensor
          composite: true
          test:
            xfail: ""
        """, 3, "foo", 'test xfail needs a reason: xfail: "why"')


def test_not_twice_differentiable_without_reason():
    check("""
        - func: foo(Tensor self) -> Tensor
          composite: true
          test:
            not_twice_differentiable: true
        """, 3, "foo", 'test not_twice_differentiable needs a reason: not_twice_differentiable: "why"')


def test_unknown_test_key():
    check("""
        - func: foo(Tensor self) -> Tensor
          composite: true
          test:
            reff: x
        """, 4, "foo", "unknown key 'reff' in test (known: domain, xfail, not_twice_differentiable)")


# ------------------------------------------------------------------ valid entries

VALID = """
- func: mul.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: [out, function, method, inplace]
  dtypes: all
  promotion: default
  pointwise: self * other * alpha
  derivatives:
    self: mul(grad, other)
    other: mul(grad, self)
    nondiff: []
  jvp: elementwise
  test:
    domain: [-1, 1]
    xfail: "not yet"
- func: t(Tensor(a) self) -> Tensor(a)
  variants: [method]
  dispatch: {any: t_any}
  derivatives:
    self: grad.t()
"""


def test_valid_entry_parses_into_the_model():
    mul, t = load_text(VALID)
    assert str(mul.schema) == "mul.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert mul.key == "mul_Tensor" and mul.line == 2
    assert mul.variants == ("function", "method", "inplace", "out")  # canonical order
    assert mul.kind == "pointwise" and mul.promotion == Promotion("default", ("self", "other"))
    assert mul.impl.meta == "broadcast" and mul.dtype_list == DTYPES
    # One expression for every dtype category, parsed once into a tree.
    assert {k: e.text for k, e in mul.impl.exprs.items()} == {
        "floating": "self * other * alpha", "integral": "self * other * alpha", "bool": "self * other * alpha",
        "complex": "self * other * alpha"}
    assert mul.impl.exprs["floating"].tree == E.Binary("*", E.Binary("*", E.Name("self"), E.Name("other")),
                                                       E.Name("alpha"))
    d = mul.derivatives
    assert [f.inputs for f in d.formulas] == [("self",), ("other",)]
    assert d.formulas[0].expr.text == "mul(grad, other)" and d.formulas[0].expr.line == 8
    assert d.formulas[0].expr.tree == E.Call("mul", (E.Name("grad"), E.Name("other")))
    assert d.jvp.kind == "elementwise" and d.nondiff == () and d.zero_fill
    assert mul.test.domain == (-1, 1) and mul.test.xfail == "not yet"
    assert t.kind == "any" and t.schema.is_view and t.impl == AnyDevice("t_any")
    assert [f.inputs for f in t.derivatives.formulas] == [("self",)]
    assert t.derivatives.formulas[0].expr.tree == E.Method(E.Name("grad"), "t", ())


def test_real_schema_loads():
    functions = load(os.path.join(ROOT, "native_functions.yaml"))
    by_name = {nf.schema.full_name: nf for nf in functions}
    assert "add.Tensor" in by_name and "sum.dim_IntList" in by_name
    assert by_name["sum.dim_IntList"].meta == "reduction"
    assert by_name["transpose.int"].kind == "any"


# ------------------------------------------------------------------ generation

def _generate(out: str) -> None:
    subprocess.run([sys.executable, "-m", "codegen", "generate", "--out", out, "--quiet"], cwd=ROOT,
                   check=True)


def _files(root: str) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def test_generate_is_byte_deterministic(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    _generate(a)
    _generate(b)
    files = _files(a)
    assert files and files == _files(b)
    match, mismatch, errors = filecmp.cmpfiles(a, b, files, shallow=False)
    assert mismatch == [] and errors == []
    for f in files:  # no absolute paths of the checkout or the output folder leak in
        text = open(os.path.join(a, f)).read()
        assert a not in text and ROOT not in text, f


def test_second_generate_rewrites_nothing(tmp_path):
    out = str(tmp_path / "g")
    _generate(out)
    before = {f: os.stat(os.path.join(out, f)).st_mtime_ns for f in _files(out)}
    # Backdate everything so that a rewrite would show even on a coarse clock.
    for f in before:
        os.utime(os.path.join(out, f), ns=(1_000_000_000, 1_000_000_000))
    _generate(out)
    after = {f: os.stat(os.path.join(out, f)).st_mtime_ns for f in _files(out)}
    assert set(after) == set(before)
    assert all(ns == 1_000_000_000 for ns in after.values())


def test_builtin_meta_with_dispatch_needs_promotion():
    # The generated wrapper calls kernels::<key>_result_dtype, which only promotion defines.
    check("""
        - func: foo(Tensor self) -> Tensor
          meta: reduction
          dispatch: {cpu: foo_out_cpu}
        """, 2, "foo", "meta reduction takes the result dtype from promotion: add promotion (default, "
        "int_to_float, always_bool, self_dtype, int_to_long)")


def test_int_to_long_promotion_needs_self():
    check("""
        - func: foo(Tensor x) -> Tensor
          promotion: int_to_long
          meta: reduction
          dispatch: {cpu: foo_out_cpu}
        """, 2, "foo", "promotion int_to_long needs a Tensor argument named 'self'")


def test_optional_tensor_list_type():
    """Tensor?[] (index_put's indices): a list whose items may be None; no other T?[] exists."""
    from codegen import cpp
    from codegen.model import Type
    from codegen.python_sig import arg_kind, pyi_type

    t = Type.parse("Tensor?[]", "indices")
    assert t.is_list and t.elem_optional and not t.optional and str(t) == "Tensor?[]"
    assert cpp.param_type(t) == "ArrayRef<std::optional<Tensor>>"
    assert arg_kind(t) == "OptTensorList" and pyi_type(t) == "Sequence[Tensor | None]"
    with pytest.raises(ValueError, match="unknown type"):
        Type.parse("int?[]", "x")


# ------------------------------------------------------------------ several returns

def test_several_returns_need_a_custom_meta():
    check("""
        - func: foo(Tensor self) -> (Tensor a, Tensor b)
          meta: reduction
          promotion: self_dtype
          dispatch: {cpu: foo_out_cpu}
        """, 2, "foo", "meta reduction sizes one output: an op with several returns needs a C++ meta function "
        "returning std::array<TensorMeta, 2>")


def test_name_every_return_or_none():
    check("""
        - func: foo(Tensor self) -> (Tensor a, Tensor)
          composite: true
        """, 1, "foo", "name every return or none: named returns make a named tuple (torchlite.return_types.<name>)")


def test_overloads_share_return_names():
    check("""
        - func: foo(Tensor self) -> (Tensor a, Tensor b)
          composite: true
        - func: foo.dim(Tensor self, int dim) -> (Tensor a, Tensor c)
          composite: true
        """, 3, "foo.dim", "returns (a, c) differ from foo's (a, b): overloads of 'foo' share one named tuple type")


def test_out_variant_with_several_returns_generates_a_tuple_of_targets(tmp_path):
    from codegen import cpp
    from codegen.gen import op_context

    (nf,) = load_text(textwrap.dedent("""
        - func: foo.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
          variants: [function, method, out]
          meta: foo_meta
          dispatch: {cpu: foo_out_cpu}
        """).lstrip("\n"))
    op = op_context(nf)
    assert op.outs.params == "const Tensor& out0, const Tensor& out1"
    assert op.outs.ret == "std::tuple<Tensor, Tensor>" and op.outs.meta_type == "std::array<TensorMeta, 2>"
    assert op.impl.kernel_type.endswith("const Tensor& out0, const Tensor& out1)")
    assert cpp.return_type(nf.schema) == "std::tuple<Tensor, Tensor>"


def test_check_messages_and_computes_in_out_dtype_in_the_generated_context():
    from codegen.gen import op_context

    (nf,) = load_text(textwrap.dedent("""
        - func: foo(Tensor self, int dim) -> Tensor
          variants: [function, out]
          tags: [computes_in_out_dtype]
          promotion: self_dtype
          meta: same_as_self
          dispatch: {cpu: foo_out_cpu}
          checks:
            "dim >= 0": dim must be positive
            "dim < 8": "foo(): dim must be below 8"
            "dim != 3": foos are not 3
        """).lstrip("\n"))
    op = op_context(nf)
    # A message is prefixed with the op's name unless it starts with that name as a word.
    assert [m for _, m in op.checks] == ['"foo: dim must be positive"', '"foo(): dim must be below 8"',
                                         '"foo: foos are not 3"']
    # The kernel computes in out's dtype: the meta lets any out= or in-place dtype through.
    assert op.impl.meta_expr.startswith("with_any_target_dtype(meta_same_as_self(kOp, self, ")


def test_ambiguous_cpp_defaults_are_dropped():
    from codegen import cpp

    fs = load_text(textwrap.dedent("""
        - func: foo(Tensor self) -> Tensor
          composite: true
        - func: foo.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
          composite: true
        - func: foo.dims(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor
          composite: true
        """).lstrip("\n"))
    firsts = cpp.first_defaults([f.schema for f in fs])
    # foo(x) would match foo.dims with its defaults: its dim loses the default, keepdim keeps it.
    assert firsts == {"foo": 0, "foo.dim": 0, "foo.dims": 2}
    assert cpp.params(fs[2].schema, defaults=True, first_default=2) == [
        "const Tensor& self", "std::optional<IntArrayRef> dim", "bool keepdim = false"]


def test_autocast_policies():
    check("""
        - func: foo(Tensor self) -> Tensor
          composite: true
          autocast: half
        """, 3, "foo", "unknown autocast policy 'half' (known: lower, fp32, promote)")
    check("""
        - func: foo(Tensor self) -> Tensor
          composite: true
          autocast: {tpu: lower}
        """, 3, "foo", "autocast must be a policy or a map {cpu: policy, cuda: policy}")
    check("""
        - func: foo(Tensor[] tensors) -> Tensor
          composite: true
          autocast: promote
        """, 3, "foo", "autocast needs Tensor (or Tensor?) arguments to cast")
    check("""
        - func: foo(Tensor self, Tensor[] tensors) -> Tensor
          composite: true
          autocast: promote
        """, 3, "foo", "autocast does not cast Tensor[] arguments")
