"""gradcheck / gradgradcheck: analytical gradients against finite differences.

The analytical Jacobian comes from one backward pass per output element
(autograd.grad with a one-hot grad_output); the numerical one from central
differences, perturbing each input element in place by +-eps. They must agree
to atol + rtol * |numerical|, elementwise. A failure names the output, the
input, the worst element and both values.

Complex inputs and outputs count as pairs of real numbers (real part, imaginary
part), as PyTorch's gradcheck sees them: the numerical Jacobian perturbs each
input element by +-eps and +-eps*1j; the analytical one takes PyTorch's
convention (the gradient of a real L with respect to z = x + iy is dL/dx +
i dL/dy), with grad_output 1 and 1j for each element of a complex output; with
check_forward_ad, forward mode gives the Jacobian's columns from the tangents 1
and 1j of each element of a complex input.
"""
import numpy as np

from .. import _C

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when the Jacobians disagree."""


def _tensor_type():
    from .._tensor import Tensor

    return Tensor


def _as_tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _outputs(func, inputs):
    Tensor = _tensor_type()
    out = func(*inputs)
    out = _as_tuple(out)
    return tuple(o for o in out if isinstance(o, Tensor))


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _host(t):
    """t's values as a float64 NumPy array (copied from the device first for CUDA tensors); a complex tensor's
    as (..., 2) arrays of its real and imaginary parts."""
    t = t.detach().resolve_conj()
    if t.device.type != "cpu":
        t = t.cpu()
    a = np.asarray(t)
    if np.iscomplexobj(a):
        return np.stack([a.real, a.imag], -1).astype(np.float64)
    return a.astype(np.float64)


def _parts(t):
    """The real numbers each element of t stands for: 2 for a complex tensor, else 1."""
    return 2 if t.dtype.is_complex else 1


def _on_device(t, device):
    """A CPU tensor built with NumPy (a one-hot gradient or tangent), moved to `device`."""
    return t if device.type == "cpu" else t.to(device)


class _Element:
    """Reads and writes one element of x behind autograd's back: through a NumPy view of its memory on the
    CPU, through x.data (which has a version counter of its own) on other devices."""

    def __init__(self, x):
        self.cpu = x.device.type == "cpu"
        self.data = np.asarray(x) if self.cpu else x.data  # shares x's memory (with its strides)

    def get(self, pos):
        return (self.data[pos] if pos or self.cpu else self.data).item()

    def set(self, pos, value):
        if self.cpu:
            self.data[pos] = value
        else:
            (self.data[pos] if pos else self.data).fill_(value)


def _numerical_jacobian(func, inputs, diff_idx, outputs, eps):
    """{(out k, input i): array (numel(out k), numel(input i))} by central differences. The inputs are
    perturbed in place through aliases of their memory, so autograd does not see the writes."""
    jac = {}
    for i in diff_idx:
        x = inputs[i]
        elem = _Element(x)
        steps = (eps, eps * 1j) if x.dtype.is_complex else (eps,)
        cols = {k: np.zeros((outputs[k].numel() * _parts(outputs[k]), x.numel() * len(steps)))
                for k in range(len(outputs))}
        for j, pos in enumerate(np.ndindex(*tuple(x.shape)) if x.dim() else [()]):
            orig = elem.get(pos)
            for part, step in enumerate(steps):
                elem.set(pos, orig + step)
                plus = [_host(o).reshape(-1) for o in _outputs(func, inputs)]
                elem.set(pos, orig - step)
                minus = [_host(o).reshape(-1) for o in _outputs(func, inputs)]
                elem.set(pos, orig)
                for k in range(len(outputs)):
                    cols[k][:, j * len(steps) + part] = (plus[k] - minus[k]) / (2 * eps)
        for k in range(len(outputs)):
            jac[(k, i)] = cols[k]
    return jac


def _analytical_jacobian(outputs, inputs, diff_idx):
    """Same layout, one backward pass per output element; also checks each gradient's shape and dtype."""
    from .. import zeros
    from . import grad as autograd_grad

    jac = {}
    problems = []
    diff_inputs = [inputs[i] for i in diff_idx]
    for k, o in enumerate(outputs):
        units = (1, 1j) if o.dtype.is_complex else (1,)
        rows = {i: np.zeros((o.numel() * len(units), inputs[i].numel() * _parts(inputs[i]))) for i in diff_idx}
        if o.requires_grad:
            for r in range(o.numel() * len(units)):
                g = zeros(tuple(o.shape), dtype=o.dtype)  # contiguous, so the flat view writes through
                np.asarray(g).reshape(-1)[r // len(units)] = units[r % len(units)]
                g = _on_device(g, o.device)
                grads = autograd_grad((o,), diff_inputs, (g,), retain_graph=True, allow_unused=True)
                for i, gi in zip(diff_idx, grads):
                    if gi is None:
                        continue
                    if tuple(gi.shape) != tuple(inputs[i].shape):
                        problems.append(f"the gradient for input {i} has shape {tuple(gi.shape)}, "
                                        f"expected {tuple(inputs[i].shape)}")
                    elif gi.dtype != inputs[i].dtype:
                        problems.append(f"the gradient for input {i} has dtype {gi.dtype}, expected {inputs[i].dtype}")
                    elif gi.device != inputs[i].device:
                        problems.append(f"the gradient for input {i} is on device {gi.device}, expected "
                                        f"{inputs[i].device}")
                    else:
                        rows[i][r, :] = _host(gi).reshape(-1)
        for i in diff_idx:
            jac[(k, i)] = rows[i]
    return jac, problems


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """Checks the gradients of `func` at `inputs` (float64 tensors with requires_grad=True) against finite
    differences. Returns True, or raises GradcheckError (returns False with raise_exception=False)."""
    Tensor = _tensor_type()
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for i in diff_idx:
        if inputs[i].dtype not in (_C.float64, _C.complex128):
            import warnings

            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point.", stacklevel=2)
    if check_backward_ad:
        ok, _, msg = _check(func, inputs, eps, atol, rtol)
        if not ok:
            return _fail(msg, raise_exception)
    if check_forward_ad:
        ok, _, msg = _check(func, inputs, eps, atol, rtol, forward=True)
        if not ok:
            return _fail("While considering forward AD: " + msg, raise_exception)
    return True


def _forward_jacobian(func, inputs, diff_idx, outputs):
    """The same layout from forward mode: one dual evaluation per input element (two for a complex one, with
    the tangents 1 and 1j), with a one-hot tangent."""
    from .. import zeros
    from . import forward_ad

    jac = {}
    for i in diff_idx:
        x = inputs[i]
        units = (1, 1j) if x.dtype.is_complex else (1,)
        cols = {k: np.zeros((outputs[k].numel() * _parts(outputs[k]), x.numel() * len(units)))
                for k in range(len(outputs))}
        for c in range(x.numel() * len(units)):
            t = zeros(tuple(x.shape), dtype=x.dtype)
            np.asarray(t).reshape(-1)[c // len(units)] = units[c % len(units)]
            t = _on_device(t, x.device)
            with forward_ad.dual_level():
                args = list(inputs)
                args[i] = forward_ad.make_dual(x.detach(), t)
                outs = _outputs(func, tuple(args))
                for k, o in enumerate(outs):
                    tangent = forward_ad.unpack_dual(o).tangent
                    if tangent is not None:
                        cols[k][:, c] = _host(tangent).reshape(-1)
        for k in range(len(outputs)):
            jac[(k, i)] = cols[k]
    return jac, []


def _check(func, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, forward=False):
    """(passed, largest |analytical - numerical|, failure message) of func at inputs; the analytical Jacobian
    from reverse mode, or from forward mode."""
    Tensor = _tensor_type()
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outputs = _outputs(func, inputs)
    numerical = _numerical_jacobian(func, inputs, diff_idx, outputs, eps)
    if forward:
        analytical, problems = _forward_jacobian(func, inputs, diff_idx, outputs)
    else:
        analytical, problems = _analytical_jacobian(outputs, inputs, diff_idx)
    if problems:
        return False, float("inf"), "Gradcheck failed: " + "; ".join(problems)
    max_err = 0.0
    for (k, i), n in numerical.items():
        a = analytical[(k, i)]
        if not (outputs[k].dtype.is_floating_point or outputs[k].dtype.is_complex):
            continue
        diff = np.abs(a - n)
        both_nan = np.isnan(a) & np.isnan(n)
        if diff.size:
            max_err = max(max_err, float(np.max(np.where(both_nan, 0.0, np.nan_to_num(diff, nan=np.inf)))))
        bad = ~(diff <= atol + rtol * np.abs(n)) & ~both_nan
        if bad.any():
            err = np.where(bad, np.nan_to_num(diff, nan=np.inf), -1.0)  # NaN on one side: worst
            r, c = np.unravel_index(int(np.argmax(err)), err.shape)
            in_part, out_part = _parts(inputs[i]), _parts(outputs[k])
            in_idx = tuple(int(v) for v in np.unravel_index(c // in_part, tuple(inputs[i].shape))) \
                if inputs[i].dim() else ()
            out_idx = tuple(int(v) for v in np.unravel_index(r // out_part, tuple(outputs[k].shape))) \
                if outputs[k].dim() else ()
            if in_part == 2:
                in_idx = f"{in_idx} ({('real', 'imaginary')[c % 2]} part)"
            if out_part == 2:
                out_idx = f"{out_idx} ({('real', 'imaginary')[r % 2]} part)"
            msg = (f"Jacobian mismatch for output {k} with respect to input {i}: at input element {in_idx} "
                   f"(output element {out_idx}) analytical {float(a[r, c])!r} vs numerical {float(n[r, c])!r} "
                   f"(atol={atol}, rtol={rtol}); {int(bad.sum())} of {bad.size} entries differ.\n"
                   f"numerical:\n{n}\nanalytical:\n{a}\n")
            return False, max_err, msg
    return True, max_err, ""


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """Checks second-order gradients: gradcheck of the function computing func's first gradients (with
    create_graph=True) with respect to the inputs and the grad_outputs."""
    fn, all_inputs = _first_gradients(func, inputs, grad_outputs)
    return gradcheck(fn, all_inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


def _first_gradients(func, inputs, grad_outputs=None):
    """(function of inputs + grad_outputs returning func's first gradients with create_graph=True, those
    inputs): gradgradcheck is gradcheck of it."""
    from .. import randn
    from . import grad as autograd_grad

    Tensor = _tensor_type()
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if grad_outputs is None:
        outputs = [o for o in _outputs(func, inputs) if o.requires_grad]
        grad_outputs = tuple(randn(tuple(o.shape), dtype=o.dtype, device=o.device).requires_grad_() for o in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_grads(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _outputs(func, ins) if o.requires_grad]
        diff = [ins[i] for i in diff_idx]
        gs = autograd_grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return first_grads, inputs + tuple(grad_outputs)
