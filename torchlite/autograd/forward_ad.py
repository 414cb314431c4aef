"""torchlite.autograd.forward_ad: forward-mode AD with dual tensors.

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, tangent)
        y = f(x)
        value, jvp = forward_ad.unpack_dual(y)

Each op computes its outputs' tangents from its inputs' with its `jvp:` entry in
native_functions.yaml (`elementwise`: the backward formulas applied to the
tangents; `linear`: the op itself on the tangents; or a formula per output);
in-place variants too (a view's new tangent is written into its base's). An op
without one raises NotImplementedError. One level at a time, as PyTorch today.

Complex tensors (floating point or complex primals, a tangent of the same dtype):
the ops tagged `complex_autograd` give J t, J the op's Jacobian over the real and
imaginary parts (an `elementwise` entry as conj(B(conj(t))) from the backward
formula B = J^H); the other ops raise NotImplementedError for complex tensors.
"""
from collections import namedtuple

from .. import _C

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
_levels = []


def enter_dual_level():
    """Starts a dual level (the tangents set in it are dropped when it exits); returns its number."""
    level = _C._enter_dual_level()
    _levels.append(level)
    return level


def exit_dual_level(*, level=None):
    """Ends the active dual level."""
    if level is None:
        if not _levels:
            raise RuntimeError("Trying to exit a forward AD level that was not the last one created.")
        level = _levels[-1]
    _C._exit_dual_level(level)
    if _levels and _levels[-1] == level:
        _levels.pop()


class dual_level:
    """Context manager for a dual level: `with dual_level(): ...`."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` carrying `tangent` (same shape and dtype) at the active level."""
    return _C._make_dual(tensor, tangent)


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of a tensor: the tangent is None when it carries none."""
    return UnpackedDualTensor(*_C._unpack_dual(tensor))
