"""The device-specific spellings PyTorch still accepts (torch.cpu.amp.autocast, torch.cuda.amp.autocast,
torch.cuda.amp.GradScaler): the same objects, with PyTorch's deprecation warnings."""
import types
import warnings

from .autocast_mode import autocast as _autocast
from .grad_scaler import GradScaler as _GradScaler


def _namespace(device):
    from .. import bfloat16, float16

    default = bfloat16 if device == "cpu" else float16

    class autocast(_autocast):
        def __init__(self, enabled=True, dtype=default, cache_enabled=True):
            warnings.warn(f"`torch.{device}.amp.autocast(args...)` is deprecated. Please use "
                          f"`torch.amp.autocast('{device}', args...)` instead.", FutureWarning, stacklevel=2)
            super().__init__(device, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    ns = types.SimpleNamespace(autocast=autocast)
    if device == "cuda":
        class GradScaler(_GradScaler):
            def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                         enabled=True):
                warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                              "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
                super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)

        ns.GradScaler = GradScaler
    return ns
