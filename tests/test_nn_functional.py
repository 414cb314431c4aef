"""torchlite.nn.functional beyond the op database's checks of each schema op: PyTorch's Python signatures
(`input`, the `inplace=` flag, the `*_` functions, F.logsigmoid, softmax's implicit dim), in-place semantics
(the same tensor back, its version bumped, autograd through it), the errors, and, when PyTorch is installed,
every activation and softmax against torch.nn.functional on the same inputs."""
import inspect

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn.functional as F

# name -> (extra positional arguments, has an inplace= flag, has an F.<name>_ function)
ACTIVATIONS = {
    "threshold": ((0.25, -3.0), True, True),
    "relu": ((), True, True),
    "hardtanh": ((-0.5, 0.75), True, True),
    "relu6": ((), True, False),
    "elu": ((0.7,), True, True),
    "selu": ((), True, True),
    "celu": ((1.3,), True, True),
    "leaky_relu": ((0.2,), True, True),
    "hardswish": ((), True, False),
    "hardsigmoid": ((), True, False),
    "silu": ((), True, False),
    "mish": ((), True, False),
    "logsigmoid": ((), False, False),
    "hardshrink": ((0.4,), False, False),
    "softshrink": ((0.4,), False, False),
    "tanhshrink": ((), False, False),
    "softsign": ((), False, False),
    "softplus": ((2.0, 3.0), False, False),
    "sigmoid": ((), False, False),
    "tanh": ((), False, False),
}


def sample():
    rng = np.random.default_rng(7)
    return tl.tensor(rng.uniform(-5, 5, size=(3, 4)).astype(np.float32))


# The activations written in Python (torchlite/nn/functional.py); the others are the generated bindings.
WRAPPED = sorted(n for n in ACTIVATIONS if inspect.isfunction(getattr(F, n)))


def test_every_activation_with_an_inplace_flag_is_wrapped():
    assert {n for n, (_, flag, _) in ACTIVATIONS.items() if flag} <= set(WRAPPED)


@pytest.mark.parametrize("name", WRAPPED)
def test_signature_names_input_first(name):
    params = list(inspect.signature(getattr(F, name)).parameters)
    assert params[0] == "input", params
    assert ("inplace" in params) == ACTIVATIONS[name][1], params


@pytest.mark.parametrize("name", sorted(n for n, (_, flag, _) in ACTIVATIONS.items() if flag))
def test_inplace_flag_writes_the_input(name):
    args = ACTIVATIONS[name][0]
    x = sample()
    expected = getattr(F, name)(x, *args)
    y = x.clone()
    v0 = y._version
    r = getattr(F, name)(y, *args, inplace=True)
    assert r is y and y._version > v0
    np.testing.assert_array_equal(y.numpy(), expected.numpy())
    if ACTIVATIONS[name][2]:
        z = x.clone()
        assert getattr(F, name + "_")(z, *args) is z
        np.testing.assert_array_equal(z.numpy(), expected.numpy())


@pytest.mark.parametrize("name", sorted(n for n, (_, flag, _) in ACTIVATIONS.items() if flag))
def test_inplace_flag_is_differentiable(name):
    """In place on a non-leaf: the gradient is the out-of-place one's (the in-place node replaces the history)."""
    args = ACTIVATIONS[name][0]
    x = (sample().double() / 2).requires_grad_()
    getattr(F, name)(x * 1, *args).sum().backward()
    expected = x.grad.clone()
    x.grad = None
    getattr(F, name)(x * 1, *args, inplace=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected.numpy(), rtol=1e-12)


def test_bad_inplace_flag_is_a_type_error():
    with pytest.raises(TypeError, match=r"elu\(\): argument 'inplace' must be bool, not str"):
        F.elu(sample(), inplace="yes")


def test_inplace_on_a_leaf_that_requires_grad_is_refused():
    x = sample().requires_grad_()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        F.relu(x, inplace=True)


def test_unsigned_hardtanh_with_negative_limits_is_refused():
    u = tl.tensor([0, 1, 2], dtype=tl.uint8)
    with pytest.raises(RuntimeError, match="cannot do hardtanh on an unsigned type with negative limits"):
        F.hardtanh(u)
    assert F.relu6(u).tolist() == [0, 1, 2] and F.hardtanh(u, 0, 1).tolist() == [0, 1, 1]


def test_integer_inputs_follow_pytorch():
    i = tl.tensor([-2, 1, 3])
    assert F.threshold(i, 1, 7).tolist() == [7, 7, 3] and F.threshold(i, 1, 7).dtype == tl.int64
    assert F.relu6(i).tolist() == [0, 1, 3]
    assert F.softsign(i).dtype == tl.float32  # computed in the default float dtype
    with pytest.raises(NotImplementedError, match="'Long'"):
        F.elu(i)


def test_nan_passes_through():
    x = tl.tensor([float("nan")])
    for name in ("threshold", "hardtanh", "elu", "leaky_relu", "hardshrink", "softshrink", "silu"):
        args = ACTIVATIONS[name][0]
        assert np.isnan(getattr(F, name)(x, *args).item()), name


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_matches_torch(name, dtype):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    args = ACTIVATIONS[name][0]
    x = sample().to(getattr(tl, dtype))
    ours = getattr(F, name)(x, *args)
    theirs = getattr(TF, name)(torch.from_numpy(x.float().numpy()).to(getattr(torch, dtype)), *args)
    assert str(theirs.dtype).split(".")[1] == repr(ours.dtype).split(".")[1]
    tol = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-12}[dtype]
    np.testing.assert_allclose(ours.double().numpy(), theirs.double().numpy(), rtol=tol, atol=tol)


# ------------------------------------------------------------------ softmax
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_signature_and_implicit_dim(name):
    assert list(inspect.signature(getattr(F, name)).parameters) == ["input", "dim", "_stacklevel", "dtype"]
    x = sample()
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been deprecated"):
        implicit = getattr(F, name)(x)
    np.testing.assert_array_equal(implicit.numpy(), getattr(F, name)(x, 1).numpy())  # 2-dim: dim 1
    cube = sample().view(2, 3, 2)
    with pytest.warns(UserWarning):
        implicit = getattr(F, name)(cube)
    np.testing.assert_array_equal(implicit.numpy(), getattr(F, name)(cube, 0).numpy())  # 3-dim: dim 0


def test_softmax_rows_sum_to_one_and_survive_large_values():
    x = tl.tensor([[1000.0, 0.0, -1000.0], [float("-inf"), 0.0, float("-inf")]])
    s = F.softmax(x, dim=1)
    assert s.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert F.log_softmax(x, dim=1)[0].tolist() == [0.0, -1000.0, -2000.0]
    assert F.softmax(tl.tensor([1, 2]), 0, dtype=tl.float64).dtype == tl.float64
    with pytest.raises(NotImplementedError, match="softmax.*'Long'"):
        F.softmax(tl.tensor([1, 2]), 0)


