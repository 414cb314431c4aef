"""torchlite.finfo and torchlite.iinfo: numerical limits of a dtype, as torch.finfo / torch.iinfo.

Values are Python numbers (floats for finfo, ints for iinfo); `dtype` is the
dtype's name ("float32"). float16/32/64 come from numpy; bfloat16 (8 exponent
bits, 8 significand bits counting the implicit one) is computed here.
"""
import builtins as _builtins

import numpy as _np

from . import _C

_MISSING = object()


def _name(dtype):
    return str(dtype).rsplit(".", 1)[-1]  # "torchlite.float32" -> "float32"


def _numpy_float_limits(np_type):
    fi = _np.finfo(np_type)
    # resolution is 10**-precision; numpy rounds it to np_type, PyTorch keeps the double.
    return (fi.bits, _builtins.float(fi.eps), _builtins.float(fi.max), _builtins.float(fi.smallest_normal),
            _builtins.float(f"1e-{fi.precision}"))


def _bfloat16_limits():
    mantissa_bits = 7  # explicit fraction bits; 8 exponent bits as float32
    eps = 2.0 ** -mantissa_bits
    max_ = (2.0 - eps) * 2.0 ** 127
    smallest_normal = 2.0 ** -126
    return 16, eps, max_, smallest_normal, 1e-2  # 2 decimal digits of precision


# name -> (bits, eps, max, smallest_normal, resolution)
_FLOAT_LIMITS = {
    "float16": _numpy_float_limits(_np.float16),
    "bfloat16": _bfloat16_limits(),
    "float32": _numpy_float_limits(_np.float32),
    "float64": _numpy_float_limits(_np.float64),
}

# name -> bits, signed
_INT_LIMITS = {"uint8": (8, False), "int8": (8, True), "int16": (16, True), "int32": (32, True), "int64": (64, True),
               "uint16": (16, False), "uint32": (32, False), "uint64": (64, False)}


def _check_dtype(cls_name, type_):
    if not isinstance(type_, _C.dtype):
        raise TypeError(f"{cls_name}(): argument 'type' (position 1) must be torchlite.dtype, "
                        f"not {type(type_).__name__}")


def _g(value):
    # PyTorch prints limits with C++ stream defaults: 6 significant digits, like %g.
    return "%g" % value


class _Info:
    """What finfo and iinfo share: the dtype's bits and name, equality by dtype, no hash, str() as repr()."""

    __slots__ = ()

    bits = property(lambda self: self._bits, doc="The number of bits the dtype occupies.")
    dtype = property(lambda self: self._dtype, doc="The dtype's name, e.g. 'float32'.")

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._dtype == other._dtype

    __hash__ = None  # unhashable, as torch.finfo and torch.iinfo

    def __str__(self):
        return repr(self)


class finfo(_Info):
    """Machine limits of a floating-point dtype (the default dtype when none is given), or of a complex dtype's
    real and imaginary parts."""

    __slots__ = ("_dtype", "_bits", "_eps", "_max", "_tiny", "_resolution")

    def __init__(self, type=_MISSING):  # noqa: A002 (PyTorch's argument name)
        if type is _MISSING:
            type = _C.get_default_dtype()
        _check_dtype("finfo", type)
        if not (type.is_floating_point or type.is_complex):
            raise TypeError("torchlite.finfo() requires a floating point input type. "
                            "Use torchlite.iinfo to handle 'torchlite.finfo'")
        name = _name(type.to_real())  # a complex dtype: the limits of its parts' dtype, as PyTorch
        self._dtype = name
        self._bits, self._eps, self._max, self._tiny, self._resolution = _FLOAT_LIMITS[name]

    eps = property(lambda self: self._eps, doc="The difference between 1.0 and the next representable value.")
    max = property(lambda self: self._max, doc="The largest finite value.")
    min = property(lambda self: -self._max, doc="The most negative finite value (-max).")
    tiny = property(lambda self: self._tiny, doc="The smallest positive normal value (= smallest_normal).")
    smallest_normal = property(lambda self: self._tiny, doc="The smallest positive normal value.")
    resolution = property(lambda self: self._resolution, doc="10 ** -(decimal digits of precision).")

    def __repr__(self):
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, "
                f"eps={_g(self.eps)}, smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo(_Info):
    """Machine limits of an integer dtype."""

    __slots__ = ("_dtype", "_bits", "_min", "_max")

    def __init__(self, type=_MISSING):  # noqa: A002 (PyTorch's argument name)
        if type is _MISSING:
            raise TypeError('iinfo() missing 1 required positional arguments: "type"')
        _check_dtype("iinfo", type)
        name = _name(type)
        if name == "bool":
            raise TypeError("torchlite.bool is not supported by torchlite.iinfo")
        if name not in _INT_LIMITS:
            raise TypeError("torchlite.iinfo() requires an integer input type. "
                            "Use torchlite.finfo to handle 'torchlite.iinfo'")
        bits, signed = _INT_LIMITS[name]
        self._dtype = name
        self._bits = bits
        self._min = -(1 << (bits - 1)) if signed else 0
        self._max = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1

    max = property(lambda self: self._max, doc="The largest value.")
    min = property(lambda self: self._min, doc="The smallest value.")

    def __repr__(self):
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"
