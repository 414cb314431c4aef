"""PyTorch's legacy construction and type names: `torchlite.Tensor(data)`, `torchlite.Tensor(2, 3)`,
`FloatTensor`, `LongTensor`... (classes whose instances are plain Tensors, and which a tensor of their dtype
and device is an instance of), `Tensor.new(...)`, `x.type()` ('torchlite.FloatTensor') and
`x.type(torchlite.DoubleTensor)`; and the function aliases (`absolute`, `arccos`, `greater`, `divide`...)
and top-level in-place functions (`torchlite.relu_(x)`) PyTorch has, bound to the ops they name."""
import numbers

from . import _C

# dtype -> legacy type name (PyTorch's).
_TYPE_NAMES = {
    _C.float32: "FloatTensor", _C.float64: "DoubleTensor", _C.float16: "HalfTensor", _C.bfloat16: "BFloat16Tensor",
    _C.int64: "LongTensor", _C.int32: "IntTensor", _C.int16: "ShortTensor", _C.int8: "CharTensor",
    _C.uint8: "ByteTensor", _C.bool: "BoolTensor", _C.uint16: "UInt16Tensor", _C.uint32: "UInt32Tensor",
    _C.uint64: "UInt64Tensor", _C.complex64: "ComplexFloatTensor", _C.complex128: "ComplexDoubleTensor",
}


def _is_size(args):
    return all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args)


def legacy_new(name, dtype, device, args, kwargs, like=None):
    """What `Tensor(*args)`, `FloatTensor(*args)` and `x.new(*args)` build: `()` an empty tensor, ints or a
    Size an uninitialized tensor of that shape, a Tensor an alias of it, a sequence (or NumPy array) a copy of
    its values in `dtype`."""
    from ._creation import tensor as _tensor
    from ._size import Size
    from ._tensor import Tensor

    extra = set(kwargs) - {"device"}
    if extra:
        got = ", ".join(type(a).__name__ for a in args)
        got += (", " if got else "") + ", ".join(f"{k}={type(v).__name__}" for k, v in kwargs.items())
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                        "of:\n * (*, device device = None)\n * (Tensor other)\n * (tuple of ints size, *, device "
                        "device = None)\n * (object data, *, device device = None)")
    if kwargs.get("device") is not None:
        device = _C.device(kwargs["device"]) if isinstance(kwargs["device"], str) else kwargs["device"]
    if not args:
        return _C._functions.empty(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if like is not None or name != "Tensor":
            if other.dtype != dtype or other.device != device:
                raise TypeError(f"expected {_type_string(dtype, device)} (got {other.type()})")
        return other.detach()
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if _is_size(args):
        for n in args:
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(args)}")
        return _C._functions.empty(tuple(int(a) for a in args), dtype=dtype, device=device)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, (numbers.Number, str, bytes)) or not hasattr(data, "__len__"):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return _tensor(data, dtype=dtype, device=device)
    bad = next(i for i, a in enumerate(args) if not (isinstance(a, numbers.Integral) and not isinstance(a, bool)))
    raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {bad + 1} with error \"type must "
                    f"be tuple of ints,but got {type(args[bad]).__name__}\"")


def _type_string(dtype, device):
    prefix = "torchlite.cuda." if device is not None and device.type == "cuda" else "torchlite."
    return prefix + _TYPE_NAMES[dtype]


class tensortype(type):
    """The metaclass of the legacy type names: `isinstance(x, torchlite.LongTensor)` is true for a CPU int64
    tensor; calling the name builds a plain torchlite.Tensor of its dtype (and device)."""

    def __instancecheck__(cls, obj):
        from ._tensor import Tensor

        return (isinstance(obj, Tensor) and obj.dtype == cls.dtype
                and (obj.device.type == "cuda") == cls.is_cuda)

    def __call__(cls, *args, **kwargs):
        device = _C.device("cuda") if cls.is_cuda else _C.device("cpu")
        return legacy_new(cls.__name__, cls.dtype, device, args, kwargs, like=False)

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _make_types(module_name, is_cuda):
    types = {}
    for dtype, name in _TYPE_NAMES.items():
        types[name] = tensortype(name, (), {"dtype": dtype, "is_cuda": is_cuda, "is_sparse": False,
                                            "__module__": module_name})
    return types


