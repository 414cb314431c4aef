"""torchlite.autograd.Function: custom ops with a hand-written backward.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            y, = ctx.saved_tensors
            return grad * y

    Exp.apply(x)

forward runs without recording; when an input requires grad, apply records one
node (named `<Class>Backward`) whose backward calls the class's `backward`.
Saved tensors are kept by the node (an output without its history, as the
generated nodes do) and checked for in-place changes when read.
"""
import functools

from .. import _C
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The `ctx` of forward and backward."""

    def __init__(self):
        self._to_save = ()
        self._to_save_forward = ()
        self._saved = None
        self._non_differentiable = []
        self._dirty = []
        self._materialize_grads = True
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors):
        """Tensors (or None) that backward reads through ctx.saved_tensors."""
        from .._tensor import Tensor

        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {len(self._to_save)} "
                                f"is not a Variable ({type(t).__name__})")
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Tensors (or None) that jvp reads through ctx.saved_tensors (after those saved for backward)."""
        self._to_save_forward = tensors

    @property
    def saved_tensors(self):
        if self._saved is None:
            if self._to_save:  # inside forward, or a function that was not recorded
                return tuple(self._to_save)
            raise RuntimeError("saved_tensors is only available in backward (and after save_for_backward)")
        return self._saved

    def mark_dirty(self, *tensors):
        """Inputs that forward modified in place (and returns)."""
        self._dirty = list(tensors)

    def mark_non_differentiable(self, *tensors):
        """Outputs that get no gradient (integer results, masks)."""
        self._non_differentiable = list(tensors)

    def set_materialize_grads(self, value):
        """With False, backward gets None (not zeros) for outputs that received no gradient."""
        self._materialize_grads = bool(value)


class Function:
    """Base class of custom differentiable functions: define static forward(ctx, *args) and
    backward(ctx, *grads), and call Class.apply(*args)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method: call "
                           f"{type(self).__name__}.apply(...)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor

        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = _C.is_grad_enabled() and any(ctx.needs_input_grad)
        # Forward mode: inputs with tangents make the class's jvp give the outputs' tangents; forward itself
        # runs without them (as in PyTorch), so an op inside forward cannot answer for it.
        tangents = None
        if _C._current_dual_level():
            tangents = [_C._unpack_dual(a)[1] if isinstance(a, Tensor) else None for a in args]
            if all(t is None for t in tangents):
                tangents = None
            elif cls.jvp is Function.jvp:
                raise NotImplementedError("You must implement the jvp function for custom autograd.Function to "
                                          "use it with forward mode AD.")
        level = _C._suspend_dual_level() if tangents is not None else 0
        try:
            with no_grad():
                outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            if level:
                _C._resume_dual_level(level)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if not record:
            if tangents is not None:
                _apply_jvp(cls, ctx, args, tangents, outs)
            return outputs

        def backward(saved, *grads):
            ctx._saved = saved
            try:
                return cls.backward(ctx, *grads)
            finally:
                ctx._saved = None

        result = _C._record_function(cls.__name__ + "Backward", backward, args, list(outs), list(ctx._to_save),
                                     ctx._non_differentiable, ctx._dirty, ctx._materialize_grads)
        if tangents is not None:
            _apply_jvp(cls, ctx, args, tangents, tuple(result))
        ctx._to_save = ()
        return result[0] if single else tuple(result)


def _apply_jvp(cls, ctx, args, tangents, outs):
    """Calls cls.jvp(ctx, *tangents) (zeros for tensor inputs without one, None for other arguments) and
    gives each output its tangent."""
    from .._tensor import Tensor
    from .. import zeros_like

    grads = [t if t is not None else zeros_like(a) if isinstance(a, Tensor) else None
             for a, t in zip(args, tangents)]
    ctx._saved = tuple(ctx._to_save) + tuple(ctx._to_save_forward)
    try:
        with no_grad():
            out_tangents = cls.jvp(ctx, *grads)
    finally:
        ctx._saved = None
    if not isinstance(out_tangents, tuple):
        out_tangents = (out_tangents,)
    if len(out_tangents) != len(outs):
        raise RuntimeError(f"function {cls.__name__}.jvp returned an incorrect number of forward gradients "
                           f"(expected {len(outs)}, got {len(out_tangents)})")
    for o, t in zip(outs, out_tangents):
        if t is not None and isinstance(o, Tensor):
            _C._set_tangent(o, t)


def once_differentiable(fn):
    """Decorates backward: it runs without recording, so its result cannot be differentiated again."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    return wrapper
