"""nn.utils (PyTorch's torch.nn.utils): gradient clipping, parameter/vector conversion, packed sequences, parametrizations, weight and spectral norm, conv/linear + batch norm fusion."""
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from . import rnn  # noqa: F401,E402
from . import parametrize, parametrizations  # noqa: F401,E402
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa: F401,E402
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401,E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401,E402
