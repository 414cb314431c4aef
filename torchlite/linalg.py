"""Linear algebra (PyTorch's torch.linalg): the schema's ops with `python_module: linalg`."""
from . import _C
from ._namespace import export

export(globals(), _C._linalg)
del export
