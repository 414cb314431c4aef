"""The layers of csrc/ and which may include which (docs/architecture.md, "Layers").

Every `#include "..."` of a hand-written file under csrc/ is checked against the table below: an include
that goes the wrong way fails here, before it lands. There are no exceptions. Pure Python: no build needed.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")

# Layer -> the layers its files may include (their own included). Generated headers: `ops` (the C++ API of
# every op, ops/<key>.h) and `op_kernels` (kernels/<key>.h, the declarations of an op's hand-written
# functions).
KERNELS = {"core", "dispatch", "kernels", "op_kernels", "ops"}
MAY_INCLUDE = {
    "core": {"core"},
    "dispatch": {"core", "dispatch"},
    "kernels": KERNELS,  # the device-independent kernel machinery: iterators, scalar math, conversions
    "kernels/cpu": KERNELS | {"kernels/cpu"},
    "kernels/gpu": KERNELS | {"kernels/gpu"},  # CUDA kernels written once for two backends (.inc)
    "kernels/cuda": KERNELS | {"kernels/cuda", "kernels/gpu"},
    "kernels/generic": KERNELS | {"kernels/generic"},
    "meta": KERNELS | {"meta"},  # shape rules shared by every device (the schema's `meta:` functions)
    # sparse COO tensors: their parts and the few operations autograd and the bindings need, written with ops
    "sparse": {"core", "ops", "sparse"},
    "autograd": {"core", "dispatch", "autograd", "ops", "sparse"},
    # out=, in place, views, and the conjugate step (0), which calls resolve_conj
    "stage": {"core", "dispatch", "kernels", "op_kernels", "ops", "autograd", "stage"},
    "composite": {"core", "dispatch", "composite", "ops", "op_kernels", "kernels/generic", "sparse"},
    "cuda": {"core", "cuda"},  # the CUDA runtime: device functions, cuBLAS loading
    "python": {"core", "dispatch", "kernels", "autograd", "ops", "python", "sparse"},
}

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path: str) -> str:
    """The layer of a path relative to csrc/: its folder (kernels/<sub> for kernel subfolders)."""
    parts = path.split("/")
    if parts[0] == "kernels" and len(parts) > 2:
        return f"kernels/{parts[1]}"
    return parts[0]


def included_layer(include: str) -> str:
    if os.path.exists(os.path.join(CSRC, include)):
        return layer_of(include)
    # Not hand-written: a generated header (generated/ops, generated/kernels).
    return {"ops": "ops", "kernels": "op_kernels"}.get(include.split("/")[0], "unknown")


def includes() -> list[tuple[str, str]]:
    out = []
    for folder, _, files in os.walk(CSRC):
        for name in sorted(files):
            path = os.path.relpath(os.path.join(folder, name), CSRC).replace(os.sep, "/")
            with open(os.path.join(CSRC, path), errors="replace") as f:
                out += [(path, inc) for inc in _INCLUDE.findall(f.read())]
    return sorted(out)


def test_every_folder_has_a_layer():
    folders = {layer_of(p) for p, _ in includes()}
    assert folders <= set(MAY_INCLUDE), f"add these folders to MAY_INCLUDE: {sorted(folders - set(MAY_INCLUDE))}"


# Includes that go the wrong way and are known, each to be moved: the linalg helpers of issue 18 (2026-11-27)
# reach kernels/Linalg.h and composite/Numbers.h from autograd, and the grad mode from a composite. Listed
# one by one, so a new wrong include still fails; take each off when it is fixed.
KNOWN_WRONG = {
    ("autograd/helpers_linalg.cpp", "composite/Numbers.h"),
    ("autograd/helpers_linalg.cpp", "kernels/Linalg.h"),
    ("composite/linalg_namespace.cpp", "autograd/GradMode.h"),
    ("composite/linalg_namespace.cpp", "autograd/Stage.h"),
    ("composite/linalg_namespace.cpp", "kernels/Linalg.h"),
}


def test_includes_go_down_the_layers():
    wrong = []
    for path, inc in includes():
        src, dst = layer_of(path), included_layer(inc)
        if dst not in MAY_INCLUDE[src] and (path, inc) not in KNOWN_WRONG:
            wrong.append(f"{path} includes {inc}: {src} may include {', '.join(sorted(MAY_INCLUDE[src]))}")
    assert not wrong, "includes that go the wrong way (docs/architecture.md, Layers):\n" + "\n".join(wrong)


def test_the_check_catches_a_wrong_include():
    """The rule itself: core including dispatch (as core/CudaEmulation.cpp once did) is refused."""
    assert included_layer("dispatch/KernelTable.h") not in MAY_INCLUDE["core"]
    assert included_layer("ops/add_Tensor.h") == "ops" and "ops" not in MAY_INCLUDE["dispatch"]


def test_known_wrong_includes_still_exist():
    """An entry of KNOWN_WRONG that was fixed must leave the list."""
    assert KNOWN_WRONG <= set(includes())
