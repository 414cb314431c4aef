"""autocast: the context manager (and decorator) that turns on mixed precision for a device type."""
import functools
import warnings

from .. import _C

__all__ = ["autocast", "custom_fwd", "custom_bwd", "get_autocast_dtype", "is_autocast_available",
           "is_autocast_enabled", "set_autocast_enabled", "set_autocast_dtype"]

_DEVICE_TYPES = ("cpu", "cuda")


def is_autocast_available(device_type):
    """Whether autocast supports this device type ('cpu' and 'cuda')."""
    return device_type in _DEVICE_TYPES


def _check_device(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for device_type on this thread (CUDA's when no device type is given)."""
    if device_type is None:
        device_type = "cuda"
    _check_device(device_type)
    return _C._autocast_is_enabled(device_type)


def set_autocast_enabled(device_type, enabled):
    """Turns autocast on or off for device_type on this thread (autocast's __enter__ uses it)."""
    _check_device(device_type)
    _C._autocast_set_enabled(device_type, bool(enabled))


def get_autocast_dtype(device_type):
    """The lower-precision dtype of device_type's autocast regions (bfloat16 on the CPU, float16 on CUDA)."""
    _check_device(device_type)
    return _C._autocast_get_dtype(device_type)


def set_autocast_dtype(device_type, dtype):
    """Sets the lower-precision dtype of device_type's autocast regions."""
    _check_device(device_type)
    _C._autocast_set_dtype(device_type, dtype)


class autocast:
    """autocast(device_type, dtype=None, enabled=True, cache_enabled=None): inside the region, ops with an
    autocast policy cast their floating inputs (matrix products and convolutions to `dtype`, the
    numerically sensitive ops to float32); the backward runs in the dtypes the forward chose. Nests;
    usable as a decorator. cache_enabled is accepted, but casts are not cached: a weight used twice in a
    region is cast twice (PyTorch caches the casts of leaf tensors)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_device(device_type)
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else cache_enabled
        from .. import bfloat16, cuda, float16

        if enabled and device_type == "cuda" and not cuda.is_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling", stacklevel=2)
            enabled = False
        if enabled and self.fast_dtype not in (bfloat16, float16):
            if device_type == "cpu":
                warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                              "CPU Autocast only supports dtype of torch.bfloat16, torch.float16 currently.",
                              stacklevel=2)
            else:
                warnings.warn("In CUDA autocast, but the target dtype is not supported. Disabling autocast.\n"
                              "CUDA Autocast only supports dtypes of torch.float16 and torch.bfloat16 currently.",
                              stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)

    def __enter__(self):
        self.prev = _C._autocast_is_enabled(self.device)
        self.prev_fastdtype = _C._autocast_get_dtype(self.device)
        _C._autocast_set_enabled(self.device, self._enabled)
        _C._autocast_set_dtype(self.device, self.fast_dtype)
        _C._autocast_increment_nesting()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _C._autocast_decrement_nesting()
        _C._autocast_set_enabled(self.device, self.prev)
        _C._autocast_set_dtype(self.device, self.prev_fastdtype)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorate_autocast


def _cast(value, device_type, dtype):
    from .._tensor import Tensor

    if isinstance(value, Tensor):
        ok = value.is_floating_point() and value.device.type == device_type and str(value.dtype) != "torchlite.float64"
        return value.to(dtype) if ok else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, device_type, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates a custom autograd Function's forward: with cast_inputs, inside an enabled region the
    floating inputs are cast to it and forward runs with autocast off; backward (custom_bwd) runs under the
    same autocast state as forward."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    _check_device(device_type)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._fwd_used_autocast = _C._autocast_is_enabled(device_type)
        args[0]._dtype = _C._autocast_get_dtype(device_type)
        if cast_inputs is None:
            return fwd(*args, **kwargs)
        if _C._autocast_is_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorates a custom autograd Function's backward to run under the autocast state its forward saw."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    _check_device(device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=getattr(ctx, "_fwd_used_autocast", False),
                      dtype=getattr(ctx, "_dtype", None)):
            return bwd(*args, **kwargs)

    return decorate_bwd
