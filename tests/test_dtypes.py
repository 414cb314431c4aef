"""dtypes: aliases, properties, the default dtype, finfo and iinfo.

Expected values are facts observed from PyTorch 2.13 (torch.finfo / torch.iinfo,
dtype.is_floating_point / is_signed / itemsize, set_default_dtype's errors).
"""
import re

import pytest

import torchlite as tl

# name -> (is_floating_point, is_signed, itemsize), as torch reports them.
DTYPE_PROPERTIES = {
    "bool": (False, False, 1),
    "uint8": (False, False, 1),
    "int8": (False, True, 1),
    "int16": (False, True, 2),
    "int32": (False, True, 4),
    "int64": (False, True, 8),
    "float16": (True, True, 2),
    "bfloat16": (True, True, 2),
    "float32": (True, True, 4),
    "float64": (True, True, 8),
}
FLOAT_NAMES = [n for n, (fp, _, _) in DTYPE_PROPERTIES.items() if fp]
INT_NAMES = [n for n, (fp, _, _) in DTYPE_PROPERTIES.items() if not fp and n != "bool"]

# torch.finfo(d): bits, eps, max, min, tiny, smallest_normal, resolution, and repr.
FINFO = {
    "float16": dict(
        bits=16, eps=0.0009765625, max=65504.0, min=-65504.0, tiny=6.103515625e-05,
        smallest_normal=6.103515625e-05, resolution=0.001,
        repr="finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, "
             "tiny=6.10352e-05, dtype=float16)"),
    "bfloat16": dict(
        bits=16, eps=0.0078125, max=3.3895313892515355e+38, min=-3.3895313892515355e+38,
        tiny=1.1754943508222875e-38, smallest_normal=1.1754943508222875e-38, resolution=0.01,
        repr="finfo(resolution=0.01, min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, smallest_normal=1.17549e-38, "
             "tiny=1.17549e-38, dtype=bfloat16)"),
    "float32": dict(
        bits=32, eps=1.1920928955078125e-07, max=3.4028234663852886e+38, min=-3.4028234663852886e+38,
        tiny=1.1754943508222875e-38, smallest_normal=1.1754943508222875e-38, resolution=1e-06,
        repr="finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, smallest_normal=1.17549e-38, "
             "tiny=1.17549e-38, dtype=float32)"),
    "float64": dict(
        bits=64, eps=2.220446049250313e-16, max=1.7976931348623157e+308, min=-1.7976931348623157e+308,
        tiny=2.2250738585072014e-308, smallest_normal=2.2250738585072014e-308, resolution=1e-15,
        repr="finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, "
             "smallest_normal=2.22507e-308, tiny=2.22507e-308, dtype=float64)"),
}

# torch.iinfo(d): bits, min, max, and repr.
IINFO = {
    "uint8": dict(bits=8, min=0, max=255, repr="iinfo(min=0, max=255, dtype=uint8)"),
    "int8": dict(bits=8, min=-128, max=127, repr="iinfo(min=-128, max=127, dtype=int8)"),
    "int16": dict(bits=16, min=-32768, max=32767, repr="iinfo(min=-32768, max=32767, dtype=int16)"),
    "int32": dict(bits=32, min=-2147483648, max=2147483647,
                  repr="iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)"),
    "int64": dict(bits=64, min=-9223372036854775808, max=9223372036854775807,
                  repr="iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)"),
}

# PyTorch's messages, "torch" spelled "torchlite" (the odd 'torch.finfo' at the end is PyTorch's own).
FINFO_NOT_FLOAT = ("torchlite.finfo() requires a floating point input type. "
                   "Use torchlite.iinfo to handle 'torchlite.finfo'")
IINFO_NOT_INT = ("torchlite.iinfo() requires an integer input type. "
                 "Use torchlite.finfo to handle 'torchlite.iinfo'")
IINFO_BOOL = "torchlite.bool is not supported by torchlite.iinfo"
DEFAULT_NOT_FLOAT = "only floating-point types are supported as the default type"
DEFAULT_NOT_DTYPE = "invalid dtype object: only floating-point types are supported as the default type"


@pytest.fixture
def restore_default_dtype():
    saved = tl.get_default_dtype()
    try:
        yield
    finally:
        tl.set_default_dtype(saved)


# --- dtypes -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("alias, name", [
    ("half", "float16"), ("float", "float32"), ("double", "float64"),
    ("short", "int16"), ("int", "int32"), ("long", "int64"),
])
def test_dtype_aliases(alias, name):
    assert getattr(tl, alias) is getattr(tl, name)


@pytest.mark.parametrize("name", list(DTYPE_PROPERTIES))
def test_dtype_object(name):
    d = getattr(tl, name)
    assert isinstance(d, tl.dtype)
    assert str(d) == repr(d) == f"torchlite.{name}"
    assert d == d and hash(d) == hash(getattr(tl, name))


@pytest.mark.parametrize("name", list(DTYPE_PROPERTIES))
def test_dtype_properties(name):
    is_floating_point, is_signed, itemsize = DTYPE_PROPERTIES[name]
    d = getattr(tl, name)
    assert d.is_floating_point is is_floating_point
    assert d.is_signed is is_signed
    assert d.itemsize == itemsize and type(d.itemsize) is int


def test_dtypes_are_distinct():
    dtypes = [getattr(tl, n) for n in DTYPE_PROPERTIES]
    assert len(set(dtypes)) == len(dtypes)


# --- default dtype ------------------------------------------------------------------------------------------

