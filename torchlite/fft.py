"""Discrete Fourier transforms (PyTorch's torch.fft): the schema's ops with `python_module: fft`."""
from . import _C
from ._namespace import export

export(globals(), _C._fft)
del export
