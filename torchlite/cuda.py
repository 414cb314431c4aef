"""torchlite.cuda: what a CUDA build can see. The CUDA issue adds the rest."""
from . import _C


def is_available() -> bool:
    """True when torchlite was built with CUDA and a CUDA device is present."""
    return _C._cuda_device_count() > 0


def device_count() -> int:
    return _C._cuda_device_count()
