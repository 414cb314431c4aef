"""Python-level functions whose PyTorch signatures take varargs."""
from . import _C


def broadcast_tensors(*tensors):
    """broadcast_tensors(*tensors): views of the tensors expanded to their common shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return _C._functions.broadcast_tensors(tensors)


def broadcast_shapes(*shapes):
    """The shape that tensors of the given shapes broadcast to, as a torchlite.Size."""
    from ._size import Size

    out = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        n = max(len(out), len(shape))
        a = [1] * (n - len(out)) + out
        b = [1] * (n - len(shape)) + list(shape)
        for i in range(n):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                                   f"between arg 0 and arg 1.")
            a[i] = b[i] if a[i] == 1 else a[i]
        out = a
    return Size(out)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None): the vector p-norm over `dim`
    (all dims when None), as torch.norm: p may be a number (2, inf, -inf, 0, any p), None (2) or 'fro'
    (the 2-norm over at most two dims)."""
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            p = 2
        elif p == "fro":
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
        elif p == "nuc":
            raise NotImplementedError("norm: p='nuc' (the nuclear norm) needs a singular value decomposition, "
                                      "which torchlite does not have yet")
        else:
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if out is None:
        return _C._functions.norm(input, p, dim, keepdim, dtype=dtype)
    return _C._functions.norm(input, p, dim, keepdim, dtype=dtype, out=out)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None): the sorted distinct
    elements (slices along `dim` when given), with the inverse indices and the counts when asked for, as
    torch.unique: a tensor, or a tuple (output[, inverse_indices][, counts])."""
    if dim is None:
        output, inverse, counts = _C._functions._unique2(input, sorted, return_inverse, return_counts)
    else:
        output, inverse, counts = _C._functions.unique_dim(input, dim, sorted, return_inverse, return_counts)
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output