def test_float32_softmax_is_accurate_down_to_the_denormals():
    """Finite float32 rows take a cheaper exp (kernels/cpu/softmax.cpp): compare with float64 over a range that
    reaches e^-120, where the results are denormal or zero, and the log_softmax gradient, which takes it too."""
    rng = np.random.default_rng(5)
    x = (rng.uniform(-125.0, 5.0, (64, 300))).astype(np.float32)
    x[:, 0] = 5.0  # every row's maximum is 5: exponents down to -130
    z = (x - np.float32(5.0)).astype(np.float64)  # x - max rounds in float32 for both
    exact = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    ours = F.softmax(tl.tensor(x), 1).numpy().astype(np.float64)
    normal = exact > np.finfo(np.float32).tiny
    assert normal.sum() > 1000 and (~normal).sum() > 1000
    np.testing.assert_allclose(ours[normal], exact[normal], rtol=4e-7)
    np.testing.assert_allclose(ours[~normal], exact[~normal], rtol=0, atol=5e-45)  # e^z and its scaling each round to a denormal step
    log_exact = z - np.log(np.exp(z).sum(1, keepdims=True))
    np.testing.assert_allclose(F.log_softmax(tl.tensor(x), 1).numpy(), log_exact, rtol=1e-6)
    a = tl.tensor(x, requires_grad=True)
    g = rng.standard_normal(x.shape)
    F.log_softmax(a, 1).backward(tl.tensor(g.astype(np.float32)))
    grad_exact = g - np.exp(log_exact) * g.sum(1, keepdims=True)
    np.testing.assert_allclose(a.grad.numpy(), grad_exact, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 31, 33, 64])
def test_float32_softmax_rows_of_every_tail_length(n):
    # Float rows run 16 lanes at a time (AVX-512 where the CPU has it, a masked vector for the tail): every
    # length's outputs and log_softmax gradient against float64.
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((5, n)) * 4).astype(np.float32)
    z = x.astype(np.float64) - x.max(1, keepdims=True)
    log_exact = z - np.log(np.exp(z).sum(1, keepdims=True))
    np.testing.assert_allclose(F.softmax(tl.tensor(x), 1).numpy(), np.exp(log_exact), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(F.log_softmax(tl.tensor(x), 1).numpy(), log_exact, rtol=1e-6, atol=1e-6)
    a = tl.tensor(x, requires_grad=True)
    g = rng.standard_normal(x.shape)
    F.log_softmax(a, 1).backward(tl.tensor(g.astype(np.float32)))
    np.testing.assert_allclose(a.grad.numpy(), g - np.exp(log_exact) * g.sum(1, keepdims=True), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_float32_softmax_rows_with_nan_or_infinities(name):
    inf, nan = float("inf"), float("nan")
    rows = [[nan, 1.0, 2.0], [inf, 1.0, 0.0], [-inf, -inf, -inf], [-inf, 0.0, 1.0], [1.0, 2.0, 3.0]]
    ours = getattr(F, name)(tl.tensor(rows), 1).numpy()
    assert np.isnan(ours[:3]).all()  # NaN anywhere, an infinite maximum: the whole row is NaN, as in PyTorch
    z = np.array([-np.inf, -1.0, 0.0])
    expect = z - np.log(np.exp(z).sum()) if name == "log_softmax" else np.exp(z) / np.exp(z).sum()
    np.testing.assert_allclose(ours[3], expect, rtol=1e-6)
    z = np.array([-2.0, -1.0, 0.0])
    expect = z - np.log(np.exp(z).sum()) if name == "log_softmax" else np.exp(z) / np.exp(z).sum()
    np.testing.assert_allclose(ours[4], expect, rtol=1e-6)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_softmax_matches_torch(name, dim, dtype):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    x = sample()
    ours = getattr(F, name)(x, dim, dtype=getattr(tl, dtype) if dtype else None)
    theirs = getattr(TF, name)(torch.from_numpy(x.numpy()), dim, dtype=getattr(torch, dtype) if dtype else None)
    assert str(theirs.dtype).split(".")[1] == repr(ours.dtype).split(".")[1]
    np.testing.assert_allclose(ours.double().numpy(), theirs.double().numpy(), rtol=2e-6, atol=1e-7)


# ------------------------------------------------------------------ dropout
def test_dropout_drops_a_fraction_p_and_scales_the_rest():
    tl.manual_seed(0)
    x = tl.ones(100_000)
    y = F.dropout(x, 0.3)
    dropped = (y == 0).double().mean().item()
    assert abs(dropped - 0.3) < 0.006  # 4 standard deviations of the fraction at n = 1e5
    kept = y[y != 0]
    assert np.allclose(kept.numpy(), 1 / 0.7)
    tl.manual_seed(0)
    np.testing.assert_array_equal(F.dropout(x, 0.3).numpy(), y.numpy())  # the default generator's stream


def test_dropout_identity_cases_return_the_input():
    x = sample()
    assert F.dropout(x, 0.5, training=False) is x and F.dropout(x, 0.0) is x and tl.dropout(x, 0.5, False) is x
    assert F.dropout(x, 1.0).abs().sum().item() == 0


def test_dropout_gradient_is_the_mask_over_keep_probability():
    x = sample().double().requires_grad_()
    tl.manual_seed(3)
    y = F.dropout(x, 0.25)
    y.sum().backward()
    expected = (y.detach() != 0).double() / 0.75
    np.testing.assert_allclose(x.grad.numpy(), expected.numpy())


def test_dropout_inplace_and_errors():
    z = tl.ones(50)
    tl.manual_seed(5)
    r = F.dropout(z, 0.5, inplace=True)
    assert r is z and set(z.tolist()) <= {0.0, 2.0}
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(z, 1.5)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        tl.dropout(z, -0.1, True)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        tl.dropout(tl.tensor([1, 2]), 0.5, True)


# ------------------------------------------------------------------ losses
def loss_case(shape, seed=0, probabilities=False):
    """Logits of `shape` (classes in dim 1, or dim 0 of a 1-dim shape), class-index targets with one ignored
    (-100) where there is a batch, class weights, and class-probability targets."""
    rng = np.random.default_rng(seed)
    c = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + tuple(shape[2:])
    target = rng.integers(0, c, size=tshape)
    if target.ndim:
        target.flat[0] = -100
    probs = np.moveaxis(rng.dirichlet(np.ones(c), size=tshape or None), -1, 0 if len(shape) == 1 else 1)
    return rng.standard_normal(shape), target, rng.uniform(0.5, 2.0, c), probs


def test_loss_signatures_are_pytorchs():
    assert list(inspect.signature(F.nll_loss).parameters) == [
        "input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"]
    assert list(inspect.signature(F.cross_entropy).parameters) == [
        "input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"]


def test_nll_loss_picks_the_targets_log_probabilities():
    logp = tl.tensor([[-1.0, -2.0, -3.0], [-0.5, -1.5, -2.5]])
    target = tl.tensor([2, 0])
    assert F.nll_loss(logp, target, reduction="none").tolist() == [3.0, 0.5]
    assert F.nll_loss(logp, target, reduction="sum").item() == 3.5
    assert F.nll_loss(logp, target).item() == 1.75
    weight = tl.tensor([1.0, 1.0, 3.0])  # the mean divides by the weights taken: (3 * 3 + 0.5) / 4
    assert F.nll_loss(logp, target, weight=weight).item() == 9.5 / 4
    assert F.nll_loss(logp, tl.tensor([2, -100])).item() == 3.0  # the ignored target counts nowhere
    assert np.isnan(F.nll_loss(logp, tl.tensor([-100, -100])).item())  # nothing taken: 0 / 0


def test_cross_entropy_gradient_is_softmax_minus_one_hot():
    x = tl.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], dtype=tl.float64, requires_grad=True)
    F.cross_entropy(x, tl.tensor([1, 2]), reduction="sum").backward()
    expected = F.softmax(x.detach(), 1).numpy() - np.eye(3)[[1, 2]]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12, atol=1e-15)


