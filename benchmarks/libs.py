"""The libraries the suite compares: loading them, their thread counts, how torchlite is installed."""
from __future__ import annotations

import ctypes
import importlib
import importlib.metadata
import json
import os
from dataclasses import dataclass, field
from types import ModuleType

# Display names, in the order the libraries run within a trial and appear in the table.
DISPLAY = {"torchlite": "torchlite", "torch": "PyTorch", "numpy": "NumPy"}
OPTIONAL = ("torch", "numpy")


@dataclass
class Library:
    name: str  # import name: "torchlite", "torch", "numpy"
    module: ModuleType
    version: str
    notes: list[str] = field(default_factory=list)
    _blas_threads: tuple | None = None  # NumPy only: its OpenBLAS's (get, set)_num_threads, when found

    @property
    def display(self) -> str:
        return DISPLAY[self.name]

    def get_threads(self) -> int | None:
        """The library's thread count (None: not known)."""
        if self.name in ("torchlite", "torch"):
            return self.module.get_num_threads()
        if self._blas_threads is not None:  # NumPy: only its BLAS (matmul) has threads
            return self._blas_threads[0]()
        return None

    def set_threads(self, n: int) -> int | None:
        """Sets the library's thread count; returns the count now in effect (None: not controlled)."""
        if self.name in ("torchlite", "torch"):
            self.module.set_num_threads(n)
        elif self._blas_threads is not None:
            self._blas_threads[1](n)
        return self.get_threads()


def load(against: list[str]) -> tuple[list[Library], dict[str, str]]:
    """torchlite plus the libraries in `against` that import; returns them and {name: why skipped}."""
    unknown = [name for name in against if name not in OPTIONAL]
    if unknown:
        raise SystemExit(f"--against: unknown library {', '.join(unknown)} (choose from {', '.join(OPTIONAL)})")
    try:
        import torchlite
    except ImportError as e:
        raise SystemExit(f"cannot import torchlite ({e}); install it first (pip install --no-build-isolation -e .)")
    libs = [Library("torchlite", torchlite, torchlite.__version__)]
    skipped = {}
    for name in OPTIONAL:
        if name not in against:
            continue
        try:
            module = importlib.import_module(name)
        except ImportError as e:
            skipped[name] = f"not installed ({e})"
            continue
        lib = Library(name, module, module.__version__)
        if name == "numpy":
            lib._blas_threads = _numpy_blas_thread_functions()
            lib.notes.append("elementwise ops and reductions are single-threaded")
            if lib._blas_threads is None:
                lib.notes.append("its BLAS thread count (matmul) is not controlled: it uses OpenBLAS's default")
            else:
                lib.notes.append("its OpenBLAS (matmul) follows --threads (set through ctypes)")
        libs.append(lib)
    return libs, skipped


def _numpy_blas_thread_functions():
    """NumPy's OpenBLAS (get_num_threads, set_num_threads), found among the loaded libraries (Linux only), or None.

    NumPy's wheels ship scipy-openblas with prefixed symbols; threadpoolctl would do this for us,
    but it is not a dependency. The suite works without it: NumPy's matmul then uses its default.
    """
    import numpy  # noqa: F401  (loads its BLAS)

    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line and ".so" in line}
    except OSError:
        return None
    for path in sorted(p for p in paths if "numpy" in p):
        try:
            blas = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("scipy_openblas", "64_"), ("scipy_openblas", ""), ("openblas", "64_"),
                               ("openblas", "")):
            getter = getattr(blas, f"{prefix}_get_num_threads{suffix}", None)
            setter = getattr(blas, f"{prefix}_set_num_threads{suffix}", None)
            if getter is not None and setter is not None:
                getter.argtypes, getter.restype = [], ctypes.c_int
                setter.argtypes, setter.restype = [ctypes.c_int], None
                return getter, setter
    return None


def torchlite_install() -> dict:
    """How torchlite is installed: editable (a source checkout) or not, and where it imports from."""
    import torchlite

    info = {"file": torchlite.__file__, "editable": None, "direct_url": None}
    try:
        text = importlib.metadata.distribution("torchlite").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        text = None
    if text:
        direct_url = json.loads(text)
        info["direct_url"] = direct_url.get("url")
        info["editable"] = bool(direct_url.get("dir_info", {}).get("editable", False))
    else:
        # No direct_url.json: installed from an index (not editable), or run from a source tree
        # on sys.path (no distribution at all), which is editable in effect.
        source_tree = os.path.dirname(os.path.dirname(torchlite.__file__))
        info["editable"] = os.path.exists(os.path.join(source_tree, "native_functions.yaml"))
    return info
