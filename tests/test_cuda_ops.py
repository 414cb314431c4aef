"""The schema-driven op tests on a CUDA device, against the CPU.

Every op of native_functions.yaml runs on the CPU and on "cuda" from the same arguments (the op database's
samples, torchlite.testing.op_db, with their layouts: a transposed input stays transposed on the device): the device's results must
stay on the device and match the CPU's (dtype, shape and values: integers, booleans and random draws of
the same seed exactly, floating results to a few units in the last place, as the device's libm differs).
An input the CPU refuses must be refused on the device with the same exception type. Then every
derivative formula's gradcheck, gradgradcheck and forward-mode check (tests/test_autograd_ops.py's cases, on
the op database's gradcheck samples) run on device inputs.

These need a CUDA device: a GPU, or the emulated one (TORCHLITE_EMULATE_CUDA=1, core/CudaEmulation.cpp),
on which tests/test_cuda_emulated.py runs this module on machines without a GPU. Without either they skip.
"""
import numpy as np
import pytest

import torchlite as tl

if not tl.cuda.is_available():
    pytest.skip("needs a CUDA device (torchlite.cuda.is_available() is False); tests/test_cuda_emulated.py runs "
                "this module on the emulated device", allow_module_level=True)

import test_autograd_ops as A  # noqa: E402
import test_ops as T  # noqa: E402
from torchlite.testing._helpers import DTYPES, f32  # noqa: E402
from torchlite.testing._opinfo import check_random_gradient  # noqa: E402

CUDA = tl.device("cuda")
# Ops whose results' values are whatever the memory held.
UNINITIALIZED = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}
# (rtol, atol) between the CPU's and the device's floating results.
TOLERANCES = {tl.float16: (2e-3, 1e-3), tl.bfloat16: (1.6e-2, 1e-2), tl.float32: (1e-5, 1e-6),
              tl.float64: (1e-12, 1e-14)}


# ------------------------------------------------------------------------------------------ helpers
def to_device(v):
    """A CPU sample argument on the device, keeping a tensor's layout (a transposed or sliced tensor stays so:
    the device kernels' stride handling is what is tested); lists and tuples of tensors element by element."""
    if isinstance(v, tl.Tensor):
        if v.is_contiguous() or v.dim() == 0 or 0 in v.stride():
            d = v.to(CUDA)
        else:
            d = tl.empty_strided(tuple(v.shape), v.stride(), dtype=v.dtype, device=CUDA)
            d.copy_(v)
            assert d.stride() == v.stride()
        assert d.device.type == "cuda"
        return d.requires_grad_() if v.requires_grad else d
    if isinstance(v, (list, tuple)) and any(isinstance(x, tl.Tensor) for x in v):
        return type(v)(to_device(x) for x in v)
    return v


def device_args(op, args):
    """args for the device run: tensors moved, and a factory's device= set."""
    out = {k: to_device(v) for k, v in args.items()}
    if op.arg("device") is not None:
        out["device"] = CUDA
    return out


def uses_device(op, args):
    """Whether the device run involves the device (a tensor argument, or a factory's device=)."""
    if op.arg("device") is not None:
        return True
    return any(isinstance(v, tl.Tensor) or (isinstance(v, (list, tuple)) and any(isinstance(x, tl.Tensor) for x in v))
               for v in args.values())


