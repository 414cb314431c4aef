"""Write tests/data/promotion_table.json: PyTorch's type-promotion results.

    python tools/make_promotion_table.py [--out tests/data/promotion_table.json]

Needs PyTorch (the CPU wheel is enough); torchlite is not imported. Run it
from any directory; the output is deterministic (sorted keys, fixed operand
values), so re-running it with the same PyTorch gives the same file. Commit
the result: tests/test_promotion.py reads it and runs without PyTorch.

Operands are named by strings:
    "<dtype>[2]"  a 1-dim tensor of 2 elements, e.g. "int32[2]"
    "<dtype>[]"   a 0-dim tensor, e.g. "int32[]"
    "bool", "int", "float"   a Python number (values in "number_values")

Sections (all nested dicts, first operand -> second operand -> result):
    promote_types[d1][d2]                 torch.promote_types(d1, d2), a dtype name
    can_cast[from][to]                    torch.can_cast(from, to), a bool
    result_type[a][b]                     torch.result_type(a, b) with the default
                                          dtype float32; every operand pair,
                                          number/number included
    add[a][b]                             (a + b).dtype and torch.add(a, b).dtype
                                          (checked equal here) for every pair with
                                          at least one tensor
    result_type_default_float64[a][b]     torch.result_type(a, b) with the default
                                          dtype float64, for pairs with a Python float
    add_default_float64[a][b]             (a + b).dtype under the same default, for
                                          those pairs with at least one tensor
Dtype names are torch's without the "torch." prefix ("float32").
"""
from __future__ import annotations

import argparse
import json
import os

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "tests", "data", "promotion_table.json")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
NUMBER_VALUES = {"bool": True, "int": 1, "float": 1.5}


def operand_names() -> list[str]:
    names = []
    for d in DTYPES:
        names += [f"{d}[2]", f"{d}[]"]
    return names + list(NUMBER_VALUES)


def make_operand(name: str):
    if name in NUMBER_VALUES:
        return NUMBER_VALUES[name]
    dtype_name, shape = name.split("[")
    size = (2,) if shape == "2]" else ()
    return torch.ones(size, dtype=getattr(torch, dtype_name))


def is_number(name: str) -> bool:
    return name in NUMBER_VALUES


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def add_dtype(a, b) -> str:
    via_op = (a + b).dtype
    via_fn = torch.add(a, b).dtype
    assert via_op == via_fn, (a, b, via_op, via_fn)
    return dtype_name(via_op)


def promotion_sections(names: list[str]) -> tuple[dict, dict]:
    result_type: dict[str, dict[str, str]] = {}
    add: dict[str, dict[str, str]] = {}
    for a in names:
        for b in names:
            x, y = make_operand(a), make_operand(b)
            result_type.setdefault(a, {})[b] = dtype_name(torch.result_type(x, y))
            if not (is_number(a) and is_number(b)):
                add.setdefault(a, {})[b] = add_dtype(x, y)
    return result_type, add


def build() -> dict:
    dtypes = {d: getattr(torch, d) for d in DTYPES}
    table: dict = {
        "torch_version": torch.__version__,
        "dtypes": DTYPES,
        "number_values": NUMBER_VALUES,
        "promote_types": {a: {b: dtype_name(torch.promote_types(dtypes[a], dtypes[b])) for b in DTYPES}
                          for a in DTYPES},
        "can_cast": {a: {b: torch.can_cast(dtypes[a], dtypes[b]) for b in DTYPES} for a in DTYPES},
    }
    names = operand_names()
    saved = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float32)
        table["result_type"], table["add"] = promotion_sections(names)
        torch.set_default_dtype(torch.float64)
        rt64, add64 = promotion_sections(names)
    finally:
        torch.set_default_dtype(saved)
    table["result_type_default_float64"] = {
        a: {b: r for b, r in row.items() if "float" in (a, b)} for a, row in rt64.items()}
    table["add_default_float64"] = {
        a: {b: r for b, r in row.items() if "float" in (a, b)} for a, row in add64.items()}
    for key in ("result_type_default_float64", "add_default_float64"):
        table[key] = {a: row for a, row in table[key].items() if row}
    return table


def count_entries(table: dict) -> dict[str, int]:
    return {k: sum(len(row) for row in v.values()) for k, v in table.items()
            if isinstance(v, dict) and k != "number_values"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args()
    table = build()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")
    counts = count_entries(table)
    print(f"wrote {args.out} (torch {table['torch_version']}): "
          + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) + f"; total {sum(counts.values())}")


if __name__ == "__main__":
    main()
