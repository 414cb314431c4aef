"""torchlite.Tensor: the Python class every tensor is an instance of."""
from . import _C


class Tensor(_C.TensorBase):
    """A multi-dimensional array with PyTorch's semantics.

    Methods and operators are generated from native_functions.yaml; this class
    adds the Python-side extras (printing, NumPy and list conversion)."""

    def numpy(self, *, force=False):
        """A NumPy array sharing this tensor's memory (CPU tensors). As PyTorch, a tensor that requires grad
        is refused (detach it first); force=True detaches and copies to the CPU when needed."""
        import numpy as np

        if force:
            return np.asarray(self.detach().cpu())
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        return np.asarray(self)

    def tolist(self):
        """The tensor's values as (nested) Python lists of numbers (copied from the device first for CUDA)."""
        import numpy as np

        if self.device.type != "cpu":
            return self.cpu().tolist()
        if self.dtype in (_C.float16, _C.bfloat16):
            return np.asarray(_C._to_dtype(self.detach(), _C.float32)).tolist()
        return np.asarray(self).tolist()

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """norm(p='fro', dim=None, keepdim=False, dtype=None): see torchlite.norm."""
        from .functional import norm

        return norm(self, p, dim, keepdim, dtype=dtype)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """unique(sorted=True, return_inverse=False, return_counts=False, dim=None): see torchlite.unique."""
        from .functional import unique

        return unique(self, sorted, return_inverse, return_counts, dim)

    # ------------------------------------------------------------ autograd
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulates the gradient of this tensor w.r.t. the graph leaves (or `inputs`) into their .grad."""
        from .autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """hook(grad) -> Tensor or None runs when this tensor's gradient is computed; returns a handle."""
        return _RemovableHandle(self, _C._register_hook(self, hook))

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor) runs after this leaf's .grad was accumulated; returns a handle."""
        return _RemovableHandle(self, _C._register_post_accumulate_grad_hook(self, hook))

    def is_inference(self):
        """Whether this tensor was made in inference mode (or is a view of such a tensor)."""
        return _C._is_inference(self)

    def retain_grad(self):
        """Keeps .grad of this non-leaf tensor after backward (no-op for leaves)."""
        _C._retain_grad(self)

    def __repr__(self):
        from ._tensor_str import tensor_repr

        return tensor_repr(self)

    # ------------------------------------------------------------ Python protocol
    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} "
                               "is ambiguous")
        return bool(self.item())

    def _one_value(self):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __int__(self):
        return int(self._one_value())

    def __float__(self):
        return float(self._one_value())

    def __complex__(self):
        return complex(self._one_value())

    def __index__(self):
        if self.numel() != 1 or self.dtype.is_floating_point:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __pos__(self):
        return self.positive()  # self itself; refused for bool, as PyTorch

    def __invert__(self):
        if self.dtype.is_floating_point:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return self.bitwise_not()

    __array_priority__ = 1000  # NumPy defers `ndarray + tensor` to the tensor

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def is_floating_point(self):
        """Whether the tensor's dtype is a floating dtype."""
        return self.dtype.is_floating_point

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def __deepcopy__(self, memo):
        from ._serialization import deepcopy_tensor

        return deepcopy_tensor(self, memo)

    def __copy__(self):
        from ._serialization import copy_tensor

        return copy_tensor(self)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this tensor's memory (the array-API interchange protocol)."""
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        if copy:
            return _C._to_dlpack(self.detach().clone(), versioned)
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"__dlpack__: cannot export to device {tuple(dl_device)} without a copy")
        if self.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        if self.device.type == "cuda" and stream not in (None, -1):
            from . import cuda

            cuda.synchronize()  # work queued on torchlite's stream is done before the consumer reads
        return _C._to_dlpack(self, versioned)

    def __dlpack_device__(self):
        """(device type, index) in DLPack's codes: (1, 0) for the CPU, (2, i) for CUDA device i."""
        d = self.device
        return (2, d.index or 0) if d.type == "cuda" else (1, 0)

    def __reduce_ex__(self, protocol):
        from ._serialization import reduce_tensor

        return reduce_tensor(self)

    @property
    def T(self):
        """The tensor with its dims reversed (the transpose of a matrix)."""
        return self.permute(*range(self.dim() - 1, -1, -1)) if self.dim() > 1 else self.view(self.shape)

    @property
    def mT(self):
        """The transpose of the last two dims (a batch of matrices)."""
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D "
                               "tensor.")
        return self.transpose(-2, -1)

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    # dtype conversions: x.float() is x.to(torchlite.float32), ...
    def float(self):
        return self.to(_C.float32)

    def double(self):
        return self.to(_C.float64)

    def half(self):
        return self.to(_C.float16)

    def bfloat16(self):
        return self.to(_C.bfloat16)

    def long(self):
        return self.to(_C.int64)

    def int(self):
        return self.to(_C.int32)

    def short(self):
        return self.to(_C.int16)

    def char(self):
        return self.to(_C.int8)

    def byte(self):
        return self.to(_C.uint8)

    def bool(self):
        return self.to(_C.bool)

    def cpu(self, memory_format=None):
        """This tensor on the CPU (itself when it already is there)."""
        return self.to("cpu")

    def get_device(self):
        """The index of the CUDA device holding this tensor; -1 for a CPU tensor."""
        d = self.device
        return d.index if d.type == "cuda" else -1

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """This tensor on a CUDA device (the current one by default; itself when already there)."""
        if device is None:
            device = "cuda"
        elif isinstance(device, int) and not isinstance(device, bool):
            device = f"cuda:{device}"
        else:
            d = _C.device(device) if isinstance(device, str) else device
            if not isinstance(d, _C.device) or d.type != "cuda":
                raise RuntimeError(f"Invalid device, must be cuda device, but got: {device}")
        return self.to(device, non_blocking=non_blocking)

    def nonzero(self, *, as_tuple=False):
        """The coordinates of the nonzero entries (see torchlite.nonzero)."""
        if as_tuple:
            return _C._functions.where(self)
        return _C.TensorBase.nonzero(self)

    def zero_(self):
        """Fills the tensor with zeros, in place."""
        return self.fill_(0)

    def new_tensor(self, data, dtype=None, device=None):
        """A new tensor copied from data, with this tensor's dtype and device unless given."""
        from ._creation import tensor

        return tensor(data, dtype=dtype if dtype is not None else self.dtype,
                      device=device if device is not None else self.device)


_C._set_tensor_class(Tensor)


class _RemovableHandle:
    """What register_hook returns: remove() unregisters the hook."""

    def __init__(self, tensor, hook_id):
        import weakref

        self._tensor = weakref.ref(tensor)
        self.id = hook_id

    def remove(self):
        t = self._tensor()
        if t is not None:
            _C._remove_hook(t, self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
