"""Printing tensors. A first version: PyTorch's exact formatting rules come with the core issue."""
import numpy as np

from . import _C

_DEFAULT_INT = "int64"


def _format(values, dtype):
    if dtype.is_floating_point:
        finite = values[np.isfinite(values)]
        int_mode = finite.size == 0 or np.all(finite == np.round(finite))
        big = finite.size and (np.abs(finite).max() >= 1e8 or (np.abs(finite[finite != 0]).min(initial=1) < 1e-4))
        if big:
            return lambda v: f"{v:.4e}"
        if int_mode:
            return lambda v: ("nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")) if not np.isfinite(v) \
                else f"{v:.0f}."
        return lambda v: f"{v:.4f}"
    if dtype is _C.bool:
        return lambda v: "True" if v else "False"
    return lambda v: str(int(v))


def tensor_repr(t):
    dtype = t.dtype
    if dtype in (_C.float16, _C.bfloat16):
        arr = _C._to_dtype(t, _C.float32).numpy()
    else:
        arr = t.numpy()
    fmt = _format(arr, dtype)
    strs = np.vectorize(fmt, otypes=[object])(arr) if arr.size else arr.astype(object)
    width = max((len(s) for s in strs.flat), default=0)

    def rec(a, indent):
        if a.ndim == 0:
            return a.item().rjust(width)
        if a.ndim == 1:
            return "[" + ", ".join(s.rjust(width) for s in a) + "]"
        sep = "," + "\n" * (a.ndim - 1) + " " * indent
        return "[" + sep.join(rec(x, indent + 1) for x in a) + "]"

    body = rec(strs, 8)
    suffix = []
    if arr.size == 0 and arr.ndim != 1:
        suffix.append(f"size={tuple(t.shape)}")
    default = _C.get_default_dtype()
    if not (dtype is default or dtype is _C.bool or (dtype is _C.int64)):
        suffix.append(f"dtype={dtype!r}")
    elif arr.size == 0 and dtype is not default:
        suffix.append(f"dtype={dtype!r}")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
