"""`python -m codegen check` and `generate` agree on every schema: the real one mutated in many ways.

All validation lives in the loading step, so a schema that `check` accepts is one that `generate`
generates, and one that `check` refuses, `generate` refuses with the same message, naming the file that
was given (`FILE:LINE: op: message`). Pure Python: no build needed.
"""
import contextlib
import io
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from codegen.__main__ import main  # noqa: E402

with open(os.path.join(ROOT, "native_functions.yaml")) as _f:
    SCHEMA = _f.read()

MUL = """\
- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  variants: [function, method, inplace, out]
  dtypes: all
  promotion: default
  pointwise: self * other
  derivatives:
    self: grad * other
    other: grad * self
  jvp: elementwise
"""


def entry(func: str) -> str:
    """The text of the schema entry whose `func:` starts with func, up to the blank line after it."""
    start = SCHEMA.index(f"- func: {func}")
    return SCHEMA[start:SCHEMA.index("\n\n", start) + 1]


SUM = entry("sum.dim_IntList(")
MAX_DIM = entry("max.dim(")
SUM_META = "  meta: reduction\n  dispatch: {cpu: sum_out_cpu, cuda: sum_out_cuda}\n"
MAX_DIM_JVP = "  jvp:\n    values: gather_with_keepdimed_indices(self_t, dim, indices, keepdim)\n"


def replace(old: str, new: str, within: str | None = None):
    """A mutation: old becomes new, in the entry `within` when given (old may recur elsewhere)."""
    if within is not None:
        assert within.count(old) == 1, f"{old!r} is not in the entry"
        old, new = within, within.replace(old, new)

    def mutate(text: str) -> str:
        assert text.count(old) == 1, f"the mutation's anchor is not unique in the schema: {old!r}"
        return text.replace(old, new)
    return mutate


# (name, mutation, the message it must give, or None when the mutated schema is valid)
MUTATIONS = [
    ("drop_meta", replace(SUM_META, "  dispatch: {cpu: sum_out_cpu, cuda: sum_out_cuda}\n", SUM),
     "sum.dim_IntList: dispatch with out-kernels needs meta"),
    ("drop_promotion", replace(MUL, MUL.replace("  promotion: default\n", "")), "mul.Tensor: pointwise ops need promotion"),
    ("drop_func", replace(MUL, MUL.replace("- func: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  variants",
                                           "- variants")), "each entry must be a mapping with a `func:` key"),
    ("unknown_name_in_formula", replace(MUL, MUL.replace("self: grad * other", "self: grad * bogus")),
     "mul.Tensor: unknown name 'bogus' in derivative formula for 'self'"),
    ("unknown_helper_in_formula", replace(MUL, MUL.replace("self: grad * other", "self: bogus_backward(grad)")),
     "mul.Tensor: unknown function 'bogus_backward' in derivative formula for 'self'"),
    ("unknown_name_in_pointwise", replace(MUL, MUL.replace("pointwise: self * other", "pointwise: self * othr")),
     "mul.Tensor: unknown name 'othr' in pointwise expression"),
    ("pointwise_syntax", replace(MUL, MUL.replace("pointwise: self * other", "pointwise: (self * other")),
     "mul.Tensor: pointwise expression '(self * other': expected ')' at the end"),
    ("joint_formula_with_elementwise_jvp",
     replace(MUL, MUL.replace("    self: grad * other\n    other: grad * self\n",
                              '    "self, other": sum_to_size(grad, self.sizes())\n')),
     "mul.Tensor: jvp: elementwise needs one formula per single Tensor input"),
    ("jvp_kind_on_several_returns", replace(MAX_DIM_JVP, "  jvp: linear\n", MAX_DIM),
     "max.dim: jvp: linear serves ops with one return"),
    ("jvp_formula_on_several_returns",
     replace(MAX_DIM_JVP, "  jvp: gather_with_keepdimed_indices(self_t, dim, indices, keepdim)\n", MAX_DIM),
     "max.dim: an op with several returns needs one jvp formula per differentiable return"),
    ("jvp_for_a_nondiff_output", replace(MAX_DIM_JVP, "  jvp:\n    indices: self_t\n", MAX_DIM),
     "max.dim: jvp names 'indices', which is not a differentiable return"),
    ("duplicate_overload", lambda text: text + "\n" + MUL, "mul.Tensor: duplicate overload 'mul.Tensor'"),
    ("bad_dtype_set", replace(MUL, MUL.replace("dtypes: all", "dtypes: floatingish")),
     "mul.Tensor: unknown dtypes 'floatingish'"),
    ("bad_dtype_in_list", replace(MUL, MUL.replace("dtypes: all", "dtypes: [float32, complex64]")),
     "mul.Tensor: unknown dtype 'complex64' in dtypes"),
    ("derivative_for_a_missing_argument", replace(MUL, MUL.replace("other: grad * self", "othr: grad * self")),
     "mul.Tensor: derivative for 'othr', which is not a Tensor argument"),
    ("missing_derivative", replace(MUL, MUL.replace("    other: grad * self\n", "")),
     "mul.Tensor: differentiable input 'other' has no derivative formula"),
    ("metadata_of_grad", replace(MUL, MUL.replace("self: grad * other", "self: sum_to_size(grad, grad.sizes())")),
     "mul.Tensor: '.sizes()' in derivative formula for 'self' reads the metadata of a Tensor argument"),
    ("unknown_variant", replace(MUL, MUL.replace("[function, method, inplace, out]", "[function, methods]")),
     "mul.Tensor: unknown variant 'methods'"),
    ("two_implementations", replace(SUM_META, SUM_META + "  composite: true\n", SUM),
     "sum.dim_IntList: more than one implementation: dispatch and composite"),
    ("unknown_key", replace(MUL, MUL + "  bogus: 1\n"), "mul.Tensor: unknown key 'bogus'"),
    # Valid mutations: both commands succeed.
    ("reordered_formulas", replace(MUL, MUL.replace("    self: grad * other\n    other: grad * self\n",
                                                    "    other: grad * self\n    self: grad * other\n")), None),
    ("new_op", lambda text: text + "\n" + MUL.replace("mul.Tensor", "mul_twice.Tensor").replace(
        "self * other", "self * other * 2"), None),
]


def run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue().strip()


@pytest.mark.parametrize("name,mutate,message", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_check_and_generate_agree(tmp_path, name, mutate, message):
    path = str(tmp_path / "schema.yaml")
    with open(path, "w") as f:
        f.write(mutate(SCHEMA))
    checked = run(["check", "--yaml", path])
    generated = run(["generate", "--yaml", path, "--out", str(tmp_path / "generated"), "--quiet"])
    assert checked == generated, f"check and generate disagree on {name}"
    code, err = checked
    if message is None:
        assert code == 0 and err == ""
        assert os.path.exists(tmp_path / "generated" / "files.cmake")
    else:
        assert code == 1
        # The error names the file that was given, the line, the op and the rule.
        assert err.startswith(f"error: {path}:"), err
        assert message in err, err


def test_error_names_the_file_relative_to_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "my_ops.yaml").write_text(MUL.replace("pointwise: self * other", "pointwise: self * othr"))
    monkeypatch.chdir(tmp_path)
    code, err = run(["check", "--yaml", "my_ops.yaml"])
    assert code == 1 and err.startswith("error: my_ops.yaml:5: mul.Tensor: unknown name 'othr'"), err
