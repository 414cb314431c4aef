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


def nonzero(input, *, out=None, as_tuple=False):
    """The coordinates of the nonzero entries of `input`: an int64 (n, input.dim()) tensor, or with
    as_tuple=True one 1-D tensor per dim (what torchlite.where(condition) returns)."""
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        return _C._functions.where(input)
    if out is None:
        return _C._functions.nonzero(input)
    return _C._functions.nonzero(input, out=out)