LEGACY_TYPES = _make_types("torchlite", False)
CUDA_LEGACY_TYPES = _make_types("torchlite.cuda", True)


def _parse_type(t):
    """(dtype, is_cuda or None) of a legacy type, its name, or a dtype."""
    if isinstance(t, _C.dtype):
        return t, None
    if isinstance(t, tensortype):
        return t.dtype, t.is_cuda
    if isinstance(t, str):
        for prefix, cuda in (("torchlite.cuda.", True), ("torch.cuda.", True), ("torchlite.", False),
                             ("torch.", False)):
            if t.startswith(prefix):
                rest = t[len(prefix):]
                for dtype, name in _TYPE_NAMES.items():
                    if rest == name:
                        return dtype, cuda
                break
        raise ValueError(f"invalid type: '{t}'")
    raise TypeError(f"type(): argument 'dtype' must be a dtype, a legacy tensor type or its name, not "
                    f"{type(t).__name__}")


def tensor_type(self, dtype=None, non_blocking=False, **kwargs):
    """x.type(): the legacy type name ('torchlite.FloatTensor'); x.type(t) the tensor converted to t (a dtype,
    a legacy type such as torchlite.DoubleTensor, or its name), itself when it already is one."""
    if dtype is None:
        return _type_string(self.dtype, self.device)
    target, cuda = _parse_type(dtype)
    device = None
    if cuda is not None and cuda != (self.device.type == "cuda"):
        device = "cuda" if cuda else "cpu"
    if target == self.dtype and device is None:
        return self
    return self.to(device=device, dtype=target, non_blocking=non_blocking)


def tensor_new(self, *args, **kwargs):
    """x.new(...): the legacy constructor with x's dtype and device (`x.new(2, 3)` uninitialized, `x.new(data)`)."""
    return legacy_new("new", self.dtype, self.device, args, kwargs, like=self)


def tensor_construct(cls, *args, **kwargs):
    """torchlite.Tensor(...) and a subclass's SubTensor(...): the legacy constructor in the default dtype."""
    from ._tensor import Tensor

    t = legacy_new("Tensor", _C.get_default_dtype(), _C.device("cpu"), args, kwargs)
    if cls is Tensor:
        return t
    return Tensor._make_subclass(cls, t, t.requires_grad)


# ---------------------------------------------------------------- in-place helpers of the Tensor methods

def resize_tensor(self, sizes):
    from ._C import _functions as F

    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if not _is_size(sizes):
        raise TypeError(f"resize_(): argument 'size' must be tuple of ints, but found element of type "
                        f"{type(next(s for s in sizes if not _is_size((s,)))).__name__}")
    for n in sizes:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(sizes)}")
    if self.requires_grad and self.grad_fn is None:
        raise RuntimeError("cannot resize variables that require grad")
    sizes = tuple(int(n) for n in sizes)
    if tuple(self.shape) == sizes:
        return self
    strides, step = [], 1
    for n in reversed(sizes):
        strides.append(step)
        step *= max(n, 1)
    strides = tuple(reversed(strides))
    numel = 1
    for n in sizes:
        numel *= n
    old = self.detach()
    capacity = old._storage_nbytes() // old.element_size() - old.storage_offset() if hasattr(old, "_storage_nbytes") \
        else (old.numel() if old.is_contiguous() else 0)
    if numel <= capacity and old.is_contiguous():
        new = F.as_strided(old, sizes, strides, old.storage_offset())
    elif self.device.type == "cpu" and self.is_shared():  # other processes could not follow new memory
        raise RuntimeError("Trying to resize storage that is not resizable")
    else:
        new = F.empty(sizes, dtype=self.dtype, device=self.device)
        keep = min(numel, old.numel())
        if keep:
            new.view(-1)[:keep].copy_(old.reshape(-1)[:keep])
    self.data = new
    return self


def fill_diagonal(self, fill_value, wrap):
    from ._C import _functions as F

    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.dim() == 2:
        rows, cols = self.shape
        n = min(rows, cols)
        r = F.arange(n, device=self.device)
        c = r
        if wrap and rows > cols + 1:
            pos = F.arange(0, rows * cols, cols + 1, device=self.device)
            r, c = pos // cols, pos % cols
        index = (r, c)
    else:
        r = F.arange(self.shape[0], device=self.device)
        index = (r,) * self.dim()
    value = F.full((), fill_value, dtype=self.dtype, device=self.device)
    return self.index_put_(index, value)


