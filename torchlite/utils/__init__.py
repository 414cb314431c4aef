"""Utilities (PyTorch's torch.utils): hook handles."""
from . import hooks  # noqa: F401
