"""Printing tensors: ``repr(t)`` / ``str(t)`` and the print options.

The output follows PyTorch's layout rules (observed behaviour, reimplemented
here with NumPy):

* one formatter per tensor decides, from the finite non-zero values (only the
  printed edge values when the tensor is summarized), between three float
  styles: integer style ``1.``, fixed ``1.5000`` and scientific ``1.5000e-05``;
  every element is right-aligned to the widest finite non-zero element;
* float16 / bfloat16 values are widened to float32 before formatting;
* complex values print as ``real+imagj``, the real and the imaginary parts each with a formatter of their
  own (``1.5000+0.j``);
* 1-D rows wrap to ``linewidth`` columns, dimensions >= 2 are separated by
  ``dim - 1`` newlines, tensors above ``threshold`` elements show
  ``edgeitems`` items at each end of every dimension around ``...``;
* suffixes (``size=``, ``dtype=``, ``grad_fn=`` / ``requires_grad=True``)
  follow the contents, each going to a new line when it would pass
  ``linewidth``; ``size=`` shows for empty tensors that are not 1-D, and for
  every non-empty tensor when ``edgeitems`` is 0.
"""
import contextlib
import math

import numpy as np

from . import _C

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "tensor_repr"]


# ---------------------------------------------------------------------------
# Print options
# ---------------------------------------------------------------------------

# profile name -> (precision, threshold, edgeitems, linewidth)
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}

