"""Utilities (PyTorch's torch.utils): hook handles, data loading."""
from . import dlpack, hooks  # noqa: F401
from . import data  # noqa: F401
