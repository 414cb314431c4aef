"""How much of PyTorch's documented API torchlite has (issue 18's done-when: 95%).

The documented names are read from the PyTorch 2.7 documentation's general index (the seed text at
/work/shared/seeds/004_e11dba1f6b396393.txt, or the file given with --docs): every entry
`NAME() (in module torch)` or `NAME (class in torch)` is a top-level callable, every entry
`NAME() (torch.Tensor method)` / `NAME (torch.Tensor attribute|property)` a Tensor method or property.
Sparse, quantized, named-tensor, JIT/compiler and private (`_`) names are left out (the lists below).

    python tools/api_coverage.py            # the numbers and the missing names
    python tools/api_coverage.py --quiet    # the numbers only
"""
import argparse
import re
import sys

DOCS = "/work/shared/seeds/004_e11dba1f6b396393.txt"

# Names outside the scope, by kind.
SPARSE = re.compile(r"sparse|_coo|_csr|_csc|_bsr|_bsc|^(indices|values|crow_indices|col_indices|ccol_indices|"
                    r"row_indices|coalesce|is_coalesced|dense_dim|to_dense|smm|sspaddmm|hspmm|spmm)$")
QUANTIZED = re.compile(r"^(q_|quantize|dequantize|int_repr|qscheme|fake_quantize|is_quantized|quantized)")
NAMED = {"names", "rename", "rename_", "refine_names", "align_as", "align_to", "has_names"}
# The compiler, JIT, export and symbolic-shape machinery, and Python-protocol entries: not tensor API.
INTERNAL = {
    "compile", "compiled_with_cxx11_abi", "export", "vmap", "cond", "while_loop", "jit", "load_library",
    "sym_float", "sym_int", "sym_max", "sym_min", "sym_not", "sym_ite", "sym_sum", "sym_fresh_size", "SymInt",
    "SymFloat", "SymBool", "Tag", "classproperty", "is_from_lazy", "module_load", "__torch_function__",
    "__torch_dispatch__", "__init__", "__new__", "__repr__", "__len__",
}
# The storage API (the legacy typed storages torch.FloatStorage..., untyped_storage()): not tensor API.
STORAGE = re.compile(r"Storage$|^(storage|untyped_storage|storage_type|is_storage)$")


def documented(path):
    """{'torch': set of top-level callables, 'Tensor': set of Tensor methods and properties}."""
    out = {"torch": set(), "Tensor": set()}
    entry = re.compile(r"^  \* ([A-Za-z_][A-Za-z0-9_]*)(\(\))? \((.*)\)\s*$")
    sub = re.compile(r"^    \* \((.*)\)\s*$")
    name = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = entry.match(line)
            if m:
                name, qual = m.group(1), m.group(3)
            else:
                m = sub.match(line)
                if not m or name is None:
                    if not line.startswith("    "):
                        name = None
                    continue
                qual = m.group(1)
            if qual in ("in module torch", "class in torch"):
                out["torch"].add(name)
            elif qual in ("torch.Tensor method", "torch.Tensor attribute", "torch.Tensor property"):
                out["Tensor"].add(name)
    for kind in out:
        out[kind] = {n for n in out[kind] if not (n.startswith("_") or SPARSE.search(n) or QUANTIZED.match(n)
                                                  or n in NAMED or n in INTERNAL or STORAGE.search(n))}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", default=DOCS)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    import torchlite

    doc = documented(args.docs)
    have = {"torch": lambda n: hasattr(torchlite, n), "Tensor": lambda n: hasattr(torchlite.Tensor, n)}
    total = found = 0
    for kind, label in (("torch", "top-level callables"), ("Tensor", "Tensor methods and properties")):
        names = sorted(doc[kind])
        missing = [n for n in names if not have[kind](n)]
        total += len(names)
        found += len(names) - len(missing)
        print(f"{label}: {len(names) - len(missing)}/{len(names)} "
              f"({100.0 * (len(names) - len(missing)) / max(len(names), 1):.1f}%)")
        if missing and not args.quiet:
            print("  missing: " + " ".join(missing))
    print(f"overall: {found}/{total} ({100.0 * found / max(total, 1):.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
