"""torchlite.save and torchlite.load in PyTorch's checkpoint format.

The file is PyTorch's zip archive: `<name>/data.pkl` (a pickle, protocol 2, whose tensors are
`torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)` calls and whose
storages are persistent ids `('storage', torch.<Type>Storage, key, location, numel)`), one record
`<name>/data/<key>` per storage (raw little-endian bytes, aligned to 64 bytes in the file), and the
`byteorder`, `version`, `.format_version` and `.storage_alignment` records. Tensors that share memory share
one record, so views stay views. A torchlite checkpoint loads in PyTorch and a PyTorch one loads here.

`load(..., weights_only=True)` (the default) never runs code from the file: its unpickler accepts only
tensors, storages, dtypes, devices, sizes, OrderedDict and plain containers and numbers, as PyTorch's
weights-only unpickler does."""
import io
import os
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np

from . import _C
from ._names import layout
from ._serialization import from_raw_values, raw_values

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals"]

_ALIGN = 64
# dtype name -> (PyTorch storage class name, NumPy dtype of the raw bytes)
_STORAGES = {
    "float32": ("FloatStorage", np.float32), "float64": ("DoubleStorage", np.float64),
    "float16": ("HalfStorage", np.float16), "bfloat16": ("BFloat16Storage", np.uint16),
    "int64": ("LongStorage", np.int64), "int32": ("IntStorage", np.int32), "int16": ("ShortStorage", np.int16),
    "int8": ("CharStorage", np.int8), "uint8": ("ByteStorage", np.uint8), "bool": ("BoolStorage", np.bool_),
    "complex64": ("ComplexFloatStorage", np.complex64),
    "complex128": ("ComplexDoubleStorage", np.complex128),
}
_STORAGE_DTYPES = {cls: name for name, (cls, _) in _STORAGES.items()}


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