def test_default_dtype_is_float32():
    assert tl.get_default_dtype() is tl.float32


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_set_default_dtype_floating(restore_default_dtype, name):
    d = getattr(tl, name)
    tl.set_default_dtype(d)
    assert tl.get_default_dtype() is d
    assert tl.ones(2).dtype is d
    assert tl.tensor(1.5).dtype is d
    assert tl.result_type(tl.ones(2, dtype=tl.int32), 1.5) is d
    assert tl.finfo().dtype == name


@pytest.mark.parametrize("name", ["bool"] + INT_NAMES)
def test_set_default_dtype_rejects_non_floating(name):
    with pytest.raises(TypeError, match="^" + re.escape(DEFAULT_NOT_FLOAT)):
        tl.set_default_dtype(getattr(tl, name))
    assert tl.get_default_dtype() is tl.float32


def test_set_default_dtype_message_names_the_dtype():
    # PyTorch's message, plus the offending dtype.
    with pytest.raises(TypeError, match="^" + re.escape(DEFAULT_NOT_FLOAT + ", got int32") + "$"):
        tl.set_default_dtype(tl.int32)


@pytest.mark.parametrize("bad", ["float32", None, 1], ids=lambda v: type(v).__name__)
def test_set_default_dtype_rejects_non_dtype(bad):
    with pytest.raises(TypeError):
        tl.set_default_dtype(bad)
    assert tl.get_default_dtype() is tl.float32


def test_set_default_dtype_non_dtype_message():
    with pytest.raises(TypeError, match="^" + re.escape(DEFAULT_NOT_DTYPE + ", got str") + "$"):
        tl.set_default_dtype("float32")


# --- finfo --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_finfo_values(name):
    fi = tl.finfo(getattr(tl, name))
    expected = FINFO[name]
    assert fi.bits == expected["bits"] and type(fi.bits) is int
    for attr in ("eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        value = getattr(fi, attr)
        assert type(value) is float, attr
        assert value == expected[attr], attr  # exact: these are the doubles PyTorch returns
    assert fi.dtype == name


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_finfo_repr(name):
    fi = tl.finfo(getattr(tl, name))
    assert repr(fi) == FINFO[name]["repr"]
    assert str(fi) == FINFO[name]["repr"]


def test_finfo_bfloat16_from_its_bits():
    fi = tl.finfo(tl.bfloat16)
    assert fi.eps == 2.0 ** -7
    assert fi.max == (2 - 2.0 ** -7) * 2.0 ** 127
    assert fi.tiny == 2.0 ** -126 == tl.finfo(tl.float32).tiny


def test_finfo_default_dtype(restore_default_dtype):
    assert repr(tl.finfo()) == FINFO["float32"]["repr"]
    tl.set_default_dtype(tl.float64)
    assert tl.finfo().dtype == "float64"
    assert tl.finfo(type=tl.float16).dtype == "float16"


def test_finfo_equality_and_read_only():
    assert tl.finfo(tl.float32) == tl.finfo(tl.float32)
    assert tl.finfo(tl.float32) != tl.finfo(tl.float64)
    assert tl.finfo(tl.float32) != tl.finfo(tl.bfloat16)
    with pytest.raises(TypeError):
        hash(tl.finfo(tl.float32))  # unhashable, as torch.finfo
    with pytest.raises(AttributeError):
        tl.finfo(tl.float32).eps = 1.0


@pytest.mark.parametrize("name", ["bool"] + INT_NAMES)
def test_finfo_rejects_non_floating(name):
    with pytest.raises(TypeError) as info:
        tl.finfo(getattr(tl, name))
    assert str(info.value) == FINFO_NOT_FLOAT


@pytest.mark.parametrize("bad", ["float32", None, 1.0], ids=lambda v: type(v).__name__)
def test_finfo_rejects_non_dtype(bad):
    with pytest.raises(TypeError) as info:
        tl.finfo(bad)
    assert str(info.value) == f"finfo(): argument 'type' (position 1) must be torchlite.dtype, not {type(bad).__name__}"


# --- iinfo --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", INT_NAMES)
def test_iinfo_values(name):
    ii = tl.iinfo(getattr(tl, name))
    expected = IINFO[name]
    for attr in ("bits", "min", "max"):
        value = getattr(ii, attr)
        assert type(value) is int, attr
        assert value == expected[attr], attr
    assert ii.dtype == name
    assert ii.bits == 8 * getattr(tl, name).itemsize


@pytest.mark.parametrize("name", INT_NAMES)
def test_iinfo_repr(name):
    ii = tl.iinfo(getattr(tl, name))
    assert repr(ii) == IINFO[name]["repr"]
    assert str(ii) == IINFO[name]["repr"]


def test_iinfo_equality():
    assert tl.iinfo(tl.int32) == tl.iinfo(tl.int32)
    assert tl.iinfo(tl.int32) != tl.iinfo(tl.int64)
    with pytest.raises(TypeError):
        hash(tl.iinfo(tl.int32))


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_iinfo_rejects_floating(name):
    with pytest.raises(TypeError) as info:
        tl.iinfo(getattr(tl, name))
    assert str(info.value) == IINFO_NOT_INT


def test_iinfo_rejects_bool():
    with pytest.raises(TypeError) as info:
        tl.iinfo(tl.bool)
    assert str(info.value) == IINFO_BOOL


def test_iinfo_needs_a_dtype():
    with pytest.raises(TypeError, match=re.escape('iinfo() missing 1 required positional arguments: "type"')):
        tl.iinfo()
    with pytest.raises(TypeError, match=re.escape("must be torchlite.dtype, not str")):
        tl.iinfo("int32")
