"""Sparse COO tensors (PyTorch's `torch.sparse_coo` layout), as far as sparse gradients need them.

`nn.Embedding(..., sparse=True)` and `nn.EmbeddingBag(..., sparse=True)` give their weight a sparse COO gradient
(one row per index looked up, not a dense tensor of the table's size); autograd accumulates such gradients, and
`optim.SparseAdam`, `SGD` and `Adagrad` consume them. `torchlite.sparse_coo_tensor` makes one from indices and
values, and a sparse tensor has PyTorch's accessors: `is_sparse`, `layout`, `_indices()`, `_values()`,
`indices()`, `values()`, `_nnz()`, `sparse_dim()`, `dense_dim()`, `is_coalesced()`, `coalesce()`, `to_dense()`.

Ops (arithmetic, reductions, indexing...) read dense tensors only: given a sparse tensor they raise
NotImplementedError naming the op; convert with `.to_dense()`. Sparse tensors carry no autograd history.
The C++ side is csrc/sparse/Coo.h."""
import math

from . import _C

__all__ = ["sparse_coo_tensor"]


def _layout_of(t):
    from ._names import sparse_coo, strided

    return sparse_coo if _C._is_sparse(t) else strided


def _as_index_tensor(indices, device):
    from ._creation import as_tensor
    from ._tensor import Tensor

    if not isinstance(indices, Tensor):
        indices = as_tensor(indices, device=device)
    if indices.dtype != _C.int64:
        if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype == _C.bool:
            raise RuntimeError(f"sparse_coo_tensor: indices must be an int64 tensor, got {indices.dtype}")
        indices = indices.to(_C.int64)
    if device is not None:
        indices = indices.to(device)
    return indices


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """A sparse tensor in COO format: `values[k]` at index `indices[:, k]`. indices: integers of shape (sparse_dim,
    nnz); values: (nnz, *dense sizes); size: the dense shape, by default the smallest that holds every index
    (then values' dense sizes). Duplicate indices are allowed (summed by coalesce() and to_dense()). Every index is
    checked against size whatever check_invariants says, and floating indices are refused, where PyTorch without
    check_invariants takes both (an index out of range, or a fraction truncated, would be silently wrong values). is_coalesced=True declares the indices sorted and
    unique. The result shares indices and values when they are tensors of the right dtype and device."""
    from ._creation import as_tensor
    from ._tensor import Tensor

    del check_invariants, pin_memory  # indices are always checked; pinned memory is ordinary memory here
    if requires_grad:
        raise NotImplementedError("sparse_coo_tensor: torchlite's sparse tensors carry no autograd history "
                                  "(requires_grad=True is not supported); sparse gradients come from "
                                  "nn.Embedding(sparse=True)")
    if not isinstance(values, Tensor):
        values = as_tensor(values, dtype=dtype, device=device)
    else:
        if dtype is not None and values.dtype != dtype:
            values = values.to(dtype)
        if device is not None:
            values = values.to(device)
    indices = _as_index_tensor(indices, values.device)
    if indices.dim() != 2:
        raise RuntimeError(f"sparse_coo_tensor: indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    if values.dim() == 0:
        raise RuntimeError("sparse_coo_tensor: values must have at least one dimension (nnz), got a 0-dim tensor")
    if size is None:
        sparse_dim, nnz = indices.shape
        if nnz > 0:
            if int(indices.min()) < 0:
                raise RuntimeError(f"sparse_coo_tensor: found negative index {int(indices.min())}")
            tops = indices.amax(1).tolist()
        else:
            tops = [-1] * sparse_dim
        size = tuple(int(t) + 1 for t in tops) + tuple(values.shape[1:])
    else:
        size = tuple(int(s) for s in size)
    return _C._sparse_coo_tensor(indices.detach(), values.detach(), list(size), bool(is_coalesced), True)


def _indices(t):
    """A sparse tensor's indices (sparse_dim, nnz): its own tensor (not a copy), coalesced or not."""
    return _check_sparse(t, "_indices")[0]


def _values(t):
    """A sparse tensor's values (nnz, *dense sizes): its own tensor (not a copy), coalesced or not."""
    return _check_sparse(t, "_values")[1]


def indices(t):
    """A coalesced sparse tensor's indices (sparse_dim, nnz)."""
    indices_, _, coalesced = _check_sparse(t, "indices")
    if not coalesced:
        raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
    return indices_


def values(t):
    """A coalesced sparse tensor's values (nnz, *dense sizes)."""
    _, values_, coalesced = _check_sparse(t, "values")
    if not coalesced:
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
    return values_


def _check_sparse(t, op):
    if not _C._is_sparse(t):
        raise RuntimeError(f"{op} expected sparse coordinate tensor layout but got Strided")
    return _C._sparse_parts(t)


def nnz(t):
    """_nnz(): the number of values a sparse tensor stores (duplicates included until coalesce())."""
    return _check_sparse(t, "_nnz")[0].shape[1]


def sparse_dim(t):
    """The number of sparse dims (0 for a dense tensor)."""
    return _C._sparse_parts(t)[0].shape[0] if _C._is_sparse(t) else 0


def dense_dim(t):
    """The number of dense dims (all of a dense tensor's)."""
    return t.dim() - sparse_dim(t)


def is_coalesced(t):
    """Whether a sparse tensor's indices are sorted and unique."""
    return _check_sparse(t, "is_coalesced")[2]


def _linear(indices, size):
    """Each index as one number: its row in the dense tensor viewed as (prod(size[:sparse_dim]), ...)."""
    lin = None
    stride = 1
    for d in range(indices.shape[0] - 1, -1, -1):
        term = indices[d] if stride == 1 else indices[d] * stride
        lin = term if lin is None else lin + term
        stride *= size[d]
    return lin


def coalesce(t):
    """The tensor with sorted, unique indices, the values of duplicates summed; itself when already coalesced."""
    from .functional import unique

    indices_, values_, coalesced = _check_sparse(t, "coalesce")
    if coalesced:
        return t
    size = tuple(t.shape)
    sd = indices_.shape[0]
    if indices_.shape[1] == 0:
        return _C._sparse_coo_tensor(indices_.clone(), values_.clone(), list(size), True, False)
    keys, inverse = unique(_linear(indices_, size), sorted=True, return_inverse=True)
    summed = _C._functions.zeros((keys.shape[0],) + tuple(values_.shape[1:]), dtype=values_.dtype,
                                 device=values_.device)
    summed.index_add_(0, inverse, values_)
    rows = []
    rest = keys
    for d in range(sd - 1, -1, -1):  # unravel the linear index, last sparse dim first
        rows.append(rest % size[d] if d else rest)
        rest = rest // size[d]
    new_indices = _C._functions.stack(rows[::-1]) if sd > 1 else keys.unsqueeze(0)
    return _C._sparse_coo_tensor(new_indices, summed, list(size), True, False)


def to_dense(t, dtype=None, *, masked_grad=None):
    """The dense tensor (duplicates summed); a dense tensor itself (converted to dtype when given)."""
    del masked_grad
    dense = _C._sparse_to_dense(t) if _C._is_sparse(t) else t
    return dense if dtype is None or dense.dtype == dtype else dense.to(dtype)


def to_sparse(t, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """A dense tensor as a coalesced sparse COO tensor of its nonzero entries: with sparse_dim, over its first
    sparse_dim dims (a sub-tensor that is not all zero is one value)."""
    from ._names import sparse_coo

    if layout is not None and layout is not sparse_coo:
        raise NotImplementedError(f"to_sparse: only the sparse_coo layout is supported, got {layout}")
    if blocksize is not None or dense_dim is not None:
        raise NotImplementedError("to_sparse: blocksize and dense_dim are for the compressed layouts, which "
                                  "torchlite does not have")
    if _C._is_sparse(t):
        if sparse_dim is not None and sparse_dim != _C._sparse_parts(t)[0].shape[0]:
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument != "
                               "self.sparse_dim() is not supported")
        return t
    dims = t.dim() if sparse_dim is None else int(sparse_dim)
    if not 0 <= dims <= t.dim():
        raise RuntimeError(f"to_sparse: sparse_dim must be in [0, {t.dim()}], got {sparse_dim}")
    data = t.detach()
    if dims == 0:
        idx = _C._functions.zeros((0, 1), dtype=_C.int64, device=t.device)
        return _C._sparse_coo_tensor(idx, data.unsqueeze(0).clone(), list(t.shape), True, False)
    lead = tuple(t.shape[:dims])
    flat = data.reshape((math.prod(lead),) + tuple(t.shape[dims:]))
    mask = flat != 0
    if flat.dim() > 1:
        mask = mask.reshape(flat.shape[0], -1).any(1)
    rows = mask.nonzero().reshape(-1)
    keys = rows
    out_rows = []
    for d in range(dims - 1, -1, -1):
        out_rows.append(keys % lead[d] if d else keys)
        keys = keys // lead[d]
    idx = _C._functions.stack(out_rows[::-1]) if dims > 1 else rows.unsqueeze(0)
    return _C._sparse_coo_tensor(idx, flat.index_select(0, rows), list(t.shape), True, False)


def set_coalesced(t, coalesced):
    """_coalesced_(flag): declares the indices sorted and unique (or not), in place; returns the tensor."""
    indices_, values_, _ = _check_sparse(t, "_coalesced_")
    _C._sparse_set_parts(t, indices_, values_, bool(coalesced))
    return t


def zero_(t):
    """A sparse tensor emptied in place (nnz 0), as PyTorch's zero_() of a sparse tensor."""
    empty = _C._functions.empty
    indices_, values_, _ = _check_sparse(t, "zero_")
    _C._sparse_set_parts(t, empty((indices_.shape[0], 0), dtype=_C.int64, device=indices_.device),
                         empty((0,) + tuple(values_.shape[1:]), dtype=values_.dtype, device=values_.device), True)
    return t
