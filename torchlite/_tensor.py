"""torchlite.Tensor: the Python class every tensor is an instance of."""
from . import _C


class Tensor(_C.TensorBase):
    """A multi-dimensional array with PyTorch's semantics.

    Methods and operators are generated from native_functions.yaml; this class
    adds the Python-side extras (printing, NumPy and list conversion)."""

    def numpy(self):
        """A NumPy array sharing this tensor's memory (CPU tensors)."""
        import numpy as np

        return np.asarray(self)

    def tolist(self):
        """The tensor's values as (nested) Python lists of numbers."""
        if self.dtype in (_C.float16, _C.bfloat16):
            return _C._to_dtype(self, _C.float32).numpy().tolist()
        return self.numpy().tolist()

    def __repr__(self):
        from ._tensor_str import tensor_repr

        return tensor_repr(self)

    def __deepcopy__(self, memo):
        out = _C._to_dtype(self, self.dtype)
        memo[id(self)] = out
        return out

    @property
    def T(self):
        if self.dim() != 2:
            raise RuntimeError("T is only defined here for 2-D tensors (the core issue widens it)")
        return self.transpose(0, 1)


_C._set_tensor_class(Tensor)
