"""Identity, Linear, Bilinear and LazyLinear (PyTorch's torch.nn.modules.linear); also the lazy-module
machinery (LazyModuleMixin) the Lazy* layers share."""
import itertools
import math

from ... import empty
from .. import functional as F, init
from ..parameter import Parameter, UninitializedParameter, is_lazy
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]


class LazyModuleMixin:
    """Mixin for modules whose parameter shapes are inferred from the first input: the first forward
    calls `initialize_parameters(*args)`, which materializes the uninitialized parameters and buffers,
    then the module turns into `cls_to_become` (LazyLinear becomes Linear)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # Uninitialized parameters are saved as they are (detach would lose what they are).
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if (is_lazy(param) or keep_vars) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if (is_lazy(buf) or keep_vars) else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        from ...autograd.grad_mode import no_grad

        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    with no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materializes the parameters from the first input (defined by each lazy module)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether any parameter or buffer is still uninitialized."""
        return any(is_lazy(p) for p in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                           "Run a dummy forward pass to correctly initialize the modules")


def _factory(device, dtype):
    return {"device": device, "dtype": dtype}


def _register_bias(module, bias, size, device, dtype):
    """A `bias` parameter of `size`, left for reset_parameters to fill, when `bias`; None otherwise."""
    if bias:
        module.bias = Parameter(empty(size, **_factory(device, dtype)))
    else:
        module.register_parameter("bias", None)


def _lazy_weight_and_bias(module, bias, device, dtype):
    """Make `weight` (and, when `bias`, `bias`) uninitialized parameters, for a lazy module built from its
    eager class with empty sizes and bias=False."""
    module.weight = UninitializedParameter(device=device, dtype=dtype)
    if bias:
        module.bias = UninitializedParameter(device=device, dtype=dtype)


class Identity(Module):
    """A placeholder layer that returns its input unchanged (any constructor arguments are ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """Applies y = x A^T + b. weight is (out_features, in_features); weight and bias start uniform in
    (-1/sqrt(in_features), 1/sqrt(in_features))."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), **_factory(device, dtype)))
        _register_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draws weight (kaiming_uniform_ with a=sqrt(5)) and bias (U(-1/sqrt(fan_in), 1/sqrt(fan_in)))."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """Applies y = x1^T A x2 + b; weight is (out_features, in1_features, in2_features), weight and bias
    start uniform in (-1/sqrt(in1_features), 1/sqrt(in1_features))."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), **_factory(device, dtype)))
        _register_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draws weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is inferred from the last dim of the first input; after that first
    forward it is a plain Linear."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        _lazy_weight_and_bias(self, bias, device, dtype)
        self.out_features = out_features

    def reset_parameters(self):
        """Initializes as Linear does, once the parameters are materialized."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materializes weight (out_features, input.shape[-1]) and bias, then initializes them."""
        from ...autograd.grad_mode import no_grad

        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]
