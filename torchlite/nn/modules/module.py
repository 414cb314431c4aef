"""nn.Module: the base class of every layer and model (PyTorch's torch.nn.Module behaviour)."""
import functools
import itertools
from collections import OrderedDict, namedtuple

from ... import _C
from ..._tensor import Tensor
from ...utils.hooks import RemovableHandle, add_hook
from ..parameter import Buffer, Parameter

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_buffer_registration_hook", "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# Hooks that run for every module (the register_module_* functions).
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()


def _register_global(hooks, hook):
    return add_hook(hooks, hook)


def register_module_forward_pre_hook(hook):
    """hook(module, args) -> None or new args, run before every module's forward."""
    return _register_global(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, always_call=False):
    """hook(module, args, output) -> None or new output, run after every module's forward."""
    handle = RemovableHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """hook(module, grad_output) -> None or new grad_output, for every module."""
    return _register_global(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """hook(module, grad_input, grad_output) -> None or new grad_input, for every module."""
    return _register_global(_global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """hook(module, name, buffer) -> None or a new buffer, run by every register_buffer."""
    return _register_global(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """hook(module, name, submodule) -> None or a new submodule, run by every register_module."""
    return _register_global(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """hook(module, name, param) -> None or a new parameter, run by every register_parameter."""
    return _register_global(_global_parameter_registration_hooks, hook)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


_LEGACY_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _typename(value):
    # PyTorch names a tensor by its legacy type ('torch.FloatTensor') in these messages.
    if isinstance(value, Tensor):
        return f"torchlite.{_LEGACY_NAMES.get(str(value.dtype).split('.')[-1], '')}Tensor"
    return type(value).__name__


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """Base class for all neural network modules.

    Subclasses call `super().__init__()` first, assign parameters, buffers and submodules as attributes,
    and define `forward`; calling the module runs the hooks and `forward`."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} "
                            "were given")
        set_ = object.__setattr__
        set_(self, "training", True)
        set_(self, "_parameters", {})
        set_(self, "_buffers", {})
        set_(self, "_non_persistent_buffers_set", set())
        set_(self, "_backward_pre_hooks", OrderedDict())
        set_(self, "_backward_hooks", OrderedDict())
        set_(self, "_is_full_backward_hook", None)
        set_(self, "_forward_hooks", OrderedDict())
        set_(self, "_forward_hooks_with_kwargs", OrderedDict())
        set_(self, "_forward_hooks_always_called", OrderedDict())
        set_(self, "_forward_pre_hooks", OrderedDict())
        set_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        set_(self, "_state_dict_hooks", OrderedDict())
        set_(self, "_state_dict_pre_hooks", OrderedDict())
        set_(self, "_load_state_dict_pre_hooks", OrderedDict())
        set_(self, "_load_state_dict_post_hooks", OrderedDict())
        set_(self, "_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ------------------------------------------------------------------ registration
    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer: module state that is not a parameter (BatchNorm's running_mean). Persistent buffers
        are part of the state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            out = hook(self, name, tensor)
            if out is not None:
                tensor = out
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Adds a parameter (a Parameter or None) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             "created explicitly. To express '{name}' as a function of another Tensor, compute "
                             "the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            out = hook(self, name, param)
            if out is not None:
                param = out
        self._parameters[name] = param

    def add_module(self, name, module):
        """Adds a child module under `name` (reachable as an attribute)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            out = hook(self, name, module)
            if out is not None:
                module = out
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias of add_module."""
        self.add_module(name, module)

    def _lookup(self, target, what):
        names = target.split(".") if target else []
        mod = self
        for i, item in enumerate(names[:-1] if what != "module" else names):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod, (names[-1] if names and what != "module" else None)

    def get_submodule(self, target):
        """The submodule named by a dotted path ('' is the module itself)."""
        mod, _ = self._lookup(target, "module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Sets the submodule at a dotted path (its parent must exist)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent, name = self._lookup(target, "attr")
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """The parameter named by a dotted path."""
        mod, name = self._lookup(target, "attr")
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer named by a dotted path."""
        mod, name = self._lookup(target, "attr")
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    def get_extra_state(self):
        """The extra state a subclass stores in its state_dict (define with set_extra_state)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please "
                           "file an issue.")

    def set_extra_state(self, state):
        """Restores what get_extra_state returned."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please "
                           "file an issue.")

    # ------------------------------------------------------------------ attributes
    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            for hook in _global_module_registration_hooks.values():
                out = hook(self, name, value)
                if out is not None:
                    value = out
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            remove_from(d, self._parameters, self._modules)
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        attrs = list(object.__dir__(self))
        keys = attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name, default in (("_forward_pre_hooks", OrderedDict), ("_forward_pre_hooks_with_kwargs", OrderedDict),
                              ("_forward_hooks", OrderedDict), ("_forward_hooks_with_kwargs", OrderedDict),
                              ("_forward_hooks_always_called", OrderedDict), ("_state_dict_hooks", OrderedDict),
                              ("_state_dict_pre_hooks", OrderedDict), ("_load_state_dict_pre_hooks", OrderedDict),
                              ("_load_state_dict_post_hooks", OrderedDict), ("_backward_pre_hooks", OrderedDict),
                              ("_non_persistent_buffers_set", set)):
            if name not in self.__dict__:
                self.__dict__[name] = default()
        if "_is_full_backward_hook" not in self.__dict__:
            self._is_full_backward_hook = None

    # ------------------------------------------------------------------ iteration
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse=True):
        """An iterator over the parameters (each once), of submodules too when recurse."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """An iterator over (dotted name, parameter)."""
        return self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                   remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        """An iterator over the buffers."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """An iterator over (dotted name, buffer)."""
        return self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                   remove_duplicate=remove_duplicate)

    def children(self):
        """An iterator over the direct submodules."""
        for _, m in self.named_children():
            yield m

    def named_children(self):
        """An iterator over (name, direct submodule), each module once."""
        memo = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in memo:
                memo.add(id(m))
                yield name, m

    def modules(self):
        """An iterator over this module and all its submodules, each once."""
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """An iterator over (dotted name, module), this module first ('' or prefix)."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from m.named_modules(memo, sub, remove_duplicate)

    # ------------------------------------------------------------------ modes
    def train(self, mode=True):
        """Sets training mode (dropout active, batch norm on batch statistics) here and in every submodule."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """Sets evaluation mode: train(False)."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Sets requires_grad of every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Resets the gradients of every parameter: to None by default, else to zeros in place (a sparse
        gradient emptied)."""
        from ...optim.optimizer import _zero_grad_

        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g = g.detach()
                    p.grad = g
                else:
                    g.requires_grad_(False)
                _zero_grad_(g)

    def share_memory(self):
        """Moves the parameters, their gradients and the buffers to shared memory (Tensor.share_memory_), for
        processes that train one model together (torchlite.multiprocessing); returns self."""
        return self._apply(lambda t: t.share_memory_())

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The line (or lines) repr shows inside the parentheses; subclasses describe their settings here."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): {_addindent(repr(module), 2)}" for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body = extra_lines[0]
            else:
                body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"

    # ------------------------------------------------------------------ conversions
    def _apply(self, fn, recurse=True):
        from ...autograd.grad_mode import no_grad

        if recurse:
            for m in self.children():
                m._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            if applied is not param:
                param.data = applied.data if isinstance(applied, Parameter) else applied
            if param.grad is not None:
                with no_grad():
                    g = _apply_to_sparse(fn, param.grad) if param.grad.is_sparse else fn(param.grad)
                if g is not param.grad:
                    param.grad = g
        for key, buf in self._buffers.items():
            if buf is not None:
                new = fn(buf)
                if new is not buf:
                    if getattr(buf, "_is_buffer", False):
                        new._is_buffer = True
                    self._buffers[key] = new
        return self

    def apply(self, fn):
        """Calls fn(module) on every submodule (children first) and on this module; returns self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def cuda(self, device=None):
        """Moves every parameter and buffer to a CUDA device."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        """Moves every parameter and buffer to the CPU."""
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        """Casts every parameter and buffer to dst_type."""
        return self._apply(lambda t: t.to(dst_type))

    def _cast_floating(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        """Casts floating parameters and buffers to float32."""
        return self._cast_floating(_C.float32)

    def double(self):
        """Casts floating parameters and buffers to float64."""
        return self._cast_floating(_C.float64)

    def half(self):
        """Casts floating parameters and buffers to float16."""
        return self._cast_floating(_C.float16)

    def bfloat16(self):
        """Casts floating parameters and buffers to bfloat16."""
        return self._cast_floating(_C.bfloat16)

    def to_empty(self, *, device, recurse=True):
        """Moves parameters and buffers to `device` without copying their values (uninitialized memory)."""
        from ... import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def to(self, *args, **kwargs):
        """to(device=None, dtype=None, non_blocking=False), to(dtype), to(tensor): moves and/or casts the
        parameters and buffers in place (floating dtypes only for the cast)."""
        device, dtype, non_blocking = _parse_to(*args, **kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")

        def convert(t):
            if t.is_floating_point():
                return t.to(device, dtype, non_blocking)
            return t.to(device, non_blocking=non_blocking) if device is not None else t

        return self._apply(convert)

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) -> None or new args (or hook(module, args, kwargs) -> None or (args, kwargs)
        with with_kwargs=True), run before forward."""
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) -> None or new output (hook(module, args, kwargs, output) with
        with_kwargs=True), run after forward; always_call runs it when forward raised, too."""
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> None or new grad_output, run when the gradients of the module's
        outputs are known."""
        return add_hook(self._backward_pre_hooks, hook, prepend=prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> None or new grad_input, run when the gradients of the
        module's inputs are computed."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = True
        return add_hook(self._backward_hooks, hook, prepend=prepend)

    def register_backward_hook(self, hook):
        """Deprecated in PyTorch; here the same as register_full_backward_hook."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        self._is_full_backward_hook = False
        return handle

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars), run before state_dict collects this module's entries."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata), run after; may edit state_dict in place."""
        return add_hook(self._state_dict_hooks, hook)

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs), run before this module loads its entries."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self)
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self) if with_module else hook
        return handle

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys), run after load_state_dict; may edit the key lists in place."""
        return add_hook(self._load_state_dict_post_hooks, hook)

    # ------------------------------------------------------------------ call
    def _call_impl(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_pre_hooks or _global_forward_hooks
                or _global_backward_pre_hooks or _global_backward_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    __call__ = _call_impl

    def _call_with_hooks(self, args, kwargs):
        for hook_id, hook in itertools.chain(_global_forward_pre_hooks.items(), self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                out = hook(self, args, kwargs)
                if out is not None:
                    if not (isinstance(out, tuple) and len(out) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {out}.")
                    args, kwargs = out
            else:
                out = hook(self, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)
        bw_hook = None
        full = (self._backward_hooks and self._is_full_backward_hook) or self._backward_pre_hooks \
            or _global_backward_hooks or _global_backward_pre_hooks
        if full:
            bw_hook = _BackwardHook(self)
            args = bw_hook.setup_input_hook(args)
        called = set()
        result = None
        try:
            result = self.forward(*args, **kwargs)
            for hook_id, hook in itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()):
                called.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    out = hook(self, args, kwargs, result)
                else:
                    out = hook(self, args, result)
                if out is not None:
                    result = out
        except Exception:
            for hook_id, hook in itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()):
                if hook_id in called or not (hook_id in self._forward_hooks_always_called
                                             or hook_id in _global_forward_hooks_always_called):
                    continue
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        hook(self, args, kwargs, result)
                    else:
                        hook(self, args, result)
                except Exception:
                    pass
            raise
        if bw_hook is not None:
            result = bw_hook.setup_output_hook(result)
        return result

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer by dotted name (detached unless keep_vars)."""
        if args:  # the old positional form state_dict(destination, prefix, keep_vars)
            if len(args) > 3:
                raise TypeError(f"state_dict() takes at most 3 positional arguments but {len(args)} were given")
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            out = hook(self, destination, prefix, local_metadata)
            if out is not None:
                destination = out
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        from ...autograd.grad_mode import no_grad

        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(value)}")
                continue
            from ..parameter import is_lazy

            if not is_lazy(param) and value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if is_lazy(param):
                        param.materialize(value.shape)
                        param.copy_(value)
                    elif assign:
                        if isinstance(param, Parameter):
                            new = value if isinstance(value, Parameter) else Parameter(value, param.requires_grad)
                            setattr(self, name, new)
                        else:
                            setattr(self, name, value)
                    else:
                        param.copy_(value)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.shape} and whose dimensions in the checkpoint are {value.shape}, an "
                                  f"exception occurred : {ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_key:
                    rest = key[len(prefix):]
                    first = rest.split(".", 1)[0]
                    if first not in self._modules and first not in local:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies parameters and buffers from state_dict into this module and its submodules; with
        strict, the keys must match exactly. Returns (missing_keys, unexpected_keys)."""
        from collections.abc import Mapping

        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_sd = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_sd, child_prefix)
            incompatible = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                       "expected to return new values, if incompatible_keys need to be modified,"
                                       "it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking) from Module.to's argument forms."""
    from ... import device as Device, dtype as DType

    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    elif rest and isinstance(rest[0], DType):
        dtype = rest.pop(0)
    elif rest and (isinstance(rest[0], (str, Device, int)) or rest[0] is None):
        device = rest.pop(0)
        if rest and isinstance(rest[0], DType):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments: {args}")
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"cuda:{device}"
    if isinstance(device, str):
        device = Device(device)
    return device, dtype, non_blocking


