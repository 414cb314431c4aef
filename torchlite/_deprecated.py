"""PyTorch's deprecation warnings for the old linear-algebra functions torch.cholesky, qr, lu, lu_solve and
triangular_solve (and their Tensor methods): each warns once per process, as PyTorch's TORCH_WARN_ONCE does,
with PyTorch's text, then runs as before."""
import functools
import warnings

__all__ = ["install", "warn_once"]

_MESSAGES = {
    "cholesky": ("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                 "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
                 "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                 "This transform will produce equivalent results for all valid (symmetric positive definite) inputs."),
    "lu": ("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed "
           "in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
           "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
           "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
           "torch.linalg.lu_factor_ex(A, compute_pivots)"),
    "qr": ("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
           "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\n"
           "should be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')"),
    "triangular_solve": ("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be "
                         "removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
                         "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
                         "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B)."),
    "lu_solve": ("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                 "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, "
                 "LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)"),
}
_warned = set()


def warn_once(name):
    """PyTorch's UserWarning for the deprecated `name`, the first time only."""
    if name not in _warned:
        _warned.add(name)
        warnings.warn(_MESSAGES[name], UserWarning, stacklevel=3)


def _warning(name, fn):
    @functools.wraps(fn)
    def deprecated(*args, **kwargs):
        warn_once(name)
        return fn(*args, **kwargs)

    return deprecated


def install(namespace, tensor_class):
    """Wraps the top-level functions in `namespace` and the Tensor methods (torchlite.lu warns in its own body)."""
    for name in ("cholesky", "qr", "triangular_solve", "lu_solve"):
        namespace[name] = _warning(name, namespace[name])
        setattr(tensor_class, name, _warning(name, getattr(tensor_class, name)))
