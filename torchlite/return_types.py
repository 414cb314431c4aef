"""Named tuples returned by ops with several named returns, as PyTorch's torch.return_types:
`torchlite.max(x, 0)` is a `torchlite.return_types.max(values, indices)`; with `out=` the result is a
`max_out`. The types are made by the compiled module from the schema's return names."""
from . import _C

__all__ = []
for _name in dir(_C._return_types):
    if not _name.startswith("_"):
        globals()[_name] = getattr(_C._return_types, _name)
        __all__.append(_name)
del _name
