"""Neural networks (PyTorch's torch.nn): Module, Parameter, the layers, init, utils, functional."""
from . import functional  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential  # noqa: F401
from . import init, utils  # noqa: F401,E402
from . import parallel  # noqa: F401,E402