class _BackwardHook:
    """Full backward hooks: the module's tensor inputs and outputs pass through identity autograd functions;
    the outputs' one sees grad_output (pre-hooks run there), the inputs' one sees grad_input (hooks run
    there, with the grad_output captured before)."""

    def __init__(self, module):
        self.module = module
        self.grad_outputs = None
        self.n_inputs = 0

    def _hooks(self, local, global_):
        return list(global_.values()) + list(local.values())

    def setup_input_hook(self, args):
        from ..._tensor import Tensor as T

        idx = [i for i, a in enumerate(args) if isinstance(a, T) and a.requires_grad]
        self.input_idx = idx
        self.n_inputs = len([a for a in args if isinstance(a, T)])
        if not idx:
            return args
        outs = _Identity.apply(self._on_grad_input, *[args[i] for i in idx])
        if not isinstance(outs, tuple):
            outs = (outs,)
        args = list(args)
        for i, o in zip(idx, outs):
            args[i] = o
        return tuple(args)

    def setup_output_hook(self, result):
        from ..._tensor import Tensor as T

        single = isinstance(result, T)
        outs = (result,) if single else result
        if not isinstance(outs, tuple):
            return result
        idx = [i for i, o in enumerate(outs) if isinstance(o, T) and o.requires_grad]
        if not idx:
            return result
        wrapped = _Identity.apply(self._on_grad_output, *[outs[i] for i in idx])
        if not isinstance(wrapped, tuple):
            wrapped = (wrapped,)
        outs = list(outs)
        for i, o in zip(idx, wrapped):
            outs[i] = o
        if not self.input_idx:
            self._no_inputs = True
        return outs[0] if single else tuple(outs)

    def _on_grad_output(self, grads):
        m = self.module
        for hook in self._hooks(m._backward_pre_hooks, _global_backward_pre_hooks):
            out = hook(m, grads)
            if out is not None:
                grads = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        self.grad_outputs = grads
        if not self.input_idx:  # no input requires grad: the hooks see grad_input = (None, ...)
            for hook in self._hooks(m._backward_hooks, _global_backward_hooks):
                hook(m, (None,) * max(self.n_inputs, 1), grads)
        return grads

    def _on_grad_input(self, grads):
        m = self.module
        full = [None] * self.n_inputs
        for i, g in zip(self.input_idx, grads):
            full[i] = g
        full = tuple(full)
        for hook in self._hooks(m._backward_hooks, _global_backward_hooks):
            out = hook(m, full, self.grad_outputs)
            if out is not None:
                full = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        return tuple(full[i] for i in self.input_idx)


def _make_identity():
    from ...autograd.function import Function

    class BackwardHookFunction(Function):
        @staticmethod
        def forward(ctx, callback, *tensors):
            ctx.callback = callback
            outs = tuple(t.view_as(t) for t in tensors)
            return outs if len(outs) != 1 else outs[0]

        @staticmethod
        def backward(ctx, *grads):
            return (None,) + tuple(ctx.callback(grads))

    return BackwardHookFunction


class _IdentityProxy:
    _cls = None

    def apply(self, *args):
        if _IdentityProxy._cls is None:
            _IdentityProxy._cls = _make_identity()
        return _IdentityProxy._cls.apply(*args)


_Identity = _IdentityProxy()


def _apply_to_sparse(fn, grad):
    """_apply's conversion of a sparse gradient (nn.Embedding(sparse=True)): fn converts the values; the indices
    follow them to their device (and stay int64). The gradient itself when nothing changed."""
    from ... import _C

    indices, values, coalesced = _C._sparse_parts(grad)
    new_values = fn(values)
    new_indices = indices if new_values.device == indices.device else indices.to(new_values.device)
    if new_values is values and new_indices is indices:
        return grad
    return _C._sparse_coo_tensor(new_indices, new_values, list(grad.shape), coalesced, False)
