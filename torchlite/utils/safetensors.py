"""The safetensors format for torchlite tensors, with the API of `safetensors.torch`: save_file, load_file,
save, load.

A safetensors file is an 8-byte little-endian header length, a JSON header naming each tensor's dtype
("F32", "BF16", ...), shape and byte range, then the tensors' raw little-endian bytes; it holds no code, so
loading one is always safe. Files written here load with the `safetensors` package (`safetensors.numpy`,
`safetensors.torch`) and files it writes load here; bfloat16 included, which NumPy (and so
`safetensors.numpy`) cannot hold. The package itself is not needed."""
import json
import os
import struct

import numpy as np

from .._serialization import from_raw_values, raw_values

__all__ = ["save", "save_file", "load", "load_file"]

# torchlite dtype name -> (safetensors dtype, NumPy dtype of the raw bytes)
_DTYPES = {
    "bool": ("BOOL", np.bool_), "uint8": ("U8", np.uint8), "int8": ("I8", np.int8), "int16": ("I16", np.int16),
    "int32": ("I32", np.int32), "int64": ("I64", np.int64), "float16": ("F16", np.float16),
    "bfloat16": ("BF16", np.uint16), "float32": ("F32", np.float32), "float64": ("F64", np.float64),
}
_BY_CODE = {code: (name, np_dtype) for name, (code, np_dtype) in _DTYPES.items()}


def save(tensors, metadata=None):
    """The bytes of a safetensors file holding `tensors` (a dict name -> Tensor) and optional string
    `metadata`."""
    from .._tensor import Tensor

    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    header = {}
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise ValueError("metadata must be a dict of str to str")
        header["__metadata__"] = dict(metadata)
    seen = {}
    chunks, offset = [], 0
    for name in sorted(tensors):
        t = tensors[name]
        if not isinstance(name, str):
            raise ValueError(f"Tensor names must be strings, got {type(name).__name__}")
        if not isinstance(t, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received {type(t)}")
        ptr = (t._storage_ptr(), str(t.device)) if t.numel() else None
        if ptr is not None and ptr in seen:
            raise RuntimeError(f"Some tensors share memory, this will lead to duplicate memory on disk and potential "
                               f"differences when loading them again: [{seen[ptr]!r}, {name!r}]. A potential way to "
                               "correctly save your model is to use `save_model`.")
        if ptr is not None:
            seen[ptr] = name
        code = _DTYPES[str(t.dtype).split(".")[-1]][0]
        data = raw_values(t).tobytes()
        header[name] = {"dtype": code, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def save_file(tensors, filename, metadata=None):
    """Writes `tensors` (a dict name -> Tensor) to a safetensors file."""
    data = save(tensors, metadata)
    with open(os.fspath(filename), "wb") as f:
        f.write(data)


def _parse(buffer):
    if len(buffer) < 8:
        raise RuntimeError("safetensors: the file is too short to hold a header (truncated?)")
    (n,) = struct.unpack("<Q", bytes(buffer[:8]))
    if n > len(buffer) - 8:
        raise RuntimeError(f"safetensors: the header claims {n} bytes, the file has {len(buffer) - 8} after its "
                           "length (truncated or not a safetensors file)")
    try:
        header = json.loads(bytes(buffer[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RuntimeError(f"safetensors: the header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise RuntimeError("safetensors: the header must be a JSON object")
    return header, 8 + n


def load(data, device="cpu"):
    """The dict name -> Tensor of safetensors bytes."""
    buffer = memoryview(data)
    header, start = _parse(buffer)
    body = len(buffer) - start
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            code, shape, (begin, end) = info["dtype"], [int(s) for s in info["shape"]], info["data_offsets"]
        except (KeyError, TypeError, ValueError):
            raise RuntimeError(f"safetensors: malformed header entry for {name!r}") from None
        if code not in _BY_CODE:
            raise RuntimeError(f"safetensors: unsupported dtype {code!r} for {name!r}")
        dtype_name, np_dtype = _BY_CODE[code]
        count = int(np.prod(shape)) if shape else 1
        if not 0 <= begin <= end <= body or end - begin != count * np.dtype(np_dtype).itemsize:
            raise RuntimeError(f"safetensors: the byte range of {name!r} does not match its shape and dtype (or lies "
                               "outside the file)")
        arr = np.frombuffer(buffer[start + begin:start + end], dtype=np_dtype).reshape(shape).copy()
        t = from_raw_values(arr, dtype_name)
        out[name] = t if str(device) == "cpu" else t.to(device)
    return out


def load_file(filename, device="cpu"):
    """The dict name -> Tensor of a safetensors file."""
    with open(os.fspath(filename), "rb") as f:
        return load(f.read(), device)