def test_legacy_reduction_arguments_warn_and_choose_the_reduction():
    logp, target = F.log_softmax(sample(), 1), tl.tensor([0, 3, 1])
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use "
                                         "reduction='sum' instead."):
        summed = F.nll_loss(logp, target, size_average=False)
    assert summed.item() == F.nll_loss(logp, target, reduction="sum").item()
    with pytest.warns(UserWarning, match="reduction='none'"):
        assert F.cross_entropy(sample(), target, reduce=False).shape == (3,)
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.nll_loss(logp, target, reduction="avg")


@pytest.mark.parametrize("shape", [(5,), (4, 5), (3, 5, 2), (2, 4, 3, 2)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
@pytest.mark.parametrize("probabilities", [False, True])
def test_cross_entropy_and_nll_loss_match_torch(shape, reduction, weighted, label_smoothing, probabilities):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    x, target, weight, probs = loss_case(shape)
    target = probs if probabilities else target
    kw = dict(reduction=reduction, label_smoothing=label_smoothing)
    ours_x, theirs_x = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours = F.cross_entropy(ours_x, tl.tensor(target), weight=tl.tensor(weight) if weighted else None, **kw)
    theirs = TF.cross_entropy(theirs_x, torch.tensor(target), weight=torch.tensor(weight) if weighted else None, **kw)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-10, atol=1e-12)
    if not probabilities and label_smoothing == 0.0:
        logp = np.asarray(TF.log_softmax(torch.tensor(x), 0 if len(shape) == 1 else 1))
        w = (tl.tensor(weight), torch.tensor(weight)) if weighted else (None, None)
        ours = F.nll_loss(tl.tensor(logp), tl.tensor(target), weight=w[0], reduction=reduction)
        theirs = TF.nll_loss(torch.tensor(logp), torch.tensor(target), weight=w[1], reduction=reduction)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ convolution
# (spatial dims, batch, in channels, out channels, input size, kernel, stride, padding, dilation, groups,
#  transposed, output_padding)
CONV_CASES = [
    (2, 2, 3, 4, (7, 6), (3, 3), (1, 1), (0, 0), (1, 1), 1, False, (0, 0)),
    (2, 2, 4, 6, (8, 7), (3, 2), (2, 1), (1, 2), (1, 2), 2, False, (0, 0)),
    (1, 3, 2, 5, (9,), (4,), (2,), (1,), (1,), 1, False, (0,)),
    (3, 1, 2, 2, (5, 4, 6), (2, 3, 2), (1, 2, 1), (1, 0, 1), (2, 1, 1), 2, False, (0, 0, 0)),
    (2, 2, 4, 6, (5, 4), (3, 3), (2, 2), (1, 0), (1, 1), 2, True, (1, 0)),
    (1, 2, 3, 2, (6,), (3,), (3,), (2,), (2,), 1, True, (2,)),
    (3, 1, 2, 4, (3, 2, 3), (2, 2, 3), (2, 1, 2), (0, 1, 1), (1, 1, 1), 2, True, (1, 0, 0)),
    # wider products (more output channels, groups with several images per chunk)
    (2, 2, 3, 20, (6, 7), (3, 2), (1, 2), (1, 0), (1, 2), 1, False, (0, 0)),
    (1, 3, 4, 36, (9,), (3,), (2,), (1,), (1,), 2, False, (0,)),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=[f"{'t' if c[10] else ''}conv{c[0]}d-{i}" for i, c in enumerate(CONV_CASES)])
def test_convolutions_and_their_gradients_match_torch(case):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    d, n, cin, cout, size, k, stride, padding, dilation, groups, transposed, output_padding = case
    rng = np.random.default_rng(len(size) + cin)
    arrays = [rng.standard_normal((n, cin) + size),
              rng.standard_normal(((cin, cout // groups) if transposed else (cout, cin // groups)) + k),
              rng.standard_normal(cout)]
    name = f"conv_transpose{d}d" if transposed else f"conv{d}d"
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    if transposed:
        kw["output_padding"] = output_padding
    ours_in = [tl.tensor(a, requires_grad=True) for a in arrays]
    theirs_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours, theirs = getattr(F, name)(*ours_in, **kw), getattr(TF, name)(*theirs_in, **kw)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-10)
    upstream = rng.standard_normal(tuple(theirs.shape))
    ours.backward(tl.tensor(upstream))
    theirs.backward(torch.tensor(upstream))
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_conv_same_padding_keeps_the_size_and_unbatched_inputs_work():
    x, w = tl.randn(1, 3, 5, 6), tl.randn(4, 3, 2, 3)  # an even kernel: padding larger on one side
    assert F.conv2d(x, w, padding="same").shape == (1, 4, 5, 6)
    assert F.conv2d(x, w, padding="valid").shape == (1, 4, 4, 4)
    unbatched = F.conv2d(x[0], w, padding=1)
    np.testing.assert_array_equal(unbatched.numpy(), F.conv2d(x, w, padding=1)[0].numpy())
    assert tl.conv2d is F.conv2d  # PyTorch's F.conv2d is its torch.conv2d


# ------------------------------------------------------------------ pooling
POOL_CASES = [
    ("max_pool2d", (2, 3, 7, 6), dict(kernel_size=2)),
    ("max_pool2d", (3, 7, 6), dict(kernel_size=(3, 2), stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True)),
    ("max_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1)),
    ("max_pool3d", (1, 2, 5, 4, 6), dict(kernel_size=(2, 3, 2), stride=1, ceil_mode=True)),
    ("avg_pool2d", (2, 3, 7, 6), dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool2d", (2, 3, 7, 6), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False, ceil_mode=True)),
    ("avg_pool2d", (3, 5, 5), dict(kernel_size=2, divisor_override=3)),
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)),
    ("avg_pool3d", (1, 2, 5, 4, 6), dict(kernel_size=2, padding=1, count_include_pad=False)),
    ("adaptive_avg_pool2d", (2, 3, 7, 6), dict(output_size=(3, None))),
    ("adaptive_avg_pool1d", (2, 3, 10), dict(output_size=4)),
    ("adaptive_avg_pool3d", (2, 3, 4, 5), dict(output_size=1)),
    ("adaptive_max_pool2d", (2, 3, 7, 6), dict(output_size=(4, 5))),
    ("adaptive_max_pool1d", (3, 10), dict(output_size=3)),
    ("adaptive_max_pool3d", (1, 2, 5, 4, 6), dict(output_size=(2, 3, 4))),
]


@pytest.mark.parametrize("name,shape,kw", POOL_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(POOL_CASES)])
def test_pooling_and_its_gradient_match_torch(name, shape, kw):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape)
    ours_x, theirs_x = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours, theirs = getattr(F, name)(ours_x, **kw), getattr(TF, name)(theirs_x, **kw)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
    upstream = rng.standard_normal(tuple(theirs.shape))
    ours.backward(tl.tensor(upstream))
    theirs.backward(torch.tensor(upstream))
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-12, atol=1e-12)
    if "max" in name:
        _, ours_idx = getattr(F, name)(ours_x.detach(), return_indices=True, **kw)
        _, theirs_idx = getattr(TF, name)(theirs_x.detach(), return_indices=True, **kw)
        np.testing.assert_array_equal(ours_idx.numpy(), theirs_idx.numpy())


def test_max_pool_propagates_nan_and_defaults_stride_to_the_kernel():
    values, indices = F.max_pool1d(tl.tensor([[[1.0, float("nan"), 3.0, 2.0]]]), 2, return_indices=True)
    assert np.isnan(values[0, 0, 0].item()) and values[0, 0, 1].item() == 3.0
    assert indices.tolist() == [[[1, 2]]]
    assert F.max_pool2d(tl.ones(1, 1, 6, 6), 3).shape == (1, 1, 2, 2)
    assert list(inspect.signature(F.max_pool2d).parameters) == [
        "input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"]


