"""Anomaly detection (PyTorch's torch.autograd.detect_anomaly / set_detect_anomaly).

While it is on, backward() and grad() check what each node of the graph returns: a gradient with NaN
values raises RuntimeError "Function 'MulBackward0' returned nan values in its 0th output.", naming the
backward node of the forward op that made it. (PyTorch also prints the forward call's traceback; torchlite
records none.) The checks are hooks put on the graph's nodes before the engine runs, so graphs run while it
is off cost nothing.
"""
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_state = {"enabled": False, "check_nan": True}


def is_anomaly_enabled():
    return _state["enabled"]


def is_anomaly_check_nan_enabled():
    return _state["check_nan"]


def _set(enabled, check_nan):
    previous = (_state["enabled"], _state["check_nan"])
    _state["enabled"], _state["check_nan"] = bool(enabled), bool(check_nan)
    return previous


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on, with PyTorch's warning."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = None
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = _set(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _set(*self.prev)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """set_detect_anomaly(mode, check_nan=True): sets anomaly detection on or off at once; as a context manager
    it restores the previous setting on exit."""

    def __init__(self, mode, check_nan=True):
        if not isinstance(mode, bool):
            raise TypeError(f"set_detect_anomaly(): argument 'mode' must be bool, not {type(mode).__name__}")
        self.prev = _set(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(*self.prev)
        return False


def _nan_check(node):
    name = type(node).__name__

    def hook(grad_inputs, grad_outputs):
        if not _state["enabled"] or not _state["check_nan"]:
            return None
        for i, g in enumerate(grad_inputs):
            if g is not None and g.dtype.is_floating_point and bool(g.isnan().any()):
                raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")
        return None

    return hook


def instrument(roots):
    """Puts the NaN check on every node reachable from the roots' grad_fn (when anomaly mode is on)."""
    if not (_state["enabled"] and _state["check_nan"]):
        return
    seen = set()
    stack = [t.grad_fn for t in roots if getattr(t, "grad_fn", None) is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        node.register_hook(_nan_check(node))
        for nxt, _ in node.next_functions:
            if nxt is not None:
                stack.append(nxt)