class _Global:
    """A reference to a global by module and name, written as a pickle GLOBAL without importing it (the
    file names PyTorch's functions, which need not be installed)."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle wants reduce functions to be callable; this one is only a name
        raise TypeError(f"{self.module}.{self.name} is a name in a checkpoint, not callable here")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_REBUILD_SPARSE = _Global("torch._utils", "_rebuild_sparse_tensor")
_GET_LAYOUT = _Global("torch.serialization", "_get_layout")
_ORDERED_DICT = OrderedDict


class _StorageRef:
    def __init__(self, key, dtype_name, location, numel):
        self.key, self.dtype_name, self.location, self.numel = key, dtype_name, location, numel


def _storage_bytes(t):
    """The whole storage under tensor t, as a NumPy array of its raw element bytes."""
    from ._tensor import Tensor

    n = t._storage_nbytes() // t.element_size()
    memory = t.detach().conj() if t.is_conj() else t.detach()  # the memory as it is, not a conj() view's values
    return raw_values(Tensor.as_strided(memory, (n,), (1,), 0))


class _Writer(pickle._Pickler):
    """The pickler of data.pkl: torchlite tensors become PyTorch's rebuild calls over storage records."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = OrderedDict()  # storage key -> (tensor holding it)
        self._keys = {}

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _C.dtype):  # PyTorch's dtypes pickle as the global torch.<name>
            obj = _dtype_global(obj)
        if isinstance(obj, _Global):
            x = self.memo.get(id(obj))
            if x is not None:
                self.write(self.get(x[0]))
                return
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
            self.memoize(obj)
            return
        super().save(obj, save_persistent_id)

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            cls = _STORAGES[obj.dtype_name][0]
            return ("storage", _storage_global(cls), obj.key, obj.location, obj.numel)
        return None

    def _storage_ref(self, t):
        if _dtype_name(t.dtype) not in _STORAGES:  # PyTorch writes uint16/32/64 in another (v3) record format
            raise RuntimeError(f"torchlite.save: saving {t.dtype} tensors is not supported yet (PyTorch writes them "
                               "as untyped storages); save a copy in another dtype")
        ptr = t._storage_ptr()
        ident = (ptr, str(t.device)) if ptr else ("empty", id(t))
        key = self._keys.get(ident)
        if key is None:
            key = str(len(self._keys))
            self._keys[ident] = key
            self.storages[key] = t
        owner = self.storages[key]
        if owner.dtype != t.dtype:
            raise RuntimeError(f"torchlite.save: tensors of dtypes {owner.dtype} and {t.dtype} share one storage; "
                               "save a copy of one of them")
        loc = "cpu" if t.device.type == "cpu" else f"cuda:{t.device.index or 0}"
        return _StorageRef(key, _dtype_name(t.dtype), loc, t._storage_nbytes() // t.element_size())

    def reducer_override(self, obj):
        from ._size import Size
        from ._tensor import Tensor

        if isinstance(obj, Tensor):
            from .nn.parameter import Parameter

            if isinstance(obj, Parameter):
                return (_REBUILD_PARAMETER, (obj.detach(), obj.requires_grad, OrderedDict()))
            if type(obj) is not Tensor:
                raise pickle.PicklingError(f"torchlite.save: cannot save a {type(obj).__name__} (a Tensor subclass "
                                           "other than Parameter) in PyTorch's format")
            if obj.is_sparse:  # PyTorch's record: the layout, then (indices, values, size, is_coalesced)
                indices, values, coalesced = _C._sparse_parts(obj)
                return (_REBUILD_SPARSE, (obj.layout, (indices, values, Size(obj.shape), coalesced)))
            # A conj() view is saved with its values computed, a tensor of its own: PyTorch's record
            # (_rebuild_tensor_v2 over a storage) has no conjugate bit to set, so loading gives is_conj() False.
            if obj.is_conj():
                obj = obj.resolve_conj()
            args = (self._storage_ref(obj), obj.storage_offset(), tuple(obj.shape), tuple(obj.stride()),
                    obj.requires_grad, OrderedDict())
            return (_REBUILD_TENSOR, args)
        if isinstance(obj, _C.device):
            return (_DEVICE, (str(obj),))
        if isinstance(obj, layout):  # as PyTorch writes one: _get_layout("torch.sparse_coo")
            return (_GET_LAYOUT, (f"torch.{obj._name}",))
        if isinstance(obj, Size):
            return (_SIZE, (tuple(obj),))
        return NotImplemented


_GLOBALS = {}


def _global(module, name):
    g = _GLOBALS.get((module, name))
    if g is None:
        g = _GLOBALS[(module, name)] = _Global(module, name)
    return g


def _storage_global(cls):
    return _global("torch", cls)


def _dtype_global(dtype):
    return _global("torch", _dtype_name(dtype))


_DEVICE = _global("torch", "device")
_SIZE = _global("torch", "Size")


def _write_record(zf, name, data):
    """Adds a stored (uncompressed) record whose data starts at a multiple of 64 bytes in the file."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    nbytes = memoryview(data).nbytes
    zip64 = nbytes * 1.05 > zipfile.ZIP64_LIMIT
    start = zf.fp.tell() if hasattr(zf, "fp") else 0
    header = 30 + len(name.encode("utf-8")) + (20 if zip64 else 0)
    pad = (-(start + header + 4)) % _ALIGN
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # 'FB': padding, as PyTorch's writer uses
    info.file_size = nbytes
    with zf.open(info, "w", force_zip64=zip64) as out:
        out.write(memoryview(data).cast("B") if nbytes else b"")


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Saves obj (tensors, state_dicts, nested containers, modules) to a path or a binary file object, in
    PyTorch's zip checkpoint format."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("torchlite.save writes only PyTorch's zip format "
                                  "(_use_new_zipfile_serialization=True)")
    if isinstance(f, (str, os.PathLike)):
        prefix = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
        with open(f, "wb") as fh:
            _save(obj, fh, prefix, pickle_protocol)
    else:
        if not hasattr(f, "write"):
            raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a 'write' attribute, "
                                 f"got {type(f).__name__}")
        _save(obj, f, "archive", pickle_protocol)


def _save(obj, fh, prefix, protocol):
    buf = io.BytesIO()
    writer = _Writer(buf, protocol)
    writer.dump(obj)
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_record(zf, f"{prefix}/data.pkl", buf.getbuffer())
        _write_record(zf, f"{prefix}/.format_version", b"1")
        _write_record(zf, f"{prefix}/.storage_alignment", b"64")
        _write_record(zf, f"{prefix}/byteorder", b"little")
        for key, t in writer.storages.items():
            _write_record(zf, f"{prefix}/data/{key}", _storage_bytes(t))
        _write_record(zf, f"{prefix}/version", b"3\n")


# ---------------------------------------------------------------------------------------------- load
_SAFE_GLOBALS = {}


def add_safe_globals(safe_globals):
    """Allows these classes/functions in weights_only loads (PyTorch's torch.serialization.add_safe_globals)."""
    for g in safe_globals:
        obj, name = g if isinstance(g, tuple) else (g, f"{g.__module__}.{g.__qualname__}")
        _SAFE_GLOBALS[name] = obj


def get_safe_globals():
    """The globals add_safe_globals allowed."""
    return list(_SAFE_GLOBALS.values())


def clear_safe_globals():
    """Forgets every global add_safe_globals allowed."""
    _SAFE_GLOBALS.clear()


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    t = storage.as_strided(tuple(size), tuple(stride), storage_offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_sparse_tensor(layout, data):
    from ._names import sparse_coo

    if layout is not sparse_coo:
        raise RuntimeError(f"torchlite.load: sparse tensors of layout {layout} are not supported (only sparse_coo)")
    if not isinstance(data, tuple) or len(data) not in (3, 4):
        raise RuntimeError("torchlite.load: a sparse tensor record must hold (indices, values, size[, is_coalesced])")
    indices, values, size = data[:3]
    coalesced = bool(data[3]) if len(data) == 4 and data[3] is not None else False
    if indices.dim() != 2 or indices.dtype != _C.int64:
        raise RuntimeError("torchlite.load: a sparse tensor's indices must be a 2-D int64 tensor")
    return _C._sparse_coo_tensor(indices, values, [int(s) for s in size], coalesced, True)


def _rebuild_parameter(data, requires_grad, backward_hooks=None, state=None):
    from .nn.parameter import Parameter

    p = Parameter(data, requires_grad)
    if state:
        p.__dict__.update(state)
    return p


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _rebuild_parameter(data, requires_grad, backward_hooks, state)


class _StorageType:
    def __init__(self, dtype_name):
        self.dtype_name = dtype_name


def _get_layout(name):
    from ._names import sparse_coo, strided

    layouts = {"torch.strided": strided, "torch.sparse_coo": sparse_coo}
    if name not in layouts:
        raise RuntimeError(f"torchlite.load: unsupported layout {name!r} (torchlite has strided and sparse_coo)")
    return layouts[name]


def _torch_globals():
    """PyTorch's names in a checkpoint -> what torchlite rebuilds them with."""
    from ._size import Size

    g = {
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
        "torch.serialization._get_layout": _get_layout,
        "torch.device": _C.device,
        "torch.Size": Size,
        "collections.OrderedDict": OrderedDict,
        "torchlite._size.Size": Size,
    }
    for name in _STORAGES:
        g[f"torch.{name}"] = getattr(_C, name)
        g[f"torchlite.{name}"] = getattr(_C, name)
    for cls, dtype in _STORAGE_DTYPES.items():
        g[f"torch.{cls}"] = _StorageType(dtype)
    g["torch.storage.UntypedStorage"] = _StorageType("uint8")
    return g


_WEIGHTS_ONLY_BUILTINS = {"builtins.set", "builtins.frozenset", "builtins.complex", "builtins.slice",
                          "builtins.bytearray", "builtins.range"}


class _Reader(pickle.Unpickler):
    def __init__(self, file, records, map_location, weights_only, mmap_file):
        super().__init__(file)
        self.records = records
        self.map_location = map_location
        self.weights_only = weights_only
        self.mmap_file = mmap_file
        self.cache = {}
        self.globals = _torch_globals()

    def find_class(self, module, name):
        import _compat_pickle

        if (module, name) in _compat_pickle.NAME_MAPPING:  # protocol 2 writes Python 2's names
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        full = f"{module}.{name}"
        if full in self.globals:
            return self.globals[full]
        if full in _SAFE_GLOBALS:
            return _SAFE_GLOBALS[full]
        if full in _WEIGHTS_ONLY_BUILTINS:
            import builtins

            return getattr(builtins, name)
        if self.weights_only:
            raise pickle.UnpicklingError(
                f"Weights only load failed. Unsupported global: GLOBAL {full} was not an allowed global by default. "
                "Please use `torchlite.serialization.add_safe_globals([...])` to allowlist it, or load with "
                "`weights_only=False` if you trust the file: that can run arbitrary code from it.")
        if module.startswith("torch.") or module == "torch":
            raise pickle.UnpicklingError(f"torchlite.load: the checkpoint needs PyTorch's {full}, which torchlite "
                                         "does not provide")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"torchlite.load: unsupported persistent id {pid!r}")
        _, stype, key, location, numel = pid
        if not isinstance(stype, _StorageType):
            raise pickle.UnpicklingError(f"torchlite.load: unsupported storage type {stype!r}")
        key = str(key)
        if key not in self.cache:
            self.cache[key] = self._storage(key, stype.dtype_name, str(location), int(numel))
        return self.cache[key]

    def _storage(self, key, dtype_name, location, numel):
        np_dtype = _STORAGES[dtype_name][1]
        info = self.records.get(f"data/{key}")
        if info is None:
            raise RuntimeError(f"torchlite.load: the checkpoint has no record data/{key} (a truncated or corrupted "
                               "file?)")
        nbytes = numel * np.dtype(np_dtype).itemsize
        if info.file_size < nbytes:
            raise RuntimeError(f"torchlite.load: record data/{key} holds {info.file_size} bytes, the storage needs "
                               f"{nbytes} (a truncated or corrupted file?)")
        if self.mmap_file is not None and info.compress_type == zipfile.ZIP_STORED:
            start = _data_offset(self.mmap_file, info)
            arr = np.memmap(self.mmap_file, dtype=np_dtype, mode="c", offset=start, shape=(numel,))
        else:
            arr = np.frombuffer(self.zf.read(info), dtype=np_dtype, count=numel).copy()
        return _place(from_raw_values(arr, dtype_name), location, self.map_location)


def _data_offset(path, info):
    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        header = fh.read(30)
        if header[:4] != b"PK\x03\x04":
            raise RuntimeError("torchlite.load: corrupted zip record header")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
    return info.header_offset + 30 + name_len + extra_len


def _place(t, location, map_location):
    from ._C import device as Device

    if map_location is None:
        target = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif isinstance(map_location, (str, Device)):
        target = str(map_location)
    elif callable(map_location):
        out = map_location(t, location)
        return t if out is None else out
    else:
        raise TypeError(f"map_location should be a string, a device, a dict or a callable, not "
                        f"{type(map_location).__name__}")
    if target.startswith("cuda") and t.device.type == "cpu":
        return t.to(target)
    if target == "cpu" or target.startswith("cpu"):
        return t
    return t.to(target)


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Loads what save (torchlite's or PyTorch's) wrote. weights_only=True (the default) loads only tensors,
    containers and plain data, never running code from the file; map_location moves storages ('cpu', a
    device, a dict {saved location: new one}, or a callable(storage, location)); mmap=True maps the file's
    tensor data instead of reading it (a path is needed)."""
    if weights_only is None:
        weights_only = True
    path = os.fspath(f) if isinstance(f, (str, os.PathLike)) else None
    if mmap and path is None:
        raise ValueError("f must be a file path in order to use the mmap argument")
    try:
        zf = zipfile.ZipFile(path if path is not None else f)
    except zipfile.BadZipFile as e:
        raise RuntimeError(f"torchlite.load: not a checkpoint in PyTorch's zip format ({e}); the legacy (pre-1.6) "
                           "format is not supported, and the file may be truncated or corrupted") from None
    with zf:
        names = zf.namelist()
        pkl = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pkl:
            raise RuntimeError("torchlite.load: the archive has no <name>/data.pkl record: not a PyTorch checkpoint")
        prefix = pkl[0][: -len("data.pkl")]
        records = {n[len(prefix):]: zf.getinfo(n) for n in names if n.startswith(prefix)}
        byteorder = records.get("byteorder")
        if byteorder is not None and zf.read(byteorder) != b"little":
            raise RuntimeError("torchlite.load: big-endian checkpoints are not supported")
        try:
            data = zf.read(records["data.pkl"])
        except (zipfile.BadZipFile, EOFError, OSError) as e:
            raise RuntimeError(f"torchlite.load: the checkpoint is corrupted ({e})") from None
        reader = _Reader(io.BytesIO(data), records, map_location, weights_only, path if mmap else None)
        reader.zf = zf
        try:
            return reader.load()
        except pickle.UnpicklingError:
            raise
        except (zipfile.BadZipFile, EOFError, struct.error) as e:
            raise RuntimeError(f"torchlite.load: the checkpoint is corrupted ({type(e).__name__}: {e})") from None