@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_of_an_empty_batch_has_zero_weight_and_bias_gradients(transposed):
    x = tl.randn(0, 3, 5, 5, requires_grad=True)
    w = tl.randn(*((3, 4, 3, 3) if transposed else (4, 3, 3, 3)), requires_grad=True)
    b = tl.randn(4, requires_grad=True)
    y = (F.conv_transpose2d if transposed else F.conv2d)(x, w, b)
    assert y.shape[0] == 0
    y.sum().backward()
    assert w.grad.abs().sum().item() == 0 and b.grad.tolist() == [0.0] * 4 and x.grad.shape == x.shape


# ------------------------------------------------------------------ padding
PAD_SHAPES = [((2, 5), 1), ((2, 3, 5), 1), ((2, 4, 5), 2), ((1, 2, 4, 5), 2), ((2, 3, 4, 5), 3), ((1, 2, 3, 4, 5), 3)]


def _pad_cases():
    cases = []
    for mode in ("constant", "reflect", "replicate", "circular"):
        for shape, d in PAD_SHAPES:
            for last in ((-2, 0), (0, 3), (4, 1), (1, -1), (-2, 4)):
                if mode == "reflect" and max(last) >= shape[-1]:
                    continue
                cases.append((mode, shape, last + (1, 2, 0, 1)[:2 * d - 2]))
    return cases


@pytest.mark.parametrize("mode,shape,pad", _pad_cases(), ids=lambda v: str(v).replace(" ", ""))
def test_pad_and_its_gradient_match_torch(mode, shape, pad):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(len(shape) + len(pad))
    x = rng.standard_normal(shape)
    ours_x, theirs_x = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    kw = {"value": 1.5} if mode == "constant" else {}
    ours, theirs = F.pad(ours_x, pad, mode=mode, **kw), TF.pad(theirs_x, pad, mode=mode, **kw)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    if mode == "circular" and pad[:2] == (-2, 4):
        return  # a wrap around the cropped input more than once: PyTorch's gradient misses some of the reads
    upstream = rng.standard_normal(tuple(theirs.shape))
    ours.backward(tl.tensor(upstream))
    theirs.backward(torch.tensor(upstream))
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_circular_pad_wraps_around_what_a_negative_pad_leaves():
    # PyTorch reads memory it never wrote for (4, -2), and its gradient for (-2, 4) misses reads: a pad
    # longer than the cropped input wraps around it more than once.
    x = tl.arange(5.0).reshape(1, 5)
    assert F.pad(x, (4, -2), mode="circular").tolist() == [[2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0]]
    assert F.pad(x, (-2, 4), mode="circular").tolist() == [[2.0, 3.0, 4.0, 2.0, 3.0, 4.0, 2.0]]
    x = tl.tensor(np.random.default_rng(0).standard_normal((2, 5)), requires_grad=True)
    for pad in ((4, -2), (-2, 4), (-1, 5)):
        assert tl.autograd.gradcheck(lambda t: F.pad(t, pad, mode="circular"), (x,))
    y = F.pad(x, (-2, 4), mode="circular")
    y.sum().backward()
    assert x.grad[0].tolist() == [0.0, 0.0, 3.0, 2.0, 2.0]


def test_pad_signature_dtypes_and_constant_any_rank():
    assert list(inspect.signature(F.pad).parameters) == ["input", "pad", "mode", "value"]
    x = tl.arange(6).reshape(1, 2, 3)
    assert F.pad(x, (1, 1), value=2.5).tolist() == [[[2, 0, 1, 2, 2], [2, 3, 4, 5, 2]]]
    assert F.pad(x, (1, 1), mode="replicate").dtype == tl.int64
    assert F.pad(x > 2, (1, 0), mode="circular").tolist() == [[[False, False, False, False], [True, True, True, True]]]
    assert F.pad(tl.ones(1, 1, 1, 1, 1, 2), (1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0)).shape == (2, 1, 1, 1, 1, 4)
    assert F.pad(tl.ones(0, 2, 3), (1, 1), mode="reflect").shape == (0, 2, 5)


# ------------------------------------------------------------------ normalization
def _both(torch, a):
    return tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


NORM_CASES = [
    ("layer_norm", (4, 5, 6), dict(normalized_shape=(5, 6)), True, True),
    ("layer_norm", (3, 7), dict(normalized_shape=(7,), eps=1e-3), True, False),
    ("layer_norm", (2, 3, 4), dict(normalized_shape=(3, 4)), False, False),
    ("group_norm", (3, 6, 4, 5), dict(num_groups=3), True, True),
    ("group_norm", (2, 4, 7), dict(num_groups=4), False, False),  # (PyTorch fails on a bias without a weight)
    ("batch_norm", (5, 3, 4, 2), dict(training=True, momentum=0.3), True, True),
    ("batch_norm", (6, 4), dict(training=True), False, False),
    ("batch_norm", (5, 3, 4), dict(training=False), True, True),
    ("instance_norm", (3, 4, 5, 2), dict(), True, True),
    ("rms_norm", (3, 4, 5), dict(normalized_shape=(4, 5), eps=1e-6), True, False),
]


@pytest.mark.parametrize("name,shape,kw,weighted,biased", NORM_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(NORM_CASES)])
def test_normalization_and_its_gradients_match_torch(name, shape, kw, weighted, biased):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(len(shape) + len(kw))
    param_shape = kw.get("normalized_shape") or (shape[1],)
    ours, theirs = {}, {}
    ours["input"], theirs["input"] = _both(torch, rng.standard_normal(shape) * 3 + 1)
    if weighted:
        ours["weight"], theirs["weight"] = _both(torch, rng.standard_normal(param_shape))
    if biased and name != "rms_norm":
        ours["bias"], theirs["bias"] = _both(torch, rng.standard_normal(param_shape))
    stats = {}
    if name in ("batch_norm", "instance_norm"):
        stats = {"running_mean": rng.standard_normal(shape[1]), "running_var": rng.uniform(0.5, 2, shape[1])}
        for k, v in stats.items():
            ours[k], theirs[k] = tl.tensor(v), torch.tensor(v)
    y_ours = getattr(F, name)(**ours, **kw)
    y_theirs = getattr(TF, name)(**theirs, **kw)
    np.testing.assert_allclose(y_ours.detach().numpy(), y_theirs.detach().numpy(), rtol=1e-10, atol=1e-10)
    for k in stats:  # the running statistics moved (or not) in place the same way
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-12, atol=1e-12)
    upstream = rng.standard_normal(shape)
    y_ours.backward(tl.tensor(upstream))
    y_theirs.backward(torch.tensor(upstream))
    for k in ("input", "weight", "bias"):
        if k in ours:
            np.testing.assert_allclose(ours[k].grad.numpy(), theirs[k].grad.numpy(), rtol=1e-9, atol=1e-10, err_msg=k)


