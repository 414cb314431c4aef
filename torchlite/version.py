from . import _C

__version__ = "0.1.0"
# The CUDA version this build was compiled with, or None for a CPU-only build.
cuda = _C._cuda_version()
