"""torchlite: PyTorch's API on operators generated from one YAML schema."""
import ctypes as _ctypes
import os as _os

import scipy_openblas32 as _openblas

# Idle worker threads: torchlite's OpenMP team (elementwise ops, reductions) and OpenBLAS's threads
# (matmul) share the cores, and by default both spin after their work (libgomp about 300,000 turns,
# OpenBLAS 2^28 cycles), each starving the other when ops alternate (an MLP step at 2 threads ran 15x
# slower). Shorter spins, read once when the libraries load, unless the user set their own. The
# variables are removed again once _C has loaded, so libraries loaded later see the environment as it was.
_SPIN = {"GOMP_SPINCOUNT": "1000", "OPENBLAS_THREAD_TIMEOUT": "16"}
if "OMP_WAIT_POLICY" in _os.environ:
    _SPIN.pop("GOMP_SPINCOUNT")
_SPIN = {k: v for k, v in _SPIN.items() if k not in _os.environ}
_os.environ.update(_SPIN)
try:
    # _C links against scipy-openblas32's library: load it first, globally.
    _ctypes.CDLL(_os.path.join(_openblas.get_lib_dir(), _openblas.get_library(True)), mode=_ctypes.RTLD_GLOBAL)
    from . import _C  # noqa: E402
finally:
    for _k in _SPIN:
        _os.environ.pop(_k, None)
from ._C import (  # noqa: E402,F401
    bfloat16, bool, complex64, complex128, device, dtype, float16, float32, float64, get_default_dtype, int8, int16,
    int32, int64, uint16, uint32, uint64,
    set_default_dtype, uint8, result_type, promote_types, can_cast,
)
from ._size import Size  # noqa: E402,F401
from ._tensor import Tensor  # noqa: E402,F401
from ._creation import as_tensor, from_numpy, tensor  # noqa: E402,F401
from ._tensor_str import get_printoptions, set_printoptions  # noqa: E402,F401
from ._dtype_info import finfo, iinfo  # noqa: E402,F401
from ._random import (  # noqa: E402,F401
    Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)
from . import cpu, cuda, return_types, version  # noqa: E402,F401
from . import autograd  # noqa: E402,F401
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: E402,F401
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._C import (  # noqa: E402,F401
    get_num_interop_threads, get_num_threads, set_num_interop_threads, set_num_threads,
)

# A forked child starts with one thread: libgomp's thread pool does not survive
# fork(). The C++ core also resets its own count in a pthread_atfork handler;
# this one goes through set_num_threads (BLAS keeps its single thread).
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=lambda: _C.set_num_threads(1))

# PyTorch's dtype aliases.
half, float, double, bfloat16 = float16, float32, float64, bfloat16  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

# Every generated function (torchlite.add, torchlite.zeros, ...); those of a schema `python_module:` live in
# their namespace (torchlite.special.expit, torchlite.nn.functional...).
from ._namespace import export as _export  # noqa: E402

_export(globals(), _C._functions)
del _export
from . import amp, distributions, fft, linalg, nn, optim, special, testing, utils  # noqa: E402,F401
from .amp.autocast_mode import (autocast, get_autocast_dtype, is_autocast_enabled,  # noqa: E402,F401
                                set_autocast_dtype, set_autocast_enabled)
from . import distributed, serialization  # noqa: E402,F401
from .serialization import load, save  # noqa: E402,F401
from .utils.dlpack import from_dlpack  # noqa: E402,F401
from .nn.modules.rnn import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell  # noqa: E402,F401
from .functional import broadcast_shapes, broadcast_tensors, einsum, tensordot  # noqa: E402,F401  (varargs signatures)
from .functional import nonzero  # noqa: E402,F401  (as_tuple=)
from .functional import norm, unique  # noqa: E402,F401  (norm's p may be 'fro'; unique's result depends on flags)
from .functional import lu  # noqa: E402,F401  (torch.lu: a tuple whose length depends on get_infos)
from ._lowrank import pca_lowrank, svd_lowrank  # noqa: E402,F401  (randomized, written in Python)
from ._lobpcg import lobpcg  # noqa: E402,F401  (iterative, written in Python)
from .nn.functional import (  # noqa: E402,F401  (random, written in Python)
    _top_alpha_dropout as alpha_dropout, _top_feature_alpha_dropout as feature_alpha_dropout,
    _top_feature_dropout as feature_dropout, _top_rrelu as rrelu,
)

__version__ = version.__version__

# PyTorch's function aliases (absolute, arccos, greater, divide...), the legacy type names (FloatTensor...),
# the top-level in-place functions (torchlite.relu_(x)) and the Python-level functions of torch.functional.
from . import _legacy  # noqa: E402

_legacy.install(globals(), Tensor)
from ._names import (  # noqa: E402,F401,A004
    adjoint, are_deterministic_algorithms_enabled, atleast_1d, atleast_2d, atleast_3d, block_diag, cartesian_prod,
    combinations, get_default_device, is_complex, is_conj, is_deterministic_algorithms_warn_only_enabled,
    is_floating_point, is_nonzero, is_same_size, is_signed, is_tensor, meshgrid, numel, range, set_default_device,
    use_deterministic_algorithms, unravel_index, unique_consecutive, typename, set_warn_always,
    is_warn_always_enabled, set_float32_matmul_precision, get_float32_matmul_precision,
    set_deterministic_debug_mode, get_deterministic_debug_mode, asarray, frombuffer, layout, memory_format, strided,
    sparse_coo,
    contiguous_format, channels_last, channels_last_3d, preserve_format, histogram, gradient,
    set_default_tensor_type, set_flush_denormal, get_device_module, from_file, Stream, Event,
    histogramdd, vander, chain_matmul, symeig, eig, matrix_rank, lstsq, solve, resolve_neg,
)
from ._sparse import sparse_coo_tensor  # noqa: E402,F401
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: E402,F401

from . import _deprecated  # noqa: E402

_deprecated.install(globals(), Tensor)  # torch.cholesky, qr, triangular_solve, lu_solve warn once, as PyTorch
for _name in ("symeig", "eig", "lstsq", "solve"):  # removed in PyTorch 1.9; the methods raise as the functions do
    setattr(Tensor, _name, globals()[_name])
del _name


def is_inference(input):  # noqa: A002  (PyTorch's name)
    """Whether `input` is an inference tensor (made in inference mode)."""
    return input.is_inference()
