"""torchlite.autograd: reverse-mode automatic differentiation.

The graph is recorded by the generated ops (every formula comes from
`derivatives:` in native_functions.yaml) and run by the C++ engine. This module
is the Python API: backward, grad, grad mode, gradcheck.
"""
from .. import _C
from . import anomaly_mode
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,  # noqa: F401
                        no_grad, set_grad_enabled)

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "gradcheck", "gradgradcheck", "Function", "once_differentiable", "detect_anomaly", "set_detect_anomaly"]


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _make_grads(outputs, grads):
    """The gradients fed to the graph: given ones checked against their output, ones for scalars."""
    from .. import ones_like
    from .._tensor import Tensor

    if len(grads) == 0:
        grads = (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"Mismatch in number of gradients: got {len(grads)} gradients for {len(outputs)} outputs")
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if not isinstance(o, Tensor):
            raise TypeError(f"backward: expected the outputs to be Tensors, got {type(o).__name__} at index {i}")
        if g is None:
            if o.requires_grad and o.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if o.requires_grad and not o.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {o.dtype}")
            out.append(ones_like(o) if o.requires_grad else None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if tuple(g.shape) != tuple(o.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a "
                               f"shape of {o.shape}.")
        if g.dtype.is_complex != o.dtype.is_complex:
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have the same "
                               f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                               f"has a dtype of {o.dtype}")
        if g.dtype.is_floating_point != o.dtype.is_floating_point and not o.dtype.is_complex:
            raise TypeError(f"For a floating-point output, grad_output[{i}] must be floating point too, got {g.dtype}")
        out.append(g)
    return out


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` (w.r.t. the graph leaves, or `inputs`) into `.grad`."""
    tensors = _as_tuple(tensors)
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    inputs = _as_tuple(inputs)
    grads = _make_grads(tensors, _as_tuple(grad_tensors))
    if retain_graph is None:
        retain_graph = create_graph
    anomaly_mode.instrument(tensors)
    _C._run_backward(tensors, grads, retain_graph, create_graph, inputs, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, returned (nothing accumulates into .grad)."""
    from .. import zeros_like

    if is_grads_batched:
        raise NotImplementedError("grad(): is_grads_batched=True is not supported")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if len(inputs) == 0:
        raise RuntimeError("grad requires non-empty inputs.")
    grads = _make_grads(outputs, _as_tuple(grad_outputs))
    if retain_graph is None:
        retain_graph = create_graph
    anomaly_mode.instrument(outputs)
    result = _C._run_backward(outputs, grads, retain_graph, create_graph, inputs, False)
    for i, r in enumerate(result):
        if r is None and not allow_unused:
            raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                               "Set allow_unused=True if this is the desired behavior.")
        if r is None and materialize_grads:
            result[i] = zeros_like(inputs[i])
    return tuple(result)


from . import forward_ad, functional, graph  # noqa: E402,F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: E402,F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401
