"""The padding layers of torchlite.nn: constant, zero, reflection, replication and circular padding."""
from collections.abc import Iterable

from .. import functional as F
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


def _expand(padding, n):
    """An int is used on every side (n values); an iterable is taken as it is, as a tuple."""
    if isinstance(padding, Iterable):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    # One padding mode (F.pad's `mode`) over the last `_dims` dims, the subclasses only set which.
    __constants__ = ["padding"]
    _dims = 1
    _mode = None

    def __init__(self, padding):
        super().__init__()
        self.padding = _expand(padding, 2 * self._dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def _check_input_dim(self, input):
        low = self._dims + 1
        if input.dim() != low and input.dim() != low + 1:
            raise ValueError(f"expected {low}D or {low + 1}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Pads the last dim of a (C, W) or (N, C, W) input by wrapping it around; padding is an int or
    (left, right)."""

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last two dims of a (C, H, W) or (N, C, H, W) input by wrapping them around; padding is an int or
    (left, right, top, bottom)."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last three dims of a 4-D or 5-D input by wrapping them around; padding is an int or a 6-tuple."""

    _dims = 3


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    _dims = 1

    def __init__(self, padding, value):
        super().__init__()
        self.padding = _expand(padding, 2 * self._dims)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with `value`; padding is an int or (left, right)."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with `value`; padding is an int or (left, right, top, bottom)."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with `value`; padding is an int or a 6-tuple (last dim first)."""

    _dims = 3


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dim with the reflection of the input (the edge not repeated); padding an int or
    (left, right)."""

    _dims = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last two dims with the reflection of the input; padding an int or (left, right, top, bottom)."""

    _dims = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Pads the last three dims with the reflection of the input; padding an int or a 6-tuple."""

    _dims = 3


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dim by repeating the edge values; padding an int or (left, right)."""

    _dims = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last two dims by repeating the edge values; padding an int or (left, right, top, bottom)."""

    _dims = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Pads the last three dims by repeating the edge values; padding an int or a 6-tuple."""

    _dims = 3


class _ZeroPadNd:
    # Mixed in before ConstantPad{1,2,3}d: the constant is 0 and the repr shows the padding only.
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd, ConstantPad1d):
    """Pads the last dim with zeros; padding an int or (left, right)."""


class ZeroPad2d(_ZeroPadNd, ConstantPad2d):
    """Pads the last two dims with zeros; padding an int or (left, right, top, bottom)."""


class ZeroPad3d(_ZeroPadNd, ConstantPad3d):
    """Pads the last three dims with zeros; padding an int or a 6-tuple."""
