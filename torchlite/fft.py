"""Discrete Fourier transforms (PyTorch's torch.fft): the schema's ops with `python_module: fft`.

As in PyTorch, the schema names them `fft_<name>` (bound as torchlite._C._fft.fft_<name>) and this module
exports each as `<name>`: `fft_rfft` is torchlite.fft.rfft."""
from . import _C
from ._namespace import export

export(globals(), _C._fft)
for _name in [n for n in globals() if n.startswith("fft_")]:
    globals()[_name[len("fft_"):]] = globals().pop(_name)
globals().pop("_name", None)
del export
