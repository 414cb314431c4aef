"""Special functions (PyTorch's torch.special): the schema's ops with `python_module: special`, and the names
torch.special gives ops that torchlite also has at the top level (the same functions: `special.erf is
torchlite.erf`, `special.psi is torchlite.digamma`, `special.gammainc is torchlite.igamma`...)."""
from . import _C
from ._C import _functions as _top
from ._namespace import export

export(globals(), _C._special)
del export

# torch.special.<name> -> the top-level op it is (an alias: PyTorch's own aliases give the same values,
# gradients, dtypes and errors).
_ALIASES = {
    "digamma": "digamma", "psi": "digamma", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "exp2": "exp2",
    "expm1": "expm1", "log1p": "log1p", "logit": "logit", "logsumexp": "logsumexp", "round": "round",
    "polygamma": "polygamma", "softmax": "softmax", "log_softmax": "log_softmax", "gammaln": "lgamma",
    "multigammaln": "mvlgamma", "gammainc": "igamma", "gammaincc": "igammac", "i0": "i0", "sinc": "sinc",
    "xlogy": "xlogy",
}
for _name, _target in _ALIASES.items():
    globals()[_name] = getattr(_top, _target)
del _name, _target, _top
