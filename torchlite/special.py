"""Special functions (PyTorch's torch.special): the schema's ops with `python_module: special`."""
from . import _C
from ._namespace import export

export(globals(), _C._special)
del export