_OPTIONS = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Set options for printing tensors (PyTorch's ``torch.set_printoptions``).

    Args:
        precision: digits after the decimal point for floating point output (default 4).
        threshold: number of elements above which a tensor is summarized with ``...`` (default 1000).
        edgeitems: items shown at the beginning and end of each dimension when summarizing (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"``: sets precision, threshold, edgeitems
            and linewidth at once; the other arguments given override it. Any other name is
            ignored, as in PyTorch.
        sci_mode: True forces scientific notation, False forbids it, None (the default) lets
            the formatter choose. Unlike the other options this one is always assigned, so a
            call that omits it goes back to automatic mode (PyTorch does the same).
    """
    if profile is not None and profile in _PROFILES:
        p, t, e, lw = _PROFILES[profile]
        _OPTIONS.update(precision=p, threshold=t, edgeitems=e, linewidth=lw)
    if precision is not None:
        _OPTIONS["precision"] = precision
    if threshold is not None:
        _OPTIONS["threshold"] = threshold
    if edgeitems is not None:
        _OPTIONS["edgeitems"] = edgeitems
    if linewidth is not None:
        _OPTIONS["linewidth"] = linewidth
    _OPTIONS["sci_mode"] = sci_mode


def get_printoptions():
    """The current print options: a dict with precision, threshold, edgeitems, linewidth, sci_mode."""
    return dict(_OPTIONS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager: ``set_printoptions(**kwargs)`` inside the block, the previous options after."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        _OPTIONS.clear()
        _OPTIONS.update(saved)


# ---------------------------------------------------------------------------
# Element formatting
# ---------------------------------------------------------------------------


class _ElementFormatter:
    """Chooses one style and one width for all elements of a tensor.

    ``sample`` is a NumPy array of the values that will be printed (the edge
    values only when the tensor is summarized)."""

    def __init__(self, sample, floating, opts):
        self.floating = floating
        self.precision = opts["precision"]
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = sample.reshape(-1)
        if not floating:
            if flat.size:
                # str() length grows with |v|, and the most negative value is the widest negative one.
                self.width = max(self.width, *(len(str(v)) for v in (flat.min().item(), flat.max().item())))
            return
        values = flat.astype(np.float64, copy=False)
        finite = values[np.isfinite(values) & (values != 0)]
        if finite.size == 0:
            # Only zeros, nan and inf: integer style, width 1, whatever sci_mode says.
            return
        magnitudes = np.abs(finite)
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        spread = largest / smallest > 1000.0 or largest > 1.0e8
        self.sci_mode = spread if self.int_mode else (spread or smallest < 1.0e-4)
        if opts["sci_mode"] is not None:
            self.sci_mode = bool(opts["sci_mode"])
        self.width = max(len(self._plain(v)) for v in np.unique(finite).tolist())

    def _plain(self, v):
        if not self.floating:
            return str(v)
        if self.sci_mode:
            return f"{v:.{self.precision}e}"
        if self.int_mode:
            text = f"{v:.0f}"
            return text if math.isnan(v) or math.isinf(v) else text + "."
        return f"{v:.{self.precision}f}"

    def __call__(self, v):
        return self._plain(v).rjust(self.width)


class _ComplexFormatter:
    """PyTorch's complex elements: the real parts right-aligned by their own formatter, then the imaginary
    part's text (from a second formatter, left-stripped) with its sign, and ``j``."""

    def __init__(self, sample, opts):
        self.real = _ElementFormatter(sample.real, True, opts)
        self.imag = _ElementFormatter(sample.imag, True, opts)
        self.width = self.real.width + self.imag.width + 1  # the layout adds the 2 of ", "

    def __call__(self, v):
        imag = (self.imag(v.imag) + "j").lstrip()
        return self.real(v.real) + (imag if imag[0] in "+-" else "+" + imag)


# ---------------------------------------------------------------------------
# Layout
# ---------------------------------------------------------------------------


def _edge_index(n, edgeitems):
    return np.concatenate([np.arange(0, edgeitems), np.arange(n - edgeitems, n)])


def _summarized_sample(arr, edgeitems):
    """The values a summarized print shows, as an array (its layout does not matter)."""
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        n = arr.shape[0]
        if n > 2 * edgeitems and edgeitems > 0:
            return arr[_edge_index(n, edgeitems)]
        return arr  # with edgeitems == 0 PyTorch still measures the whole row
    if edgeitems == 0:
        return arr.reshape(-1)[:0]
    for axis, n in enumerate(arr.shape):
        if n > 2 * edgeitems:
            arr = np.take(arr, _edge_index(n, edgeitems), axis=axis)
    return arr


def _vector_str(arr, indent, summarize, fmt, opts):
    edgeitems = opts["edgeitems"]
    per_line = max(1, int(math.floor((opts["linewidth"] - indent) / (fmt.width + 2))))
    n = arr.shape[0]
    if summarize and not edgeitems:
        items = ["..."]
    elif summarize and n > 2 * edgeitems:
        items = ([fmt(v) for v in arr[:edgeitems].tolist()] + [" ..."]
                 + [fmt(v) for v in arr[n - edgeitems:].tolist()])
    else:
        items = [fmt(v) for v in arr.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(arr, indent, summarize, fmt, opts):
    if arr.ndim == 0:
        return fmt(arr.item())
    if arr.ndim == 1:
        return _vector_str(arr, indent, summarize, fmt, opts)
    edgeitems = opts["edgeitems"]
    n = arr.shape[0]
    if summarize and n > 2 * edgeitems:
        parts = ([_nested_str(arr[i], indent + 1, summarize, fmt, opts) for i in range(edgeitems)] + ["..."]
                 + [_nested_str(arr[i], indent + 1, summarize, fmt, opts) for i in range(n - edgeitems, n)])
    else:
        parts = [_nested_str(arr[i], indent + 1, summarize, fmt, opts) for i in range(n)]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _values(t):
    """The tensor's values as a NumPy array (copied from the device for CUDA tensors); float16 / bfloat16
    widened to float32."""
    if t.is_conj():
        t = t.detach().resolve_conj()  # a conjugated view's values, computed
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype in (_C.float16, _C.bfloat16):
        t = _C._to_dtype(t.detach(), _C.float32)
    return np.asarray(t)  # the buffer: printing needs no detach


def _contents_str(t, indent, opts):
    arr = _values(t)
    summarize = arr.size > opts["threshold"]
    sample = _summarized_sample(arr, opts["edgeitems"]) if summarize else arr
    if t.dtype.is_complex:
        fmt = _ComplexFormatter(sample, opts)
    else:
        fmt = _ElementFormatter(sample, t.dtype.is_floating_point, opts)
    return _nested_str(arr, indent, summarize, fmt, opts)


def _join_suffixes(text, suffixes, indent, linewidth, force_newline=False):
    # Length of the last line as PyTorch counts it: two more than its characters. force_newline puts the first
    # suffix on a line of its own (sparse tensors).
    last_line_len = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            pieces.append(", " + suffix)
            last_line_len += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)


def _dtype_str(dtype):
    """How the ``dtype=`` suffix names a dtype: its own str, ``torchlite.int32``, where
    PyTorch prints ``torch.int32`` (the tests swap this for PyTorch's spelling to compare
    the whole layout, line wrapping included, with PyTorch's output)."""
    return str(dtype)


def _grad_fn_name(grad_fn):
    name = getattr(grad_fn, "name", None)
    if callable(name):
        try:
            text = name()
        except Exception:  # noqa: BLE001 - a broken name() falls back to the class name
            text = None
        if isinstance(text, str) and text:
            return text.rsplit("::", 1)[-1]
    return type(grad_fn).__name__


def _sparse_contents(t, indent, opts, suffixes, has_default_dtype):
    """A sparse COO tensor's contents as PyTorch prints them: its indices and values, each a tensor's contents
    (with its size when empty), then the size=, nnz= (and dtype=) suffixes."""
    indices, values, _ = _C._sparse_parts(t)
    suffixes.append(f"size={tuple(int(s) for s in t.shape)}")
    suffixes.append(f"nnz={indices.shape[1]}")
    if not has_default_dtype:
        suffixes.append(f"dtype={_dtype_str(t.dtype)}")
    parts = []
    for name, part in (("indices", indices), ("values", values)):
        prefix = f"{name}=tensor("
        text = _contents_str(part, indent + len(prefix), opts) if part.numel() else "[]"
        if part.numel() == 0:
            text += f", size={tuple(int(s) for s in part.shape)}"
        parts.append(prefix + text + ")")
    return (",\n" + " " * indent).join(parts)


def tensor_repr(t):
    """PyTorch's ``repr`` of tensor ``t`` (also its ``str``)."""
    opts = get_printoptions()
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []

    device = getattr(t, "device", None)
    if device is not None and getattr(device, "type", "cpu") != "cpu":
        suffixes.append(f"device='{device}'")

    dtype = t.dtype
    default_dtype = _C.get_default_dtype()
    default_complex = _C.complex128 if default_dtype is _C.float64 else _C.complex64
    if _C._is_sparse(t):
        has_default = dtype in (default_dtype, default_complex, _C.int64, _C.bool)
        contents = _sparse_contents(t, indent, opts, suffixes, has_default)
        suffixes.append(f"layout={t.layout}")
        if getattr(t, "requires_grad", False):
            suffixes.append("requires_grad=True")
        return _join_suffixes(prefix + contents, suffixes, indent, opts["linewidth"], force_newline=True)
    if t.numel() == 0:
        if t.dim() != 1:
            suffixes.append(f"size={tuple(int(s) for s in t.shape)}")
        if dtype != default_dtype:
            suffixes.append(f"dtype={_dtype_str(dtype)}")
        contents = "[]"
    else:
        if not opts["edgeitems"]:
            # With edgeitems=0 the contents show no sizes at all: PyTorch adds them.
            suffixes.append(f"size={tuple(int(s) for s in t.shape)}")
        if dtype not in (default_dtype, default_complex, _C.int64, _C.bool):
            suffixes.append(f"dtype={_dtype_str(dtype)}")
        contents = _contents_str(t, indent, opts)

    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(grad_fn)}>")
    elif getattr(t, "requires_grad", False):
        suffixes.append("requires_grad=True")

    return _join_suffixes(prefix + contents, suffixes, indent, opts["linewidth"])