def test_layer_norm_gradients_over_many_rows_do_not_depend_on_the_thread_count(restore_threads):
    """The CPU sums the weight and bias gradients in 16 fixed row groups (37 rows: uneven groups), while computing
    the input gradient; checked against NumPy in float64, and bit for bit across thread counts in float32."""
    rng = np.random.default_rng(13)
    x, w, b, g = rng.standard_normal((37, 50)), rng.standard_normal(50), rng.standard_normal(50), rng.standard_normal((37, 50))
    mu, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    xh = (x - mu) / np.sqrt(var + 1e-5)
    gxh = g * w
    gx = (gxh - gxh.mean(1, keepdims=True) - xh * (gxh * xh).mean(1, keepdims=True)) / np.sqrt(var + 1e-5)
    ours = [tl.tensor(a, requires_grad=True) for a in (x, w, b)]
    F.layer_norm(ours[0], (50,), ours[1], ours[2]).backward(tl.tensor(g))
    for got, expect in zip(ours, (gx, (g * xh).sum(0), g.sum(0))):
        np.testing.assert_allclose(got.grad.numpy(), expect, rtol=1e-10, atol=1e-10)
    runs = []
    for threads in (1, 2):
        tl.set_num_threads(threads)
        t = [tl.tensor(a.astype(np.float32), requires_grad=True) for a in (x, w, b)]
        F.layer_norm(t[0], (50,), t[1], t[2]).backward(tl.tensor(g.astype(np.float32)))
        runs.append([a.grad.numpy() for a in t])
    for a, c in zip(*runs):
        np.testing.assert_array_equal(a, c)


def test_batch_norm_running_statistics_follow_momentum():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 3, 5))
    rm, rv = np.zeros(3), np.ones(3)
    running_mean, running_var = tl.tensor(rm), tl.tensor(rv)
    y = F.batch_norm(tl.tensor(x), running_mean, running_var, training=True, momentum=0.25)
    mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    np.testing.assert_allclose(running_mean.numpy(), 0.75 * rm + 0.25 * mean, rtol=1e-12)
    np.testing.assert_allclose(running_var.numpy(), 0.75 * rv + 0.25 * var * 40 / 39, rtol=1e-12)  # unbiased
    expected = (x - mean[None, :, None]) / np.sqrt(var[None, :, None] + 1e-5)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10, atol=1e-12)
    # evaluation uses the running statistics and leaves them alone
    before = running_mean.numpy().copy()
    y = F.batch_norm(tl.tensor(x), running_mean, running_var)
    np.testing.assert_array_equal(running_mean.numpy(), before)
    np.testing.assert_allclose(y.numpy(), (x - before[None, :, None]) / np.sqrt(running_var.numpy()[None, :, None]
                                                                                   + 1e-5), rtol=1e-10)


def test_layer_norm_in_low_precision_and_local_response_and_normalize():
    x = np.random.default_rng(4).standard_normal((4, 3, 6)).astype(np.float32)
    for dtype in (tl.float16, tl.bfloat16):
        y = F.layer_norm(tl.tensor(x).to(dtype), (6,))
        assert y.dtype == dtype
        ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
        np.testing.assert_allclose(y.float().numpy(), ref, atol=0.05)
    # each channel over the mean of the squares of its window of 3 (zero-padded)
    sq = np.pad(x.astype(np.float64) ** 2, ((0, 0), (1, 1), (0, 0)))
    div = (1.0 + 1e-4 * (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]) / 3) ** 0.75
    np.testing.assert_allclose(F.local_response_norm(tl.tensor(x), 3).numpy(), x / div, rtol=1e-6)
    n = F.normalize(tl.tensor(x), dim=-1).numpy()
    np.testing.assert_allclose(np.linalg.norm(n, axis=-1), 1.0, rtol=1e-6)
    assert F.normalize(tl.zeros(2, 3)).abs().sum().item() == 0  # eps keeps zero rows zero


# ------------------------------------------------------------------ elementwise losses and distances
def _loss_inputs(rng):
    """name -> (positional arrays, keyword arguments, the indices of the arrays that get gradients)."""
    x, y = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    p, q = rng.uniform(0.05, 0.95, (4, 5)), rng.uniform(0, 1, (4, 5))
    signs = rng.choice([-1.0, 1.0], size=(4, 5))
    return {
        "mse_loss": ((x, y), {}, (0, 1)),
        "l1_loss": ((x, y), {}, (0, 1)),
        "smooth_l1_loss": ((x, y), {"beta": 0.5}, (0, 1)),
        "huber_loss": ((x, y), {"delta": 0.7}, (0, 1)),
        "binary_cross_entropy": ((p, q), {"weight": rng.uniform(0.5, 2, (4, 5))}, (0, 1)),
        "binary_cross_entropy_with_logits": ((x, q), {"pos_weight": rng.uniform(0.5, 2, 5)}, (0, 1)),
        "kl_div": ((x, q), {"log_target": False}, (0, 1)),
        "soft_margin_loss": ((x, signs), {}, (0,)),
        "hinge_embedding_loss": ((x, signs), {"margin": 0.5}, (0,)),
        "margin_ranking_loss": ((x[0], y[0], signs[0]), {"margin": 0.2}, (0, 1)),
        "cosine_embedding_loss": ((x, y, signs[:, 0]), {"margin": 0.1}, (0, 1)),
        "poisson_nll_loss": ((x, rng.uniform(0, 3, (4, 5))), {"full": True}, (0,)),
        "gaussian_nll_loss": ((x, y, rng.uniform(0.5, 2, (4, 5))), {"full": True}, (0, 1, 2)),
        "multilabel_soft_margin_loss": ((x, (q > 0.5).astype(np.float64)), {}, (0,)),
        "triplet_margin_loss": ((x, y, x[::-1].copy()), {"swap": True}, (0, 1, 2)),
    }


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss")
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", sorted(_loss_inputs(np.random.default_rng(0))))
def test_elementwise_losses_and_their_gradients_match_torch(name, reduction):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    arrays, kw, diff = _loss_inputs(np.random.default_rng(len(name)))[name]
    ours = [tl.tensor(a, requires_grad=i in diff) for i, a in enumerate(arrays)]
    theirs = [torch.tensor(a, requires_grad=i in diff) for i, a in enumerate(arrays)]
    kw_ours = {k: tl.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    kw_theirs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    a = getattr(F, name)(*ours, reduction=reduction, **kw_ours)
    b = getattr(TF, name)(*theirs, reduction=reduction, **kw_theirs)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    upstream = np.random.default_rng(1).standard_normal(tuple(b.shape))
    a.backward(tl.tensor(upstream))
    b.backward(torch.tensor(upstream))
    for i in diff:
        np.testing.assert_allclose(ours[i].grad.numpy(), theirs[i].grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=f"input {i}")


def test_kl_div_batchmean_weighted_mse_and_distances():
    rng = np.random.default_rng(5)
    x, t = rng.standard_normal((4, 3)), rng.uniform(0.1, 1, (4, 3))
    expected = (t * (np.log(t) - x)).sum() / 4
    np.testing.assert_allclose(F.kl_div(tl.tensor(x), tl.tensor(t), reduction="batchmean").item(), expected)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(tl.tensor(x), tl.tensor(t))
    w = rng.uniform(0.5, 2, (4, 3))
    y = rng.standard_normal((4, 3))
    np.testing.assert_allclose(F.mse_loss(tl.tensor(x), tl.tensor(y), weight=tl.tensor(w)).item(),
                               (w * (x - y) ** 2).sum() / w.sum())
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(tl.tensor(x), tl.tensor(y[0]))
    d = F.pairwise_distance(tl.tensor(x), tl.tensor(y)).numpy()
    np.testing.assert_allclose(d, np.linalg.norm(x - y + 1e-6, axis=1))
    c = F.cosine_similarity(tl.tensor(x), tl.tensor(y)).numpy()
    np.testing.assert_allclose(c, (x * y).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1))
    m = F.multi_margin_loss(tl.tensor(x), tl.tensor([0, 2, 1, 1]), reduction="none").numpy()
    ref = [sum(max(0, 1 - x[i, c] + x[i, j]) for j in range(3) if j != c) / 3 for i, c in enumerate([0, 2, 1, 1])]
    np.testing.assert_allclose(m, ref)


