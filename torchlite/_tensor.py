"""torchlite.Tensor: the Python class every tensor is an instance of."""
from . import _C, _sparse


class Tensor(_C.TensorBase):
    """A multi-dimensional array with PyTorch's semantics.

    Methods and operators are generated from native_functions.yaml; this class
    adds the Python-side extras (printing, NumPy and list conversion)."""

    def __new__(cls, *args, **kwargs):
        """PyTorch's legacy constructor: Tensor() an empty tensor, Tensor(2, 3) an uninitialized one of that
        shape, Tensor(data) a copy of the data in the default dtype, Tensor(t) an alias of t; a subclass is
        built the same way (SubTensor([0]))."""
        from ._legacy import tensor_construct

        return tensor_construct(cls, *args, **kwargs)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """type(): the legacy type name ('torchlite.FloatTensor'); type(t): the tensor converted to t (a dtype, a
        legacy type such as torchlite.DoubleTensor, or its name), itself when it already is of that type."""
        from ._legacy import tensor_type

        return tensor_type(self, dtype, non_blocking, **kwargs)

    def new(self, *args, **kwargs):
        """The legacy constructor with this tensor's dtype and device: new(2, 3) uninitialized, new(data) a copy."""
        from ._legacy import tensor_new

        return tensor_new(self, *args, **kwargs)

    @property
    def is_cpu(self):
        """Whether the tensor is on the CPU."""
        return self.device.type == "cpu"

    @property
    def layout(self):
        """The memory layout: torchlite.strided, or torchlite.sparse_coo for a sparse tensor."""
        return _sparse._layout_of(self)

    # ------------------------------------------------------------ sparse COO tensors (torchlite/_sparse.py)
    @property
    def is_sparse(self):
        """Whether the tensor is a sparse COO tensor (nn.Embedding(sparse=True)'s gradient, sparse_coo_tensor)."""
        return _C._is_sparse(self)

    _indices = _sparse._indices
    _values = _sparse._values
    indices = _sparse.indices
    values = _sparse.values
    _nnz = _sparse.nnz
    sparse_dim = _sparse.sparse_dim
    dense_dim = _sparse.dense_dim
    is_coalesced = _sparse.is_coalesced
    coalesce = _sparse.coalesce
    _coalesced_ = _sparse.set_coalesced
    to_dense = _sparse.to_dense
    to_sparse = _sparse.to_sparse

    def to_sparse_coo(self):
        """The tensor as a coalesced sparse COO tensor (to_sparse())."""
        return self.to_sparse()

    @property
    def is_meta(self):
        """Whether the tensor is a meta tensor (torchlite has none)."""
        return False

    def is_complex(self):
        """Whether the dtype is complex (complex64 or complex128)."""
        return self.dtype.is_complex

    @property
    def real(self):
        """The real parts of a complex tensor (a view), or a real tensor itself."""
        return _C._functions.real(self)

    @real.setter
    def real(self, value):
        self.real.copy_(value)

    @property
    def imag(self):
        """The imaginary parts of a complex tensor (a view); RuntimeError for a real tensor."""
        return _C._functions.imag(self)

    @imag.setter
    def imag(self, value):
        if self.is_conj():  # a conj() view's imaginary parts are its memory's negated (and `imag` of it computed)
            self.conj().imag.copy_(-value)
            return
        self.imag.copy_(value)

    def is_neg(self):
        """Whether the tensor is a lazily negated view (never in torchlite)."""
        return False

    def resolve_neg(self):
        """The tensor with any lazy negation applied: itself, torchlite having no negated views."""
        return self

    def is_signed(self):
        """Whether the dtype is signed (every dtype but bool and the unsigned integers)."""
        return self.dtype.is_signed

    def is_nonzero(self):
        """The truth of a one-element tensor; RuntimeError for any other number of elements."""
        n = self.numel()
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def is_same_size(self, other):
        """Whether other has the same shape."""
        return self.shape == other.shape

    def dim_order(self):
        """The dims from outermost to innermost in memory (by decreasing stride; ties keep dim order)."""
        strides = self.stride()
        return tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))

    def resize_(self, *sizes, memory_format=None):
        """Gives the tensor the shape `sizes` with contiguous strides. Its storage is kept when it holds enough
        elements (the leading values keep their place); otherwise the values are copied into new memory (other
        views keep the old storage, where PyTorch grows the storage they share)."""
        from ._legacy import resize_tensor

        return resize_tensor(self, sizes)

    def resize_as_(self, other, memory_format=None):
        """resize_(other.shape)."""
        return self.resize_(other.shape)

    def fill_diagonal_(self, fill_value, wrap=False):
        """Fills the main diagonal (all dims equal beyond 2 dims); with wrap, a tall matrix's diagonal restarts
        after each block of columns + 1 rows, as NumPy's fill_diagonal."""
        from ._legacy import fill_diagonal

        return fill_diagonal(self, fill_value, wrap)

    def apply_(self, callable):
        """Replaces each element x by callable(x), in place (CPU tensors only; slow: a Python call per element)."""
        from ._legacy import apply_elementwise

        return apply_elementwise(self, callable, None)

    def map_(self, tensor, callable):
        """Replaces each element x by callable(x, y), y the matching element of tensor broadcast to this shape,
        in place (CPU tensors only)."""
        from ._legacy import apply_elementwise

        return apply_elementwise(self, callable, tensor)

    def geometric_(self, p, *, generator=None):
        """Fills the tensor with draws of the geometric distribution: trials up to the first success, each of
        probability p (values 1, 2, ...)."""
        from ._legacy import random_fill

        return random_fill(self, "geometric", p, None, generator)

    def log_normal_(self, mean=1, std=2, *, generator=None):
        """Fills the tensor with exp(N(mean, std^2)) draws."""
        from ._legacy import random_fill

        return random_fill(self, "log_normal", mean, std, generator)

    def cauchy_(self, median=0, sigma=1, *, generator=None):
        """Fills the tensor with draws of the Cauchy distribution median + sigma * tan(pi (u - 1/2))."""
        from ._legacy import random_fill

        return random_fill(self, "cauchy", median, sigma, generator)

    def float_power_(self, exponent):
        """self ** exponent in double precision, in place: self must be float64 (complex128 when self or the
        exponent is complex), the dtype of float_power's result."""
        from ._legacy import _TYPE_NAMES

        exp_complex = exponent.is_complex() if isinstance(exponent, Tensor) else isinstance(exponent, complex)
        want = _C.complex128 if self.is_complex() or exp_complex else _C.float64
        if self.dtype is not want:
            name = {d: n[:-len("Tensor")] for d, n in _TYPE_NAMES.items()}  # PyTorch's C++ names: Float, Long...
            raise RuntimeError(f"the base given to float_power_ has dtype {name[self.dtype]} but the operation's "
                               f"result requires dtype {name[want]}")
        return self.copy_(_C._functions.float_power(self, exponent))

    def as_subclass(self, cls):
        """This tensor as an instance of cls (a subclass of torchlite.Tensor): the same memory, and still
        attached to the autograd graph."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"as_subclass(): cls must be a subclass of torchlite.Tensor, not {cls!r}")
        out = self.view_as(self)
        out.__class__ = cls
        return out

    def histogram(self, bins, *, range=None, weight=None, density=False):  # noqa: A002
        """See torchlite.histogram."""
        from ._names import histogram

        return histogram(self, bins, range=range, weight=weight, density=density)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """See torchlite.unique_consecutive."""
        from ._names import unique_consecutive

        return unique_consecutive(self, return_inverse, return_counts, dim)

    def record_stream(self, stream):
        """Marks the tensor as used by a CUDA stream: nothing to do, as torchlite runs a device's work in order on
        one stream (its memory is never reused while queued work may read it)."""
        if self.device.type != "cuda":
            raise RuntimeError("record_stream: expected a CUDA tensor")

    def pin_memory(self, device=None):
        """A copy in page-locked memory in PyTorch; torchlite has no pinned memory, so a plain contiguous copy
        (copies to CUDA are synchronous)."""
        if self.device.type != "cpu":
            raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
        return self.clone()

    def is_pinned(self, device=None):
        """Whether the tensor is in page-locked memory: never in torchlite."""
        return False

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """Makes this tensor view source's memory (with size, stride and storage_offset when given), keeping its
        identity; set_() with no source makes it empty."""
        from ._C import _functions as F

        if source is None:
            self.data = F.empty(0, dtype=self.dtype, device=self.device)
            return self
        if not isinstance(source, Tensor):
            raise TypeError(f"set_(): argument 'source' must be Tensor, not {type(source).__name__} (torchlite "
                            "has no Storage objects)")
        if source.dtype != self.dtype:
            raise RuntimeError(f"Could not set tensor of type {source.dtype} to a tensor of type {self.dtype}")
        if size is not None:
            if stride is None:
                stride, step = [], 1
                for n in reversed(tuple(size)):
                    stride.append(step)
                    step *= max(n, 1)
                stride = tuple(reversed(stride))
            source = F.as_strided(source.detach(), tuple(size), tuple(stride), storage_offset)
        self.data = source.detach()
        return self

    def is_set_to(self, tensor):
        """Whether both tensors view the same memory with the same geometry."""
        return (self.device == tensor.device and self.dtype == tensor.dtype and self.shape == tensor.shape
                and self.stride() == tensor.stride() and (self.numel() == 0 or self.data_ptr() == tensor.data_ptr()))

    def numpy(self, *, force=False):
        """A NumPy array sharing this tensor's memory (CPU tensors). As PyTorch, a tensor that requires grad
        is refused (detach it first); force=True detaches and copies to the CPU when needed."""
        import numpy as np

        if force:
            return np.asarray(self.detach().cpu().resolve_conj())
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        return np.asarray(self)

    def tolist(self):
        """The tensor's values as (nested) Python lists of numbers (copied from the device first for CUDA)."""
        import numpy as np

        if _C._is_sparse(self):
            raise TypeError("can't convert Sparse layout tensor to a list. Use Tensor.to_dense() first.")
        if self.device.type != "cpu":
            return self.cpu().tolist()
        if self.is_conj():
            return self.resolve_conj().tolist()
        if self.dtype in (_C.float16, _C.bfloat16):
            return np.asarray(_C._to_dtype(self.detach(), _C.float32)).tolist()
        return np.asarray(self).tolist()

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """norm(p='fro', dim=None, keepdim=False, dtype=None): see torchlite.norm."""
        from .functional import norm

        return norm(self, p, dim, keepdim, dtype=dtype)

    def lu(self, pivot=True, get_infos=False):
        """The LU factorization, as torchlite.lu."""
        from .functional import lu
        return lu(self, pivot, get_infos)

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
        if self.numel() != 1 or self.dtype.is_floating_point or self.dtype.is_complex:
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
        if _C._is_sparse(self):
            raise RuntimeError("__dlpack__: sparse COO tensors cannot be exported through DLPack; use "
                               ".to_dense() first")
        if self.is_conj():
            raise BufferError("Can't export tensors with the conjugate bit set")
        if self.device.type == "cuda" and stream not in (None, -1):
            from . import cuda

            cuda.synchronize()  # work queued on torchlite's stream is done before the consumer reads
        return _C._to_dlpack(self, versioned)

    def __dlpack_device__(self):
        """(device type, index) in DLPack's codes: (1, 0) for the CPU, (2, i) for CUDA device i."""
        d = self.device
        return (2, d.index or 0) if d.type == "cuda" else (1, 0)

    def share_memory_(self):
        """Moves the storage to shared memory, in place: every tensor of the storage follows, a forked process
        shares it, and torchlite.multiprocessing sends it to other processes without a copy. A no-op when it is
        there already, and for CUDA tensors. A storage in shared memory cannot grow (resize_). Returns self."""
        if _C._is_sparse(self):  # a sparse tensor's memory is its indices' and values'
            for part in _C._sparse_parts(self)[:2]:
                _C._share_memory(part)
            return self
        _C._share_memory(self)
        return self

    def is_shared(self):
        """Whether the storage is in shared memory (share_memory_()); always True for CUDA tensors."""
        if _C._is_sparse(self):
            return all(_C._is_shared(part) for part in _C._sparse_parts(self)[:2])
        return _C._is_shared(self)

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

    @property
    def mH(self):
        """The conjugate transpose of the last two dims (the transpose, for real dtypes)."""
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self.dim()}-D "
                               "tensor.")
        return self.transpose(-2, -1).conj()

    @property
    def H(self):
        """The conjugate transpose of a matrix (the transpose, for real dtypes); a 0-dim tensor itself."""
        if self.dim() not in (0, 2):
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
        if self.dim() == 0:
            import warnings

            warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
            return self
        return self.transpose(0, 1).conj()

    def adjoint(self):
        """The conjugate transpose of the last two dims, as a view (the transpose, for real dtypes)."""
        if self.dim() < 2:
            raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
                               f"{self.dim()}-D tensor.")
        return self.transpose(-2, -1).conj()

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

    def cfloat(self):
        return self.to(_C.complex64)

    def cdouble(self):
        return self.to(_C.complex128)

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
