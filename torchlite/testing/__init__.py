"""torchlite.testing: helpers for writing tests, as torch.testing.

- assert_close(actual, expected, ...) asserts that tensors, NumPy arrays, Python scalars, or sequences and
  mappings of them are close, with tolerances chosen by dtype and PyTorch's messages;
- assert_allclose(...) is its deprecated predecessor (a FutureWarning, as in PyTorch);
- make_tensor(*shape, dtype, device, ...) makes a tensor of random values for tests.
"""
from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
