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
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from codegen.__main__ import main  # noqa: E402

with open(os.path.join(ROOT, "native_functions.yaml")) as _f:
    SCHEMA = _f.read()
with open(os.path.join(ROOT, "tests", "codegen_mutations.yaml")) as _f:
    MUTATIONS = yaml.safe_load(_f)


def entry(func: str) -> str:
    """The text of the schema entry whose `- func:` line starts with func, up to the blank line after it."""
    start = SCHEMA.index(f"- func: {func}")
    return SCHEMA[start:SCHEMA.index("\n\n", start) + 1]


def mutated(m: dict) -> str:
    """The schema with mutation m (tests/codegen_mutations.yaml) applied."""
    text = entry(m["entry"])
    assert text.count(m["old"]) == 1, f"{m['name']}: {m['old']!r} is not in the entry once"
    changed = text.replace(m["old"], m["new"])
    if m.get("append"):
        return SCHEMA + "\n" + changed
    assert SCHEMA.count(text) == 1
    return SCHEMA.replace(text, changed)


def run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue().strip()


@pytest.mark.parametrize("m", MUTATIONS, ids=[m["name"] for m in MUTATIONS])
def test_check_and_generate_agree(tmp_path, m):
    path = str(tmp_path / "schema.yaml")
    with open(path, "w") as f:
        f.write(mutated(m))
    checked = run(["check", "--yaml", path])
    generated = run(["generate", "--yaml", path, "--out", str(tmp_path / "generated"), "--quiet"])
    assert checked == generated, f"check and generate disagree on {m['name']}"
    code, err = checked
    if "error" not in m:
        assert code == 0 and err == ""
        assert os.path.exists(tmp_path / "generated" / "files.cmake")
    else:
        assert code == 1
        # The error names the file that was given, the line, the op and the rule.
        assert err.startswith(f"error: {path}:"), err
        assert m["error"] in err, err


def test_error_names_the_file_relative_to_the_working_directory(tmp_path, monkeypatch):
    mul = entry("mul.Tensor(")
    (tmp_path / "my_ops.yaml").write_text(mul.replace("pointwise: self * other", "pointwise: self * othr"))
    monkeypatch.chdir(tmp_path)
    code, err = run(["check", "--yaml", "my_ops.yaml"])
    assert code == 1 and err.startswith("error: my_ops.yaml:6: mul.Tensor: unknown name 'othr'"), err
