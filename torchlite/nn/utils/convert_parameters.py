"""parameters_to_vector and vector_to_parameters."""
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_same_device(param, old):
    if old is not None and param.device != old:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return param.device


def parameters_to_vector(parameters):
    """One 1-D tensor: every parameter flattened and concatenated (differentiable)."""
    from ... import cat

    device = None
    vec = []
    for p in parameters:
        device = _check_same_device(p, device)
        vec.append(p.reshape(-1))
    return cat(vec)


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of the 1-D `vec` into the parameters' data (the inverse of
    parameters_to_vector)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device = None
    offset = 0
    for p in parameters:
        device = _check_same_device(p, device)
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n
