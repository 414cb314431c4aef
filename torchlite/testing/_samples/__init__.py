"""The op database's tables, one module per op family.

A module may define:
- `samples()`: {full overload name: function returning a sample call's arguments by name};
- `numpy_cases()`: {full name: (sample function, NumPy reference of the sample's arguments as float64)};
- `POINTWISE_REFS`: {full name: NumPy reference} for pointwise ops (called with the arguments by name, or
  positionally for ufuncs; one with a `result_dtype` parameter also gets the result dtype's name);
- `GRADCHECK_SAMPLES`: {full name: function returning arguments that replace the sample's in gradient checks};
- `DERIVED_ARGS`: {full name: function of the arguments by name returning nondiff arguments recomputed from
  them} for gradient checks of backward ops whose formulas treat an argument (saved statistics) as the
  function of the others that it is, so that the numerical derivative moves it with them; or arguments
  mapped into the op's domain (cholesky's A -> A A^T + n I, eigh's A -> A + A^T), as PyTorch's gradcheck
  wrappers do, so that the random gradient-check inputs are valid ones;
- `GRADCHECK_OUTPUTS`: {full name: function of the op's result returning what the gradient checks
  differentiate} for ops whose outputs are defined only up to a gauge (linalg.eig's eigenvectors, each up to a
  phase: their moduli), as PyTorch's OpInfos process their outputs;
- `NONDIFF_OUTPUTS`: {full name: [return names]} of a composite op that carry no gradient by definition (a
  permutation matrix, a sign), as `nondiff_outputs:` says for an op with `derivatives:`;
- `TOLERANCES`: {full name: {dtype: (rtol, atol)}} where an op needs other tolerances than the defaults;
- `ERRORS`: [(code, exception type name, parts of the message)], bad inputs run in a subprocess;
- `STRING_ARGS`: {op name: {argument: message part}} for arguments that take strings besides numbers;
- `kernel_samples()`: {full name: [(function, args, kwargs)]}, calls that take each path of a hand-written
  kernel that has a CPU twin.
An op's sample is given once, in one module; the registry refuses a name the schema does not have.
"""
from . import (conv, core, creation, fft, indexing, kernels, linalg, loss_elementwise, losses, nn_layers, norm, pad,
               names, pointwise, pool, reductions, rnn, special, upsample)

FAMILIES = (pointwise, core, creation, reductions, linalg, indexing, losses, loss_elementwise, conv, pool, pad, norm,
            upsample, nn_layers, rnn, kernels, names, special, fft)
