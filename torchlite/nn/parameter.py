"""Parameter, Buffer and the uninitialized forms the Lazy modules use (PyTorch's torch.nn.parameter)."""
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


def _empty():
    from .. import empty

    return empty(0)


class Parameter(Tensor):
    """A Tensor that is a module parameter: assigned as a Module attribute, it is registered in the
    module's `parameters()`. It requires grad by default, also inside `no_grad`."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, not {type(data).__name__}")
        return Tensor._make_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        # As PyTorch: the values and requires_grad are copied, the gradient is not.
        if id(self) in memo:
            return memo[id(self)]
        import copy

        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        if self.__dict__:
            result.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


class _BufferMeta(type):
    # isinstance(t, Buffer) holds for the tensors Buffer() marks, as in PyTorch.
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """Buffer(data, *, persistent=True): marks a tensor as a buffer, so that assigning it to a Module
    attribute registers it with `register_buffer` (persistent buffers are part of the state_dict)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): data must be a Tensor, not {type(data).__name__}")
        t = data.detach().requires_grad_(data.requires_grad)
        t._is_buffer = True
        t.persistent = persistent
        return t


class _UninitializedMixin:
    """A parameter or buffer whose shape is unknown until `materialize(shape)` (the Lazy modules)."""

    _allowed_methods = ("__hash__", "size", "copy_", "is_floating_point", "half", "float", "double", "char",
                        "short", "int", "long", "cuda", "cpu", "to", "share_memory_", "__repr__", "__reduce_ex__",
                        "__deepcopy__", "detach", "requires_grad_")

    def materialize(self, shape, device=None, dtype=None):
        from .. import empty

        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedParameter(_UninitializedMixin, Parameter):
    """A Parameter of unknown shape; `materialize(shape)` turns it into a Parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .. import empty

        return Tensor._make_subclass(cls, empty(0, device=device, dtype=dtype), requires_grad)


class UninitializedBuffer(_UninitializedMixin, Tensor):
    """A buffer of unknown shape; `materialize(shape)` turns it into a Tensor."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from .. import empty

        t = Tensor._make_subclass(cls, empty(0, device=device, dtype=dtype), requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param):
    """Whether `param` is an uninitialized parameter or buffer."""
    return isinstance(param, _UninitializedMixin)