# ------------------------------------------------------------------ comparisons with PyTorch
def _compare_with_grads(torch, fn_ours, fn_theirs, arrays, grads=True, **kw):
    """fn on tensors of `arrays` (the floating ones requiring grad) in both libraries: the values, then the
    gradients from one upstream gradient."""
    ours = [tl.tensor(a, requires_grad=grads and a.dtype.kind == "f") for a in arrays]
    theirs = [torch.tensor(a, requires_grad=grads and a.dtype.kind == "f") for a in arrays]
    a, b = fn_ours(*ours, **kw), fn_theirs(*theirs, **kw)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    if grads:
        upstream = np.random.default_rng(9).standard_normal(tuple(b.shape))
        a.backward(tl.tensor(upstream))
        b.backward(torch.tensor(upstream))
        for o, t in zip(ours, theirs):
            if t.grad is not None:
                np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------ resampling
INTERPOLATE_CASES = [
    ((2, 3, 7), "nearest", dict(scale_factor=1.5)),
    ((2, 3, 7), "nearest-exact", dict(size=4)),
    ((2, 3, 7), "linear", dict(scale_factor=0.6, align_corners=False)),
    ((2, 3, 5, 6), "nearest", dict(size=(4, 9))),
    ((2, 3, 5, 6), "bilinear", dict(scale_factor=1.5, align_corners=False)),
    ((2, 3, 5, 6), "bilinear", dict(size=(4, 7), align_corners=True)),
    ((2, 3, 5, 6), "bilinear", dict(scale_factor=1.7, recompute_scale_factor=True)),
    ((2, 3, 5, 6), "bicubic", dict(scale_factor=2, align_corners=False)),
    ((2, 3, 5, 6), "bicubic", dict(size=3, align_corners=True)),
    ((1, 2, 3, 4, 5), "trilinear", dict(scale_factor=(2, 1.5, 0.8))),
    ((1, 2, 3, 4, 5), "nearest", dict(size=1)),
    ((2, 3, 7, 6), "area", dict(size=(3, 4))),
    ((2, 3, 7), "area", dict(scale_factor=0.6)),
    # antialias: downsampling widens the filter by the scale; upsampling is the plain filter (cubic a = -0.5)
    ((2, 3, 13, 17), "bilinear", dict(size=(5, 7), antialias=True)),
    ((2, 3, 8, 8), "bilinear", dict(size=(3, 20), antialias=True, align_corners=True)),
    ((2, 3, 20, 9), "bicubic", dict(scale_factor=(0.4, 0.5), antialias=True)),
    ((1, 2, 7, 7), "bicubic", dict(size=(1, 3), antialias=True, align_corners=True)),
]


@pytest.mark.parametrize("shape,mode,kw", INTERPOLATE_CASES, ids=[f"{c[1]}-{i}" for i, c in enumerate(INTERPOLATE_CASES)])
def test_interpolate_and_its_gradient_match_torch(shape, mode, kw):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    x = np.random.default_rng(len(shape)).standard_normal(shape)
    _compare_with_grads(torch, F.interpolate, TF.interpolate, [x], mode=mode, **kw)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_nearest_modes_resample_uint8_images(mode):
    x = tl.tensor(np.random.default_rng(8).integers(0, 256, (2, 3, 5, 6)).astype(np.uint8))
    for kw in (dict(scale_factor=1.7), dict(size=(3, 8))):
        y = F.interpolate(x, mode=mode, **kw)
        assert y.dtype == tl.uint8
        np.testing.assert_array_equal(y.numpy(), F.interpolate(x.float(), mode=mode, **kw).numpy().astype(np.uint8))
    with pytest.raises(NotImplementedError, match="not implemented for 'Byte'"):
        F.interpolate(x, size=(3, 4), mode="bilinear")
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        F.interpolate(x.int(), size=(3, 4), mode=mode)


def test_antialiased_downsampling_averages_what_each_output_covers():
    """Bilinear antialias halving a size is a [1, 3, 3, 1] / 8 filter at stride 2 (the triangle stretched by 2,
    sampled at the input centres), renormalized where it crosses the border."""
    x = np.random.default_rng(4).standard_normal((1, 1, 1, 8))
    y = F.interpolate(tl.tensor(x), size=(1, 4), mode="bilinear", antialias=True).numpy()[0, 0, 0]
    v = x[0, 0, 0]
    taps = np.array([1.0, 3.0, 3.0, 1.0])
    expect = [(v[0:3] @ taps[1:]) / 7] + [(v[2 * i - 1:2 * i + 3] @ taps) / 8 for i in (1, 2)] + [(v[5:8] @ taps[:3]) / 7]
    np.testing.assert_allclose(y, expect, rtol=1e-12)
    const = F.interpolate(tl.full((1, 2, 9, 11), 2.5), size=(4, 3), mode="bicubic", antialias=True)
    np.testing.assert_allclose(const.numpy(), 2.5, rtol=1e-6)
    with pytest.raises(ValueError, match="Anti-alias option is restricted"):
        F.interpolate(tl.ones(1, 1, 4), size=2, mode="linear", antialias=True)
    with pytest.raises(NotImplementedError, match="antialias=True is not implemented for .*uint8"):
        F.interpolate(tl.ones(1, 1, 4, 4, dtype=tl.uint8), size=2, mode="bilinear", antialias=True)


def test_interpolate_doubles_with_nearest_and_keeps_linear_ramps():
    x = tl.arange(4.0).reshape(1, 1, 4)
    assert F.interpolate(x, scale_factor=2).tolist() == [[[0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]]]
    y = F.interpolate(x, size=7, mode="linear", align_corners=True)
    np.testing.assert_allclose(y.numpy()[0, 0], np.linspace(0, 3, 7))
    assert F.interpolate(x, size=2, mode="area").tolist() == [[[0.5, 2.5]]]  # adaptive average pooling


# ------------------------------------------------------------------ layers and activations written as composites
def test_composite_layers_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8, 3, 4))
    for approximate in ("none", "tanh"):
        _compare_with_grads(torch, F.gelu, TF.gelu, [x], approximate=approximate)
    _compare_with_grads(torch, F.glu, TF.glu, [x], dim=1)
    _compare_with_grads(torch, F.prelu, TF.prelu, [x, rng.uniform(0.1, 0.3, 8)])
    _compare_with_grads(torch, F.prelu, TF.prelu, [x, np.array([0.2])])
    _compare_with_grads(torch, F.pixel_shuffle, TF.pixel_shuffle, [x], upscale_factor=2)
    _compare_with_grads(torch, F.pixel_unshuffle, TF.pixel_unshuffle, [rng.standard_normal((2, 2, 4, 6))],
                        downscale_factor=2)
    _compare_with_grads(torch, F.bilinear, TF.bilinear, [rng.standard_normal((5, 3)), rng.standard_normal((5, 4)),
                                                          rng.standard_normal((2, 3, 4)), rng.standard_normal(2)])
    indices = rng.integers(0, 6, (3, 4))
    _compare_with_grads(torch, F.one_hot, TF.one_hot, [indices], grads=False)
    _compare_with_grads(torch, F.one_hot, TF.one_hot, [indices], grads=False, num_classes=9)
    weight = rng.standard_normal((6, 3))
    for kw in ({}, {"padding_idx": 2}, {"scale_grad_by_freq": True}, {"padding_idx": -1, "scale_grad_by_freq": True}):
        _compare_with_grads(torch, F.embedding, TF.embedding, [indices, weight], **kw)
    w_ours, w_theirs = tl.tensor(weight * 3), torch.tensor(weight * 3)
    F.embedding(tl.tensor(indices), w_ours, max_norm=1.0)
    TF.embedding(torch.tensor(indices), w_theirs, max_norm=1.0)
    np.testing.assert_allclose(w_ours.numpy(), w_theirs.numpy(), rtol=1e-12)  # rows renormalized in place


