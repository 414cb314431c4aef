"""Convolutions (PyTorch's torch.nn.modules.conv): Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy forms."""
import math
from collections.abc import Iterable

from ... import empty
from .. import functional as F, init
from ..parameter import Parameter
from .linear import LazyModuleMixin, _lazy_weight_and_bias, _register_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]


def _ntuple(n):
    def parse(x):
        if isinstance(x, Iterable) and not isinstance(x, str):
            return tuple(x)
        return (x,) * n

    return parse


_single = _ntuple(1)
_pair = _ntuple(2)
_triple = _ntuple(3)
_TUPLES = {1: _single, 2: _pair, 3: _triple}


def _reverse_repeat_tuple(t, n):
    """(a, b) -> (b, b, a, a) for n=2: F.pad's order, last dim first."""
    return tuple(x for x in reversed(t) for _ in range(n))


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # What F.pad gets for the non-zero padding modes (last spatial dim first, left then right).
        if isinstance(padding, str):
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                n = len(kernel_size)
                for i, (d, k) in enumerate(zip(dilation, kernel_size)):
                    total = d * (k - 1)
                    pads[2 * (n - 1 - i)] = total // 2
                    pads[2 * (n - 1 - i) + 1] = total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        kw = {"device": device, "dtype": dtype}
        if transposed:
            self.weight = Parameter(empty((in_channels, out_channels // groups, *kernel_size), **kw))
        else:
            self.weight = Parameter(empty((out_channels, in_channels // groups, *kernel_size), **kw))
        _register_bias(self, bias, out_channels, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draws weight (kaiming_uniform_ with a=sqrt(5)) and bias (U(-1/sqrt(fan_in), 1/sqrt(fan_in)))."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


_CONV_FNS = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_T_FNS = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


class _Conv(_ConvNd):
    _dims = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        tup = _TUPLES[self._dims]
        super().__init__(in_channels, out_channels, tup(kernel_size), tup(stride),
                         padding if isinstance(padding, str) else tup(padding), tup(dilation), False, tup(0),
                         groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        conv = _CONV_FNS[self._dims]
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                        self.stride, _TUPLES[self._dims](0), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over an (N, C_in, L) or (C_in, L) input; padding may be a number, 'same' or 'valid',
    padding_mode 'zeros', 'reflect', 'replicate' or 'circular'."""

    _dims = 1


class Conv2d(_Conv):
    """2-D convolution over an (N, C_in, H, W) or (C_in, H, W) input; padding may be numbers, 'same' or
    'valid', padding_mode 'zeros', 'reflect', 'replicate' or 'circular'."""

    _dims = 2


class Conv3d(_Conv):
    """3-D convolution over an (N, C_in, D, H, W) or (C_in, D, H, W) input; padding may be numbers, 'same'
    or 'valid', padding_mode 'zeros', 'reflect', 'replicate' or 'circular'."""

    _dims = 3


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return _single(self.output_padding)
        has_batch = input.dim() == num_spatial_dims + 2
        non_spatial = 2 if has_batch else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {non_spatial + num_spatial_dims} elements "
                             f"(got {len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dil = dilation[d] if dilation is not None else 1
            smallest = ((input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                        + dil * (kernel_size[d] - 1) + 1)
            min_sizes.append(smallest)
            max_sizes.append(smallest + stride[d] - 1)
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if size < lo or size > hi:
                from ... import Size  # (slicing a torchlite Size gives a tuple; PyTorch prints a Size here)

                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{min_sizes} to {max_sizes} (for an input of {Size(input.size()[2:])})")
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]


class _ConvTranspose(_ConvTransposeNd):
    _dims = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        tup = _TUPLES[self._dims]
        super().__init__(in_channels, out_channels, tup(kernel_size), tup(stride), tup(padding), tup(dilation),
                         True, tup(output_padding), groups, bias, padding_mode, device=device, dtype=dtype)

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        if not isinstance(self.padding, tuple):
            raise AssertionError("self.padding must be a tuple")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              self._dims, self.dilation)
        return _CONV_T_FNS[self._dims](input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                       self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    """1-D transposed convolution (the gradient of Conv1d with respect to its input); forward takes an
    optional output_size to pick among the possible output lengths."""

    _dims = 1


class ConvTranspose2d(_ConvTranspose):
    """2-D transposed convolution (the gradient of Conv2d with respect to its input); forward takes an
    optional output_size to pick among the possible output sizes."""

    _dims = 2


class ConvTranspose3d(_ConvTranspose):
    """3-D transposed convolution (the gradient of Conv3d with respect to its input); forward takes an
    optional output_size to pick among the possible output sizes."""

    _dims = 3


class _LazyConvXdMixin(LazyModuleMixin):
    def reset_parameters(self):
        """Initializes as the convolution does, once the parameters are materialized."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        """Infers in_channels from the input's channel dim, materializes weight and bias and initializes
        them."""
        from ...autograd.grad_mode import no_grad

        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    self.weight.materialize((self.in_channels, self.out_channels // self.groups,
                                             *self.kernel_size))
                else:
                    self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                             *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input):
        spatial = self._get_num_spatial_dims()
        batched = spatial + 2
        if input.dim() not in (spatial + 1, batched):
            raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {batched}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == batched else input.shape[0]

    def _get_num_spatial_dims(self):
        return self._dims


def _lazy_conv(base, doc):
    class LazyConv(_LazyConvXdMixin, base):
        __doc__ = doc
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                             device=device, dtype=dtype)
            _lazy_weight_and_bias(self, bias, device, dtype)
            self.out_channels = out_channels

    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + base.__name__
    return LazyConv


def _lazy_conv_transpose(base, doc):
    class LazyConvTranspose(_LazyConvXdMixin, base):
        __doc__ = doc
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                             padding_mode, device=device, dtype=dtype)
            _lazy_weight_and_bias(self, bias, device, dtype)
            self.out_channels = out_channels

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = "Lazy" + base.__name__
    return LazyConvTranspose


LazyConv1d = _lazy_conv(Conv1d, "A Conv1d whose in_channels is inferred from the first input.")
LazyConv2d = _lazy_conv(Conv2d, "A Conv2d whose in_channels is inferred from the first input.")
LazyConv3d = _lazy_conv(Conv3d, "A Conv3d whose in_channels is inferred from the first input.")
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d, "A ConvTranspose1d whose in_channels is inferred "
                                           "from the first input.")
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d, "A ConvTranspose2d whose in_channels is inferred "
                                           "from the first input.")
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d, "A ConvTranspose3d whose in_channels is inferred "
                                           "from the first input.")
