"""Type promotion against PyTorch's own answers.

tests/data/promotion_table.json holds PyTorch's results (written by
tools/make_promotion_table.py, which documents the operand names); every entry
is one test case here, so a failure names the case. Known disagreements are
listed in KNOWN_DISCREPANCIES and marked xfail(strict=True): fixing one makes
its case fail until the entry is removed.
"""
import json
import os

import pytest

import torchlite as tl

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "promotion_table.json")) as _f:
    TABLE = json.load(_f)

DTYPE_NAMES = TABLE["dtypes"]
NUMBER_VALUES = TABLE["number_values"]


def dtype(name):
    return getattr(tl, name)


def make_operand(name):
    """"int32[2]" -> 1-dim tensor, "int32[]" -> 0-dim tensor, "bool"/"int"/"float" -> a Python number."""
    if name in NUMBER_VALUES:
        return NUMBER_VALUES[name]
    dtype_name, shape = name.split("[")
    return tl.ones((2,) if shape == "2]" else (), dtype=dtype(dtype_name))


def is_tensor_operand(name):
    return name not in NUMBER_VALUES


# (section, first, second) -> why torchlite disagrees with PyTorch there.
KNOWN_DISCREPANCIES = {}


def cases(section, kind=None):
    """pytest params (a, b, expected) for one section of the table, xfail-marked where known to disagree."""
    params = []
    for a, row in sorted(TABLE[section].items()):
        for b, expected in sorted(row.items()):
            reason = KNOWN_DISCREPANCIES.get((kind or section, section, a, b))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(a, b, expected, id=f"{a},{b}", marks=marks))
    return params


@pytest.fixture
def default_float64():
    saved = tl.get_default_dtype()
    tl.set_default_dtype(tl.float64)
    try:
        yield
    finally:
        tl.set_default_dtype(saved)


def test_table_is_complete():
    names = [f"{d}[2]" for d in DTYPE_NAMES] + [f"{d}[]" for d in DTYPE_NAMES] + list(NUMBER_VALUES)
    # The table covers the ten dtypes of the schema's `all`; uint16/32/64 and complex64/128 (whose promotion
    # PyTorch refuses in part) are checked in tests/test_complex.py.
    newer = {"uint16", "uint32", "uint64", "complex64", "complex128"}
    assert sorted(DTYPE_NAMES) == sorted(n for n in dir(tl) if isinstance(getattr(tl, n), tl.dtype)
                                         and str(getattr(tl, n)) == f"torchlite.{n}" and n not in newer)
    assert sum(len(r) for r in TABLE["promote_types"].values()) == len(DTYPE_NAMES) ** 2
    assert sum(len(r) for r in TABLE["can_cast"].values()) == len(DTYPE_NAMES) ** 2
    assert sum(len(r) for r in TABLE["result_type"].values()) == len(names) ** 2
    assert sum(len(r) for r in TABLE["add"].values()) == len(names) ** 2 - len(NUMBER_VALUES) ** 2
    assert sum(len(r) for r in TABLE["result_type_default_float64"].values()) == 2 * len(names) - 1
    assert TABLE["torch_version"].startswith("2.")


@pytest.mark.parametrize("a, b, expected", cases("promote_types"))
def test_promote_types(a, b, expected):
    assert tl.promote_types(dtype(a), dtype(b)) is dtype(expected)


@pytest.mark.parametrize("a, b, expected", cases("can_cast"))
def test_can_cast(a, b, expected):
    assert tl.can_cast(dtype(a), dtype(b)) is expected


@pytest.mark.parametrize("a, b, expected", cases("result_type"))
def test_result_type(a, b, expected):
    assert tl.result_type(make_operand(a), make_operand(b)) is dtype(expected)


@pytest.mark.parametrize("a, b, expected", cases("add", kind="a + b"))
def test_add_operator_dtype(a, b, expected):
    assert (make_operand(a) + make_operand(b)).dtype is dtype(expected)


@pytest.mark.parametrize("a, b, expected", cases("add", kind="torchlite.add"))
def test_add_function_dtype(a, b, expected):
    assert tl.add(make_operand(a), make_operand(b)).dtype is dtype(expected)


@pytest.mark.parametrize("a, b, expected", cases("result_type_default_float64"))
def test_result_type_default_float64(default_float64, a, b, expected):
    assert tl.get_default_dtype() is tl.float64
    assert tl.result_type(make_operand(a), make_operand(b)) is dtype(expected)


@pytest.mark.parametrize("a, b, expected", cases("add_default_float64", kind="a + b"))
def test_add_operator_dtype_default_float64(default_float64, a, b, expected):
    assert (make_operand(a) + make_operand(b)).dtype is dtype(expected)


@pytest.mark.parametrize("a, b, expected", cases("add_default_float64", kind="torchlite.add"))
def test_add_function_dtype_default_float64(default_float64, a, b, expected):
    assert tl.add(make_operand(a), make_operand(b)).dtype is dtype(expected)


def test_default_dtype_restored_after_float64_fixture(default_float64):
    # The autouse fixture checks, after this test, that default_float64 put float32 back.
    assert tl.get_default_dtype() is tl.float64


def test_result_type_ignores_values():
    x = tl.ones(2, dtype=tl.uint8)
    assert tl.result_type(x, -1) is tl.uint8
    assert tl.result_type(x, 1000) is tl.uint8
    assert tl.result_type(x, 1e300) is tl.float32
    assert tl.result_type(tl.ones((), dtype=tl.float64), 2) is tl.float64


BAD_ARGS = ["float32", None, object(), [1], tl.float32]


@pytest.mark.parametrize("bad", BAD_ARGS, ids=lambda v: type(v).__name__)
def test_result_type_rejects_non_tensor_non_number(bad):
    x = tl.ones(2)
    with pytest.raises(TypeError):
        tl.result_type(bad, x)
    with pytest.raises(TypeError):
        tl.result_type(x, bad)
    with pytest.raises(TypeError):
        tl.result_type(bad, 1)


@pytest.mark.parametrize("fn", [tl.promote_types, tl.can_cast], ids=lambda f: f.__name__)
@pytest.mark.parametrize("bad", ["float32", None, 1, 1.0, tl.ones(1)], ids=lambda v: type(v).__name__)
def test_dtype_functions_reject_non_dtypes(fn, bad):
    with pytest.raises(TypeError):
        fn(bad, tl.int32)
    with pytest.raises(TypeError):
        fn(tl.int32, bad)
