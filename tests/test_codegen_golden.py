"""Golden outputs: what the generator writes for two ops, committed under tests/golden/.

`add.Tensor` (a pointwise op: its kernels come from the expression) and `sum.dim_IntList` (hand-written
kernels, a built-in meta, a backward node that saves metadata): their op file (the call path and the
backward node), their kernel declarations, and their Python binding entries. A template or generator
change shows up here, in review, as a diff of C++; and a reader sees the YAML -> C++ path without
building. Each golden file is the generated file's text with `.golden` added to its name (so no tool
takes it for a source). After a change you meant, rewrite them with

    python3 tests/test_codegen_golden.py

Pure Python: no build needed.
"""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from codegen.python_sig import PyName  # noqa: E402
GOLDEN = os.path.join(ROOT, "tests", "golden")

# golden file -> (generated file, Python names whose binding entries it holds, or None for the whole file)
FILES = {
    "add_Tensor/ops/add_Tensor.h.golden": ("ops/add_Tensor.h", None),
    "add_Tensor/ops/add_Tensor.cpp.golden": ("ops/add_Tensor.cpp", None),
    "add_Tensor/kernels/add_Tensor.h.golden": ("kernels/add_Tensor.h", None),
    "add_Tensor/kernels/add_Tensor_cpu.cpp.golden": ("kernels/add_Tensor_cpu.cpp", None),
    "add_Tensor/kernels/add_Tensor_cuda.cu.golden": ("kernels/add_Tensor_cuda.cu", None),
    "add_Tensor/python/add.cpp.golden": ("python/shard_{shard}.cpp", ("add", "Tensor.add", "Tensor.add_")),
    "sum_dim_IntList/ops/sum_dim_IntList.cpp.golden": ("ops/sum_dim_IntList.cpp", None),
    "sum_dim_IntList/kernels/sum_dim_IntList.h.golden": ("kernels/sum_dim_IntList.h", None),
    "sum_dim_IntList/python/sum.cpp.golden": ("python/shard_{shard}.cpp", ("sum", "Tensor.sum")),
}


def binding_entries(shard_text: str, names: tuple[str, ...]) -> str:
    """The `// ---- <name>` blocks of a binding shard for the given Python names."""
    blocks = re.split(r"\n(?=// ---- )", shard_text.split("\nPyMethodDef kFunctions")[0])
    picked = [b.rstrip("\n") + "\n" for b in blocks if b.startswith("// ---- ") and
              b.split("\n", 1)[0][len("// ---- "):] in names]
    assert len(picked) == len(names), f"binding entries for {names} not found"
    return "\n".join(picked)


def generated_texts(out: str) -> dict[str, str]:
    subprocess.run([sys.executable, "-m", "codegen", "generate", "--out", out, "--quiet"], cwd=ROOT, check=True)
    texts = {}
    for golden, (rel, names) in FILES.items():
        if names is not None:
            rel = rel.format(shard=PyName(names[0], "", names[0], []).shard)
        with open(os.path.join(out, rel)) as f:
            text = f.read()
        texts[golden] = binding_entries(text, names) if names else text
    return texts


@pytest.mark.parametrize("golden", sorted(FILES))
def test_generated_code_matches_the_golden_file(golden, generated):
    with open(os.path.join(GOLDEN, golden)) as f:
        expected = f.read()
    assert generated[golden] == expected, (
        f"generated code for tests/golden/{golden} changed: if the change is meant, run "
        "`python3 tests/test_codegen_golden.py` and commit the new golden files")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return generated_texts(str(tmp_path_factory.mktemp("generated")))


if __name__ == "__main__":  # rewrite the golden files
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for golden, text in generated_texts(tmp).items():
            path = os.path.join(GOLDEN, golden)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            print(f"wrote tests/golden/{golden}")