@pytest.mark.parametrize("case", ["plain", "bool_mask", "float_mask", "causal", "gqa", "masked_row",
                                  "causal_rectangular", "broadcast_kv"])
def test_scaled_dot_product_attention_matches_torch(case):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((2, 4, 5, 8)), rng.standard_normal((2, 4, 6, 8)), rng.standard_normal((2, 4, 6, 3))
    kw = {}
    arrays = [q, k, v]
    if case == "bool_mask":
        kw["attn_mask"] = rng.uniform(size=(5, 6)) > 0.3
        kw["attn_mask"][:, 0] = True  # every row attends somewhere
    elif case == "float_mask":
        kw["attn_mask"] = rng.standard_normal((2, 1, 5, 6))
    elif case == "causal":
        arrays = [q, rng.standard_normal((2, 4, 5, 8)), rng.standard_normal((2, 4, 5, 3))]
        kw["is_causal"] = True
        kw["scale"] = 0.3
    elif case == "gqa":
        arrays = [q, k[:, :2], v[:, :2]]
        kw["enable_gqa"] = True
    elif case == "masked_row":  # a query masked from every key gets zeros (PyTorch 2.5 on), its gradients too
        kw["attn_mask"] = rng.uniform(size=(2, 4, 5, 6)) > 0.3
        kw["attn_mask"][:, :, 2] = False
        kw["attn_mask"][:, :, [0, 1, 3, 4], 0] = True
    elif case == "causal_rectangular":  # L < S: query i keeps keys j <= i
        kw["is_causal"] = True
    elif case == "broadcast_kv":  # one head of keys and values for every query head
        arrays = [q, k[:, :1], v[:, :1]]
    mask = kw.pop("attn_mask", None)
    ours = [tl.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    a = F.scaled_dot_product_attention(*ours, attn_mask=None if mask is None else tl.tensor(mask), **kw)
    b = TF.scaled_dot_product_attention(*theirs, attn_mask=None if mask is None else torch.tensor(mask), **kw)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    a.sum().backward()
    b.sum().backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_scaled_dot_product_attention_fused_and_composite_paths():
    """Without dropout (and a mask that needs no gradient) the fused kernel runs: its backward is not differentiable
    again, as PyTorch's CPU flash attention; with dropout the composite runs, and double backward works."""
    rng = np.random.default_rng(5)
    q = tl.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    y = F.scaled_dot_product_attention(q, q, q)
    (g,) = tl.autograd.grad(y.sum(), q, create_graph=True)
    # As PyTorch, the error names the op ("derivative for ..._backward is not implemented"), also where another
    # path would have let the backward run without that term (g * q): never a silently partial result.
    with pytest.raises(RuntimeError, match="derivative for '_scaled_dot_product_fused_attention_backward' is not "
                                           "implemented"):
        g.sum().backward()
    (g,) = tl.autograd.grad(F.scaled_dot_product_attention(q, q, q).sum(), q, create_graph=True)
    with pytest.raises(RuntimeError, match="is not implemented"):
        (g * q).sum().backward()
    assert F.scaled_dot_product_attention(q, q, q, is_causal=True)[:, 0].tolist() == q[:, 0].tolist()  # row 0: itself
    mask = tl.tensor(rng.standard_normal((3, 3)), requires_grad=True)  # a mask needing its gradient: the composite
    F.scaled_dot_product_attention(q, q, q, attn_mask=mask).sum().backward()
    assert mask.grad is not None and mask.grad.shape == (3, 3)
    tl.manual_seed(0)
    y = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    (g,) = tl.autograd.grad(y.sum(), q, create_graph=True)
    g.sum().backward()
    assert q.grad is not None


def test_channel_and_alpha_dropout_statistics():
    tl.manual_seed(0)
    x = tl.ones(64, 32, 4, 4)
    y = F.dropout2d(x, p=0.25)
    per_channel = y.reshape(64, 32, -1)
    kept = (per_channel[:, :, 0] != 0).float()
    assert bool(((per_channel == per_channel[:, :, :1]).all()).item())  # whole channels dropped or kept
    assert abs(kept.mean().item() - 0.75) < 0.03 and abs(y.max().item() - 1 / 0.75) < 1e-6
    rows = x[0, :, :, 0]
    assert F.dropout1d(rows, p=0.5, training=False) is rows  # not training: the input itself
    z = F.alpha_dropout(tl.randn(200000), p=0.2, training=True)
    assert abs(z.mean().item()) < 0.02 and abs(z.std().item() - 1) < 0.02  # SELU's fixed point kept
    assert F.alpha_dropout(x, p=0.2) is x  # not training: the input itself
    r = F.rrelu(tl.full((1000,), -1.0), training=True)
    assert (r >= -1 / 3).all().item() and (r <= -1 / 8).all().item()
    g = F.gumbel_softmax(tl.randn(5, 7), tau=0.5, hard=True)
    assert g.sum(-1).tolist() == [1.0] * 5 and set(g.reshape(-1).tolist()) <= {0.0, 1.0}
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):  # PyTorch 2.13: (N, C), deprecated
        F.dropout2d(tl.ones(2, 3))


def test_unfold_and_fold_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(6)
    for shape, kw in [((2, 3, 5, 6), dict(kernel_size=(2, 3))),
                      ((3, 7, 6), dict(kernel_size=3, dilation=(1, 2), padding=1, stride=2))]:
        x = rng.standard_normal(shape)
        _compare_with_grads(torch, F.unfold, TF.unfold, [x], **kw)
        cols = TF.unfold(torch.tensor(x), **kw).numpy()
        _compare_with_grads(torch, F.fold, TF.fold, [cols], output_size=shape[-2:], **kw)


