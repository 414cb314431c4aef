"""Automatic mixed precision (PyTorch's torch.amp): `autocast` regions run the matrix products and
convolutions in a lower-precision dtype (bfloat16 on the CPU, float16 on CUDA by default) and the
numerically sensitive ops in float32, by each op's `autocast:` policy in native_functions.yaml; `GradScaler`
scales the loss so that float16 gradients do not underflow, and skips steps whose gradients overflowed."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd", "get_autocast_dtype", "is_autocast_available"]