def apply_elementwise(self, fn, other):
    from ._creation import tensor

    name = "apply_" if other is None else "map_"
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    flat = self.detach().reshape(-1).tolist()
    if other is None:
        values = [fn(v) for v in flat]
    else:
        if other.device.type != "cpu":
            raise TypeError(f"{name} is only implemented on CPU tensors")
        ys = other.detach().expand(self.shape).reshape(-1).tolist()
        values = [fn(v, w) for v, w in zip(flat, ys)]
    with _no_grad():
        self.copy_(tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _no_grad():
    from .autograd.grad_mode import no_grad

    return no_grad()


def random_fill(self, kind, a, b, generator):
    """geometric_, log_normal_ and cauchy_: transforms of uniform or normal draws (Philox, as every random op),
    computed in float64 and written in self's dtype."""
    import math

    from ._C import _functions as F

    if kind == "geometric":
        if not (0 < a < 1):
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={a}")
        u = F.rand(self.shape, generator=generator, dtype=_C.float64, device=self.device)
        values = (F.log1p(-u) / math.log1p(-a)).floor() + 1
    elif kind == "log_normal":
        if not self.dtype.is_floating_point:
            raise RuntimeError(f"log_normal_ expects a floating-point dtype, but got {self.dtype}")
        if not b > 0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={b}")
        values = F.randn(self.shape, generator=generator, dtype=_C.float64, device=self.device).mul(b).add(a).exp()
    else:
        if not self.dtype.is_floating_point:
            raise RuntimeError(f"cauchy_ expects a floating-point dtype, but got {self.dtype}")
        if not b > 0:
            raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={b}")
        u = F.rand(self.shape, generator=generator, dtype=_C.float64, device=self.device)
        values = ((u - 0.5) * math.pi).tan() * b + a
    with _no_grad():
        self.copy_(values)
    return self


# ---------------------------------------------------------------- function aliases

# PyTorch's aliases: alias -> the op it names. Each gets the function, the method and the in-place method where
# the op has them (its out= comes with the function).
ALIASES = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctanh": "atanh", "arctan2": "atan2", "greater": "gt", "greater_equal": "ge",
    "less": "lt", "less_equal": "le", "not_equal": "ne", "divide": "div", "multiply": "mul", "subtract": "sub",
    "negative": "neg", "fix": "trunc", "concatenate": "cat",
}
# In-place methods only (PyTorch has no function of these names). Empty today: swapaxes_/swapdims_ need the
# schema's swapaxes/swapdims to declare an in-place variant first (tests/test_ops.py checks that they agree).
METHOD_ALIASES = {}


def install(namespace, tensor_class):
    """Puts the aliases, the legacy types and the top-level in-place functions into torchlite's namespace."""
    for alias, target in ALIASES.items():
        if target in namespace and alias not in namespace:
            namespace[alias] = namespace[target]
        for suffix in ("", "_"):
            if hasattr(tensor_class, target + suffix) and alias + suffix not in tensor_class.__dict__:
                setattr(tensor_class, alias + suffix, getattr(tensor_class, target + suffix))
    for alias, target in METHOD_ALIASES.items():
        if alias not in tensor_class.__dict__:
            setattr(tensor_class, alias, getattr(tensor_class, target))
    namespace.update(LEGACY_TYPES)
    # torchlite.abs_(x), torchlite.relu_(x)...: PyTorch's top-level in-place functions are its Tensor methods.
    for name in TOP_LEVEL_INPLACE:
        if name not in namespace and hasattr(tensor_class, name):
            namespace[name] = getattr(tensor_class, name)


# The in-place functions PyTorch 2.13 has at its top level (torch.abs_, torch.relu_...).
TOP_LEVEL_INPLACE = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "celu_", "clamp_", "clamp_max_", "clamp_min_",
    "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_",
    "floor_", "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_",
    "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "resize_as_", "round_",
    "rsqrt_", "selu_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "threshold_",
    "trunc_", "xlogy_", "zero_",
)
