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


def _sublist_equation(args):
    """einsum's sublist form, einsum(op1, [0, 1], op2, [1, 2], [0, 2]), as an equation and operands."""
    def subscripts(sublist):
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < 52:
                out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
            else:
                raise ValueError(f"einsum(): expected subscript to be within the range [0, 52) but got {s}")
        return "".join(out)

    operands = list(args[0::2][:len(args) // 2])
    terms = [subscripts(s) for s in args[1::2][:len(args) // 2]]
    equation = ",".join(terms)
    if len(args) % 2 == 1:
        equation += "->" + subscripts(args[-1])
    return equation, operands


def einsum(*args, **kwargs):
    """einsum(equation, *operands): Einstein summation over the operands (given as varargs or as one list), or
    einsum(op1, sublist1, op2, sublist2, ..., [sublist_out]) with subscripts as integers in [0, 52)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = operands[0]
    else:
        equation, operands = _sublist_equation(args)
    return _C._functions.einsum(equation, tuple(operands), **kwargs)


def tensordot(a, b, dims=2, *rest, out=None):
    """tensordot(a, b, dims=2, out=None): contracts the last `dims` dims of a with the first of b, or the dims in
    dims = (dims_a, dims_b). The schema form tensordot(a, b, dims_a, dims_b) is accepted too."""
    from ._tensor import Tensor

    if rest and isinstance(rest[0], Tensor) and out is None and len(rest) == 1:
        out, rest = rest[0], ()  # tensordot(a, b, dims, out) positionally
    if rest:
        dims_a, (dims_b,) = dims, rest
    elif isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    elif isinstance(dims, Tensor):
        if dims.numel() > 1:
            dims_a, dims_b = dims.tolist()
        else:
            n = int(dims.item())
            if n < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a, dims_b = list(range(-n, 0)), list(range(n))
    elif isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if isinstance(a, Tensor) and isinstance(b, Tensor) and dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if out is None:
        return _C._functions.tensordot(a, b, dims_a, dims_b)
    return _C._functions.tensordot(a, b, dims_a, dims_b, out=out)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None): the vector p-norm over `dim`
    (all dims when None), as torch.norm: p may be a number (2, inf, -inf, 0, any p), None (2), 'fro'
    (the 2-norm over at most two dims) or 'nuc' (the nuclear norm of the matrices in two dims)."""
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            p = 2
        elif p == "fro":
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
        elif p == "nuc":
            nuc_dim = (-2, -1) if dim is None else dim
            if out is None:
                return _C._linalg.linalg_matrix_norm(input, "nuc", nuc_dim, keepdim, dtype=dtype)
            return _C._linalg.linalg_matrix_norm(input, "nuc", nuc_dim, keepdim, dtype=dtype, out=out)
        else:
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if getattr(getattr(input, "dtype", None), "is_complex", False):  # the moduli's norm, as linalg.vector_norm
        fn, p = _C._linalg.linalg_vector_norm, 2 if p is None else p
    else:
        fn = _C._functions.norm
    if out is None:
        return fn(input, p, dim, keepdim, dtype=dtype)
    return fn(input, p, dim, keepdim, dtype=dtype, out=out)


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


def lu(A, pivot=True, get_infos=False, out=None):
    """lu(A, pivot=True, get_infos=False, out=None): torch.lu, the LU factorization as linalg.lu_factor_ex
    gives it: a tuple (LU, pivots), or (LU, pivots, infos) with get_infos (else a singular matrix raises)."""
    from ._deprecated import warn_once

    warn_once("lu")
    LU, pivots, infos = _C._linalg.linalg_lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    result = (LU, pivots, infos) if get_infos else (LU, pivots)
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"lu: expected out to be a tuple of {len(result)} tensors")
        for o, r in zip(out, result):
            if tuple(o.shape) != tuple(r.shape):
                raise RuntimeError(f"lu: expected out tensors of shapes {[tuple(x.shape) for x in result]}, "
                                   f"got {tuple(o.shape)}")
            o.copy_(r)
        return tuple(out)
    return result