def test_unpooling_power_pooling_and_distances_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 6, 6))
    values, indices = TF.max_pool2d(torch.tensor(x), 2, return_indices=True)
    for kw in ({}, {"output_size": (7, 7)}):
        _compare_with_grads(torch, F.max_unpool2d, TF.max_unpool2d, [values.numpy(), indices.numpy()],
                            kernel_size=2, **kw)
    positive = np.abs(x) + 0.1
    for norm_type in (2, 1.5):
        _compare_with_grads(torch, F.lp_pool2d, TF.lp_pool2d, [positive], norm_type=norm_type, kernel_size=2)
        _compare_with_grads(torch, F.lp_pool1d, TF.lp_pool1d, [positive[0]], norm_type=norm_type, kernel_size=3,
                            stride=2)
    a, b = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 4, 3))
    for p in (2.0, 1.0, 3.0, float("inf")):
        _compare_with_grads(torch, tl.cdist, torch.cdist, [a, b], p=p)
        _compare_with_grads(torch, tl.pdist, torch.pdist, [a[0]], p=p)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_matches_torch(mode):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(10)
    weight = rng.standard_normal((6, 3))
    flat, offsets = np.array([1, 2, 4, 5, 4, 3, 2]), np.array([0, 3, 3, 5])  # (the second bag is empty)
    for inp, kw in [(flat, {"offsets": offsets}), (flat, {"offsets": offsets, "padding_idx": 2}),
                    (flat, {"offsets": np.array([0, 3, 3, 7]), "include_last_offset": True}),
                    (flat.reshape(-1)[:6].reshape(2, 3), {})]:
        kw = dict(kw, mode=mode)
        if mode == "sum":
            kw["per_sample_weights"] = rng.standard_normal(inp.shape)
        ours = {k: tl.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        theirs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        w_ours, w_theirs = tl.tensor(weight, requires_grad=True), torch.tensor(weight, requires_grad=True)
        a = F.embedding_bag(tl.tensor(inp), w_ours, **ours)
        b = TF.embedding_bag(torch.tensor(inp), w_theirs, **theirs)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)
        a.sum().backward()
        b.sum().backward()
        np.testing.assert_allclose(w_ours.grad.numpy(), w_theirs.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic", "trilinear", "nearest-5d"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_and_grid_sample_match_torch(mode, padding_mode, align_corners):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(11)
    volumetric = mode in ("trilinear", "nearest-5d")  # 5-D input: grid_sample's "bilinear" is trilinear there
    mode = {"trilinear": "bilinear", "nearest-5d": "nearest"}.get(mode, mode)
    if volumetric:
        theta = rng.standard_normal((2, 3, 4)) * 0.5 + np.eye(3, 4)
        size, x = (2, 3, 3, 4, 5), rng.standard_normal((2, 3, 3, 4, 5))
        grid = rng.uniform(-1.3, 1.3, (2, 4, 3, 5, 3))  # some points outside
    else:
        theta = rng.standard_normal((2, 2, 3)) * 0.5 + np.eye(2, 3)
        size, x = (2, 3, 4, 5), rng.standard_normal((2, 3, 4, 5))
        grid = rng.uniform(-1.3, 1.3, (2, 6, 7, 2))
    _compare_with_grads(torch, F.affine_grid, TF.affine_grid, [theta], size=size, align_corners=align_corners)
    _compare_with_grads(torch, F.grid_sample, TF.grid_sample, [x, grid], mode=mode, padding_mode=padding_mode,
                        align_corners=align_corners)


def test_grid_sample_bicubic_is_the_cubic_convolution_and_checks_shapes():
    """Away from the border, bicubic sampling is the 4 x 4 taps around the point weighted by the cubic convolution
    kernel with A = -0.75 (Keys) along each axis."""
    def kernel(t):
        t, a = abs(t), -0.75
        return ((a + 2) * t - (a + 3)) * t * t + 1 if t <= 1 else ((a * t - 5 * a) * t + 8 * a) * t - 4 * a

    image = np.random.default_rng(6).standard_normal((6, 7))
    px, py = np.array([2.3, 3.5, 2.75]), np.array([2.2, 2.9, 3.4])  # pixel coordinates, two pixels from every border
    expect = []
    for x, y in zip(px, py):
        fx, fy = int(np.floor(x)), int(np.floor(y))
        expect.append(sum(kernel(y - (fy + j)) * kernel(x - (fx + i)) * image[fy + j, fx + i]
                          for j in range(-1, 3) for i in range(-1, 3)))
    grid = np.stack([(2 * px + 1) / 7 - 1, (2 * py + 1) / 6 - 1], -1)[None, None]  # align_corners=False
    got = F.grid_sample(tl.tensor(image[None, None]), tl.tensor(grid), mode="bicubic", align_corners=False)
    np.testing.assert_allclose(got.numpy()[0, 0, 0], expect, rtol=1e-12)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(tl.ones(1, 1, 2, 2, 2), tl.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False)
    with pytest.raises(RuntimeError, match="expected grid to have size 3 in last dimension"):
        F.grid_sample(tl.ones(1, 1, 2, 2, 2), tl.zeros(1, 1, 1, 1, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="same batch size"):
        F.grid_sample(tl.ones(1, 1, 2, 2), tl.zeros(2, 1, 1, 2), align_corners=False)


def test_grid_sample_identity_and_its_default_warning():
    x = tl.arange(6.0).reshape(1, 1, 2, 3)
    theta = tl.tensor([[[1.0, 0, 0], [0, 1, 0]]])
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        grid = F.affine_grid(theta, (1, 1, 2, 3))
    assert F.grid_sample(x, grid, align_corners=False).tolist() == x.tolist()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss_and_top_level_dropouts(reduction):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 5))
    target = np.array([[3, 0, -1, 1, 2], [1, 2, 4, 0, 3], [-1, 1, 2, 3, 4]])  # the classes before the first -1
    _compare_with_grads(torch, F.multilabel_margin_loss, TF.multilabel_margin_loss, [x, target], reduction=reduction)
    _compare_with_grads(torch, F.multilabel_margin_loss, TF.multilabel_margin_loss, [x[0], target[0]],
                        reduction=reduction)
    ones = tl.ones(4, 3, 2)
    assert tl.alpha_dropout(ones, 0.5, False) is ones and tl.feature_dropout(ones, 0.3, False) is ones
    dropped = tl.feature_dropout(ones, 0.5, True)
    assert set(dropped.reshape(-1).tolist()) <= {0.0, 2.0}
    assert (dropped == dropped[:, :, :1]).all().item()  # whole channels


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_matches_torch(reduction):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(13)
    T, N, C = 12, 3, 5
    log_probs = np.log(rng.dirichlet(np.ones(C), size=(T, N)))
    targets = rng.integers(1, C, (N, 4))
    input_lengths, target_lengths = np.array([12, 10, 7]), np.array([4, 2, 3])
    _compare_with_grads(torch, F.ctc_loss, TF.ctc_loss, [log_probs, targets, input_lengths, target_lengths],
                        reduction=reduction)
    flat = np.concatenate([targets[n, :target_lengths[n]] for n in range(N)])  # concatenated targets
    _compare_with_grads(torch, F.ctc_loss, TF.ctc_loss, [log_probs, flat, input_lengths, target_lengths],
                        reduction=reduction)
    short = np.array([12, 2, 7])  # the second input is too short for its target: an infinite loss
    for zero_infinity in (False, True):
        a = F.ctc_loss(tl.tensor(log_probs), tl.tensor(targets), tl.tensor(short), tl.tensor(target_lengths),
                       reduction="none", zero_infinity=zero_infinity)
        b = TF.ctc_loss(torch.tensor(log_probs), torch.tensor(targets), torch.tensor(short),
                        torch.tensor(target_lengths), reduction="none", zero_infinity=zero_infinity)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


@pytest.mark.parametrize("d", [2, 3])
def test_fractional_max_pool_matches_torch_for_given_samples(d):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    import torch.nn.functional as TF

    rng = np.random.default_rng(14)
    shape, out = ((2, 3, 9, 11), (5, 6)) if d == 2 else ((2, 2, 6, 7, 8), (3, 4, 5))
    x, samples = rng.standard_normal(shape), rng.uniform(size=(shape[0], shape[1], d))
    name = f"fractional_max_pool{d}d"
    kw = dict(kernel_size=2, output_size=out, return_indices=True)
    a_x, b_x = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    a, a_idx = getattr(F, name)(a_x, _random_samples=tl.tensor(samples), **kw)
    b, b_idx = getattr(TF, name)(b_x, _random_samples=torch.tensor(samples), **kw)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    np.testing.assert_array_equal(a_idx.numpy(), b_idx.numpy())
    a.sum().backward()
    b.sum().backward()
    np.testing.assert_array_equal(a_x.grad.numpy(), b_x.grad.numpy())
    # Without samples: random windows of the requested size, each output the maximum of a 2x2 window.
    y = getattr(F, name)(tl.tensor(x), 2, output_ratio=(0.5,) * d)
    assert tuple(y.shape) == shape[:2] + tuple(s // 2 for s in shape[2:])
