"""torchlite.testing: helpers for writing tests, as torch.testing.

- assert_close(actual, expected, ...) asserts that tensors, NumPy arrays, Python scalars, or sequences and
  mappings of them are close, with tolerances chosen by dtype and PyTorch's messages;
- assert_allclose(...) is its deprecated predecessor (a FutureWarning, as in PyTorch);
- make_tensor(*shape, dtype, device, ...) makes a tensor of random values for tests;
- op_db, the op database: one OpInfo per schema op (its facts from native_functions.yaml, its samples,
  NumPy reference and tolerances), read by the op tests, the gradient checks and `python -m codegen audit`;
  op_by_name maps full overload names ("add.Tensor") to them. Built on first use.
"""
from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor", "op_db", "op_by_name", "OpInfo"]


def __getattr__(name):
    if name in ("op_db", "op_by_name", "OpInfo"):
        from . import _opinfo

        return getattr(_opinfo, name)
    raise AttributeError(f"module 'torchlite.testing' has no attribute '{name}'")
