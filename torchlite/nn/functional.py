"""Neural-network functions (PyTorch's torch.nn.functional): the schema's ops with
`python_module: nn.functional`."""
from .. import _C
from .._namespace import export

export(globals(), _C._nn)
del export
