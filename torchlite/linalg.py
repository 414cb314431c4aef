"""Linear algebra (PyTorch's torch.linalg): the schema's ops with `python_module: linalg`.

As in PyTorch, the schema names them `linalg_<name>` (bound as torchlite._C._linalg.linalg_<name>) and this
module exports each as `<name>`: `linalg_solve` is torchlite.linalg.solve."""
from . import _C
from ._namespace import export

export(globals(), _C._linalg)
for _name in [n for n in globals() if n.startswith("linalg_")]:
    globals()[_name[len("linalg_"):]] = globals().pop(_name)
globals().pop("_name", None)
del export

#: Raised for a singular or non-positive-definite matrix, or an algorithm that did not converge (a RuntimeError).
LinAlgError = _C._LinAlgError
