"""Utilities (PyTorch's torch.utils): hook handles, DLPack."""
from . import dlpack, hooks  # noqa: F401
