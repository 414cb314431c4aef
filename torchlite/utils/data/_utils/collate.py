"""Collation (PyTorch's torch.utils.data._utils.collate): turning a list of samples into a batch.

`collate` walks the structure of the first sample: types found in `collate_fn_map` (tensors, NumPy arrays and
scalars, numbers, strings) go to their function; mappings, namedtuples and sequences are collated field by field.
"""
import collections.abc
import copy
import re

import numpy as np

from ...._tensor import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert", "collate_tensor_fn",
           "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn", "collate_int_fn",
           "collate_str_fn"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                                  "dicts or lists; found {}")


def _tl():
    import torchlite

    return torchlite


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _numpy_to_tensor(a):
    """A NumPy array or scalar as a tensor of the same dtype (NumPy scalars go through a 0-d array:
    torchlite.as_tensor does not keep a NumPy scalar's own dtype)."""
    return _tl().as_tensor(np.asarray(a))


def _rebuild_sequence(elem, items):
    """`items` in a sequence of elem's type when that type can be rebuilt, else in a list."""
    if isinstance(elem, collections.abc.MutableSequence):
        try:
            out = copy.copy(elem)
            for i, item in enumerate(items):
                out[i] = item
            return out
        except TypeError:
            return list(items)
    try:
        return type(elem)(items)
    except TypeError:
        return list(items)


def _rebuild_mapping(elem, pairs):
    """`pairs` (a dict) in a mapping of elem's type when that type can be rebuilt, else in a dict."""
    if isinstance(elem, collections.abc.MutableMapping):
        try:
            out = copy.copy(elem)
            out.update(pairs)
            return out
        except TypeError:
            return pairs
    try:
        return type(elem)(pairs)
    except TypeError:
        return pairs


def default_convert(data):
    """Converts NumPy arrays and scalars (also inside mappings, namedtuples and sequences) to tensors;
    everything else is returned as it is (tuples become lists)."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_", "bytes_"):
        if isinstance(data, np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _numpy_to_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {k: default_convert(v) for k, v in data.items()})
    if _is_namedtuple(data):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Collates `batch` (a sequence of samples) by the type of its first element: the function of
    `collate_fn_map` registered for that type (or, in insertion order, for a base class of it), else field by
    field for mappings, namedtuples and sequences (tuples give lists)."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        pairs = {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
        return _rebuild_mapping(elem, pairs)
    if _is_namedtuple(elem):
        return elem_type(*(collate(list(f), collate_fn_map=collate_fn_map) for f in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(e) != n for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [collate(f, collate_fn_map=collate_fn_map) for f in zip(*batch)]
        if isinstance(elem, tuple):
            return fields  # tuples come back as lists, as in PyTorch
        return _rebuild_sequence(elem, fields)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors of one size, stacked along a new first dimension."""
    return _tl().stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays converted to tensors and stacked (string and object arrays are refused)."""
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_numpy_to_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars as a 1-D tensor of their dtype."""
    return _numpy_to_tensor(list(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats as a float64 tensor."""
    tl = _tl()
    return tl.tensor(list(batch), dtype=tl.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints (int64) or bools (bool) as a tensor."""
    return _tl().tensor(list(batch))


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes are kept as they are."""
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """PyTorch's default collate_fn: tensors stacked, NumPy arrays and numbers made tensors (float -> float64,
    int -> int64, bool -> bool), strings kept, mappings / namedtuples / sequences collated field by field."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
