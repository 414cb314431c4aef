"""Neural networks (PyTorch's torch.nn)."""
from . import functional  # noqa: F401