def outcome(fn):
    """(result, None) or (None, the exception)."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001  (compared with the CPU's below)
        return None, e


def assert_same(cpu, dev, what, exact=False, values=True):
    """The device result equals the CPU result (in dtype and shape only, without values), and its tensors
    are on the device."""
    if isinstance(cpu, (tuple, list)):
        assert type(cpu) is type(dev) and len(cpu) == len(dev), f"{what}: {type(cpu)} vs {type(dev)}"
        for i, (c, d) in enumerate(zip(cpu, dev)):
            assert_same(c, d, f"{what}[{i}]", exact, values)
        return
    if not isinstance(cpu, tl.Tensor):
        assert type(cpu) is type(dev) and (cpu == dev or (cpu != cpu and dev != dev)), f"{what}: {cpu!r} vs {dev!r}"
        return
    assert isinstance(dev, tl.Tensor), f"{what}: {type(dev)}"
    assert dev.is_sparse == cpu.is_sparse, f"{what}: sparse {dev.is_sparse} on the device, {cpu.is_sparse} on the CPU"
    if cpu.is_sparse:  # _embedding_sparse_backward: compared by the dense values
        cpu, dev = cpu.to_dense(), dev.to_dense()
    assert dev.device.type == "cuda", f"{what}: the result is on {dev.device}, not the device"
    assert dev.dtype == cpu.dtype, f"{what}: dtype {dev.dtype} on the device, {cpu.dtype} on the CPU"
    assert tuple(dev.shape) == tuple(cpu.shape), f"{what}: shape {tuple(dev.shape)} vs {tuple(cpu.shape)}"
    if not values:
        return
    a, b = T.to_f64(dev.cpu()), T.to_f64(cpu)
    if exact or not cpu.dtype.is_floating_point:
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        rtol, atol = TOLERANCES[cpu.dtype]
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def compare(op, args, what, kind=None):
    """Runs op (its primary variant, or `kind`) on the CPU and on the device and compares the outcomes."""
    kind = kind or op.primary_kind
    dargs = device_args(op, args)

    def run(a):
        if "random" in op.tags:
            tl.manual_seed(1234)  # seeds the CUDA generator too: the device draws the CPU's numbers
        if kind == "inplace":
            a = dict(a, self=a["self"].clone())
        return op.call(kind, a)

    cpu, cpu_err = outcome(lambda: run(args))
    dev, dev_err = outcome(lambda: run(dargs))
    if cpu_err is not None:
        assert dev_err is not None, f"{what}: the CPU raised {cpu_err!r}, the device returned {dev!r}"
        assert type(dev_err) is type(cpu_err), f"{what}: the CPU raised {cpu_err!r}, the device {dev_err!r}"
        return
    if dev_err is not None:
        raise AssertionError(f"{what}: the CPU succeeded, the device raised {dev_err!r}") from dev_err
    # the draws built on the device's log/sin/cos/lgamma (Box-Muller, the rejection samplers) agree to rounding
    exact = "random" in op.tags and op.name not in ("normal", "randn", "randn_like", "exponential", "_standard_gamma",
                                                    "poisson", "binomial")
    assert_same(cpu, dev, what, exact=exact, values=op.name not in UNINITIALIZED)


# ------------------------------------------------------------------------------------------ pointwise
# Every pointwise op in every dtype on strided and broadcast layouts (test_ops.py checks the CPU against
# NumPy on all layouts).
DEVICE_LAYOUTS = ("noncontiguous", "broadcast_other", "broadcast_both", "zero_dim_other", "number_float", "empty")
POINTWISE_CASES = [pytest.param(op, dtype, layout, id=f"{op.full_name}-{dtype}-{layout}")
                   for op in T.POINTWISE for dtype in DTYPES for layout in op.layouts
                   if layout in DEVICE_LAYOUTS and (dtype in op.dtypes or layout == "noncontiguous")]


@pytest.mark.parametrize("op,dtype,layout", POINTWISE_CASES)
def test_pointwise_on_device(op, dtype, layout):
    args, _ = op.pointwise_args(dtype, layout, T.rng_for("cuda", op.full_name, dtype, layout))
    compare(op, args, f"{op.full_name} {dtype} {layout}")


# ------------------------------------------------------------------------------------------ every op
# Every op with its sample from the op database, and its in-place variant.
OPS = [op for op in T.OPS if uses_device(op, op.sample())]
OP_CASES = [pytest.param(op, op.primary_kind, id=op.full_name) for op in OPS]
OP_CASES += [pytest.param(op, "inplace", id=f"{op.full_name}-inplace") for op in OPS
             if "inplace" in op.variants and op.primary_kind != "inplace"]


@pytest.mark.parametrize("op,kind", OP_CASES)
def test_op_on_device(op, kind):
    compare(op, op.sample(), f"{op.full_name} ({kind})", kind)


def test_every_op_runs_on_the_device():
    """Only ops that take no tensor and no device (result_type of numbers...) are left out."""
    left_out = {op.full_name for op in T.OPS} - {op.full_name for op in OPS}
    for name in left_out:
        op = T.BY_NAME[name]
        assert not any(a.is_tensor for a in op.arguments), name


def test_out_variant_on_device():
    """out= on the device, with a cast into a wider dtype (the generated out= path)."""
    a, b = f32((2, 3)), f32((3,), False)
    out = tl.empty((2, 3), dtype=tl.float64, device=CUDA)
    r = tl.add(to_device(a), to_device(b), alpha=2, out=out)
    assert r is out
    assert_same(tl.add(a, b, alpha=2).double(), out, "add out=float64")
    with pytest.raises(RuntimeError, match="cpu|cuda"):
        tl.add(to_device(a), to_device(b), out=tl.empty((2, 3)))


# ------------------------------------------------------------------------------------------ gradients
def _device_function(op, label, kind):
    fn, inputs = op.as_function({k: to_device(v) for k, v in op.gradcheck_sample(label).items()}, kind)
    assert inputs and all(x.device.type == "cuda" for x in inputs)
    return fn, inputs


@pytest.mark.parametrize("op,label,kind", A.CASES)
def test_gradcheck_on_device(op, label, kind):
    A._marks(op)
    fn, inputs = _device_function(op, label, kind)
    if op.is_random:
        check_random_gradient(op, fn, inputs)
        return
    assert tl.autograd.gradcheck(fn, inputs)


@pytest.mark.parametrize("op,label,kind", [c for c in A.CASES if "random" not in c.values[0].tags])
def test_gradgradcheck_on_device(op, label, kind):
    A._marks(op)
    if op.not_twice_differentiable:
        pytest.skip(f"not twice differentiable: {op.not_twice_differentiable}")
    assert tl.autograd.gradgradcheck(*_device_function(op, label, kind))


@pytest.mark.parametrize("op,label,kind", [c for c in A.FORWARD_CASES if "random" not in c.values[0].tags])
def test_forward_ad_on_device(op, label, kind):
    A._marks(op)
    fn, inputs = _device_function(op, label, kind)
    assert tl.autograd.gradcheck(fn, inputs, check_forward_ad=True, check_backward_ad=False)


def test_gradcheck_on_device_can_fail():
    """A wrong formula on device inputs is caught (the perturbations reach the device memory)."""
    x = tl.tensor([0.5, -1.0, 2.0], dtype=tl.float64, device=CUDA).requires_grad_()

    def wrong(x):
        y = x * 1
        y.register_hook(lambda g: g * 2)
        return y * y

    assert tl.autograd.gradcheck(lambda x: x * x, (x,))
    assert not tl.autograd.gradcheck(wrong, (x,), raise_exception=False)


def test_gradgradcheck_on_device_simple():
    x = tl.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=tl.float64, device=CUDA).requires_grad_()
    assert tl.autograd.gradgradcheck(lambda x: (x.sin() * x).sum(dim=1), (x,))
