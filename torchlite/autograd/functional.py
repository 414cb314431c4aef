"""torchlite.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp of a Python function.

All are built on reverse mode (autograd.grad): jvp uses the double-vjp trick
(the vjp is linear in its cotangent u, so differentiating it with respect to u
in direction v gives J v), jacobian takes one vjp per output element.
Signatures and return structures follow PyTorch's.
"""
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _tensor():
    from .._tensor import Tensor

    return Tensor


def _as_tuple(x, what, fn_name):
    Tensor = _tensor()
    is_tuple = isinstance(x, tuple)
    xs = x if is_tuple else (x,)
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"value at index {i} has type {type(t).__name__}.")
    return is_tuple, xs


def _prepare(inputs, create_graph):
    """Inputs the function sees: require grad; keep their history only with create_graph."""
    out = []
    for x in inputs:
        if create_graph and x.requires_grad:
            out.append(x.view_as(x))
        else:
            out.append(x.detach().requires_grad_(True))
    return tuple(out)


def _grad(outputs, inputs, grad_outputs, create_graph, strict, what):
    from . import grad
    from .. import zeros_like

    diff_out = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not diff_out:
        if strict:
            raise RuntimeError(f"The output of the user-provided function is independent of input {what}. "
                               "This is not allowed in strict mode.")
        return tuple(zeros_like(x) for x in inputs)
    gs = grad([o for o, _ in diff_out], inputs, [g for _, g in diff_out], retain_graph=True,
              create_graph=create_graph, allow_unused=True)
    out = []
    for i, (x, g) in enumerate(zip(inputs, gs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This "
                                   "is not allowed in strict mode.")
            g = zeros_like(x)
        out.append(g)
    return tuple(out)


def _finish(xs, is_tuple, create_graph):
    xs = tuple(x if create_graph else x.detach() for x in xs)
    return xs if is_tuple else xs[0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at inputs."""
    from .. import ones_like

    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph)
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            vs = (ones_like(outputs[0]),)
        else:
            _, vs = _as_tuple(v, "v", "vjp")
            _check_like(vs, outputs, "v", "outputs")
        grads = _grad(outputs, inputs, vs, create_graph, strict, "")
    return _finish(outputs, out_tuple, create_graph), _finish(grads, in_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product at inputs (by the double-vjp trick)."""
    from .. import ones_like, zeros_like
    from . import grad

    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            vs = (ones_like(inputs[0]),)
        else:
            _, vs = _as_tuple(v, "v", "jvp")
            _check_like(vs, inputs, "v", "inputs")
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        us = tuple(zeros_like(o).requires_grad_(True) for o in outputs)
        g = _grad(outputs, inputs, us, True, strict, "")
        pairs = [(gi, vi) for gi, vi in zip(g, vs) if gi.requires_grad]
        if pairs:
            jv = grad([p[0] for p in pairs], us, [p[1] for p in pairs], create_graph=create_graph,
                      allow_unused=True)
        else:
            jv = (None,) * len(us)
        jv = tuple(zeros_like(o) if j is None else j for o, j in zip(outputs, jv))
    return _finish(outputs, out_tuple, create_graph), _finish(jv, out_tuple, create_graph)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: for output i and input j, a tensor of shape out_i.shape + in_j.shape
    (a Tensor when both are single Tensors, else tuples, as PyTorch nests them)."""
    from .. import stack, zeros

    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                         'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                         'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        return _jacobian_forward(func, inputs, strict, vectorize)
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph)
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        result = []
        for o in outputs:
            rows = [[] for _ in inputs]
            flat = o.reshape(-1)
            for k in range(flat.numel()):
                e = zeros(tuple(flat.shape), dtype=o.dtype, device=o.device)
                e[k] = 1
                gs = _grad((flat,), inputs, (e,), create_graph, strict, "")
                for j, g in enumerate(gs):
                    rows[j].append(g)
            per_input = []
            for j, x in enumerate(inputs):
                if rows[j]:
                    jac = stack(rows[j]).reshape(tuple(o.shape) + tuple(x.shape))
                else:
                    jac = zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype, device=x.device)
                per_input.append(jac if create_graph else jac.detach())
            result.append(tuple(per_input) if in_tuple else per_input[0])
    return tuple(result) if out_tuple else result[0]


def _jacobian_forward(func, inputs, strict, vectorize):
    """The Jacobian by forward mode: one dual evaluation per input element (a one-hot tangent), each giving
    a column of every output's Jacobian. PyTorch batches these with vmap (hence vectorize=True); torchlite
    runs them one after the other, with the same result."""
    from .. import stack, zeros, zeros_like
    from . import forward_ad as fwAD

    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                           'not supported together (yet). Please either set `strict=False` or '
                           '`strategy="reverse-mode"`.')
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
                                  "implemented for `vectorize=True`.")
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = tuple(x.detach() for x in inputs)
    columns = None  # [output][input] -> list of flattened tangents, one per input element
    outputs = out_tuple = None
    with fwAD.dual_level():
        for j, x in enumerate(inputs):
            for k in range(x.numel()):
                e = zeros(x.numel(), dtype=x.dtype, device=x.device)
                e[k] = 1
                duals = tuple(fwAD.make_dual(xi, e.reshape(tuple(xi.shape))) if i == j else xi
                              for i, xi in enumerate(inputs))
                out_tuple, outs = _as_tuple(func(*duals), "outputs of the user-provided function", "jacobian")
                if columns is None:
                    columns = [[[] for _ in inputs] for _ in outs]
                    outputs = outs
                for i, o in enumerate(outs):
                    t = fwAD.unpack_dual(o).tangent
                    columns[i][j].append((zeros_like(o) if t is None else t).reshape(-1))
        if outputs is None:  # no input elements: call once for the outputs' shapes
            out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
            columns = [[[] for _ in inputs] for _ in outputs]
        outputs = tuple(fwAD.unpack_dual(o).primal for o in outputs)
    result = []
    for i, o in enumerate(outputs):
        per_input = []
        for j, x in enumerate(inputs):
            shape = tuple(o.shape) + tuple(x.shape)
            cols = columns[i][j]
            per_input.append(stack(cols, dim=-1).reshape(shape) if cols else zeros(shape, dtype=o.dtype, device=o.device))
        result.append(tuple(per_input) if in_tuple else per_input[0])
    return tuple(result) if out_tuple else result[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function at inputs: the Jacobian of its gradient (reverse over reverse)."""
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if outer_jacobian_strategy == "forward-mode":
        raise NotImplementedError("hessian: outer_jacobian_strategy='forward-mode' (forward-over-reverse) is not "
                                  "supported yet; use the default 'reverse-mode'")
    in_tuple, xs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*args):
        out = func(*args)
        _, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor with a single element")
        from . import grad
        gs = grad(outs[0], args, create_graph=True, allow_unused=True)
        from .. import zeros_like
        gs = tuple(zeros_like(a) if g is None else g for a, g in zip(args, gs))
        return gs if in_tuple else gs[0]

    return jacobian(gradient, xs if in_tuple else xs[0], create_graph=create_graph, strict=strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar function."""
    with enable_grad():
        in_tuple, xs = _as_tuple(inputs, "inputs", "vhp")
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        _, outs = _as_tuple(out, "outputs of the user-provided function", "vhp")
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The function given to vhp should return a single Tensor with a single element")
        if v is None:
            raise RuntimeError("vhp: v is required unless the input has a single element")
        _, vs = _as_tuple(v, "v", "vhp")
        _check_like(vs, xs, "v", "inputs")
        from .. import ones_like
        g = _grad(outs, xs, (ones_like(outs[0]),), True, strict, "")
        pairs = [(gi, vi) for gi, vi in zip(g, vs)]
        res = _grad(tuple(p[0] for p in pairs), xs, tuple(p[1] for p in pairs), create_graph, strict, "")
    return _finish(outs, False, create_graph), _finish(res, in_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar function (H is symmetric, so this is vhp)."""
    return vhp(func, inputs, v, create_graph, strict)


def _check_like(vs, ref, vname, rname):
    if len(vs) != len(ref):
        raise RuntimeError(f"The given {vname} should contain a single Tensor for each of the {rname} "
                           f"({len(ref)}), got {len(vs)}.")
    for i, (a, b) in enumerate(zip(vs, ref)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"Entry {i} in {vname} has invalid size: should be {tuple(b.shape)} but got "
                               f"{tuple(a.shape)}.")
