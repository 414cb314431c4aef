"""The stateless-ish layers of torchlite.nn: activations, losses, distances, dropout, padding, flatten,
pixel/channel shuffle, upsampling, fold/unfold. Construction defaults, repr, forward against NumPy closed
forms or torchlite.nn.functional, PReLU's gradients, dropout's train/eval behaviour, the losses' weight
buffers and bad-input errors; compared with PyTorch (outputs, gradients, repr, state_dict) where installed."""
import math
import warnings

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn
import torchlite.nn.functional as F


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")


def _np(t):
    return t.detach().numpy()


def _close(a, b, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=rtol, atol=atol)


def _build(expr, framework):
    """Evaluates a constructor expression with `nn` and `T` bound to torchlite's or PyTorch's."""
    return eval(expr, {"nn": framework.nn, "T": framework, "math": math})


# ------------------------------------------------------------------ repr, exactly as PyTorch prints it
REPRS = [
    ("nn.Threshold(0.1, 20)", "Threshold(threshold=0.1, value=20)"),
    ("nn.Threshold(0.1, 20, True)", "Threshold(threshold=0.1, value=20, inplace=True)"),
    ("nn.ReLU()", "ReLU()"),
    ("nn.ReLU(True)", "ReLU(inplace=True)"),
    ("nn.RReLU()", "RReLU(lower=0.125, upper=0.3333333333333333)"),
    ("nn.RReLU(0.1, 0.3, True)", "RReLU(lower=0.1, upper=0.3, inplace=True)"),
    ("nn.Hardtanh()", "Hardtanh(min_val=-1.0, max_val=1.0)"),
    ("nn.Hardtanh(-2, 2, True)", "Hardtanh(min_val=-2, max_val=2, inplace=True)"),
    ("nn.ReLU6()", "ReLU6()"),
    ("nn.ReLU6(True)", "ReLU6(inplace=True)"),
    ("nn.Sigmoid()", "Sigmoid()"),
    ("nn.Hardsigmoid(True)", "Hardsigmoid()"),
    ("nn.Tanh()", "Tanh()"),
    ("nn.SiLU()", "SiLU()"),
    ("nn.SiLU(True)", "SiLU(inplace=True)"),
    ("nn.Mish(True)", "Mish(inplace=True)"),
    ("nn.Hardswish(True)", "Hardswish()"),
    ("nn.ELU()", "ELU(alpha=1.0)"),
    ("nn.ELU(0.5, True)", "ELU(alpha=0.5, inplace=True)"),
    ("nn.CELU(2.0, True)", "CELU(alpha=2.0, inplace=True)"),
    ("nn.SELU()", "SELU()"),
    ("nn.SELU(True)", "SELU(inplace=True)"),
    ("nn.GLU()", "GLU(dim=-1)"),
    ("nn.GELU()", "GELU(approximate='none')"),
    ("nn.GELU('tanh')", "GELU(approximate='tanh')"),
    ("nn.Hardshrink()", "Hardshrink(0.5)"),
    ("nn.LeakyReLU()", "LeakyReLU(negative_slope=0.01)"),
    ("nn.LeakyReLU(0.2, True)", "LeakyReLU(negative_slope=0.2, inplace=True)"),
    ("nn.LogSigmoid()", "LogSigmoid()"),
    ("nn.Softplus()", "Softplus(beta=1.0, threshold=20.0)"),
    ("nn.Softplus(2, 10)", "Softplus(beta=2, threshold=10)"),
    ("nn.Softshrink()", "Softshrink(0.5)"),
    ("nn.PReLU()", "PReLU(num_parameters=1)"),
    ("nn.PReLU(3, 0.1)", "PReLU(num_parameters=3)"),
    ("nn.Softsign()", "Softsign()"),
    ("nn.Tanhshrink()", "Tanhshrink()"),
    ("nn.Softmin()", "Softmin(dim=None)"),
    ("nn.Softmax(dim=-1)", "Softmax(dim=-1)"),
    ("nn.Softmax2d()", "Softmax2d()"),
    ("nn.LogSoftmax(0)", "LogSoftmax(dim=0)"),
    ("nn.L1Loss()", "L1Loss()"),
    ("nn.CrossEntropyLoss(weight=T.ones(3))", "CrossEntropyLoss()"),
    ("nn.CTCLoss()", "CTCLoss()"),
    ("nn.BCEWithLogitsLoss(pos_weight=T.ones(2))", "BCEWithLogitsLoss()"),
    ("nn.TripletMarginWithDistanceLoss()",
     "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"),
    ("nn.PairwiseDistance()", "PairwiseDistance()"),
    ("nn.CosineSimilarity()", "CosineSimilarity()"),
    ("nn.Dropout()", "Dropout(p=0.5, inplace=False)"),
    ("nn.Dropout2d(0.2, True)", "Dropout2d(p=0.2, inplace=True)"),
    ("nn.AlphaDropout()", "AlphaDropout(p=0.5, inplace=False)"),
    ("nn.FeatureAlphaDropout(0.1)", "FeatureAlphaDropout(p=0.1, inplace=False)"),
    ("nn.ConstantPad1d(2, 3.5)", "ConstantPad1d(padding=(2, 2), value=3.5)"),
    ("nn.ConstantPad2d((1, 2, 3, 4), 0)", "ConstantPad2d(padding=(1, 2, 3, 4), value=0)"),
    ("nn.ConstantPad3d(1, -1)", "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=-1)"),
    ("nn.ZeroPad1d(2)", "ZeroPad1d((2, 2))"),
    ("nn.ZeroPad2d([1, 2, 3, 4])", "ZeroPad2d((1, 2, 3, 4))"),
    ("nn.ZeroPad3d((1, 2, 3, 4, 5, 6))", "ZeroPad3d((1, 2, 3, 4, 5, 6))"),
    ("nn.ReflectionPad1d(2)", "ReflectionPad1d((2, 2))"),
    ("nn.ReflectionPad2d(1)", "ReflectionPad2d((1, 1, 1, 1))"),
    ("nn.ReflectionPad3d(1)", "ReflectionPad3d((1, 1, 1, 1, 1, 1))"),
    ("nn.ReplicationPad1d(1)", "ReplicationPad1d((1, 1))"),
    ("nn.ReplicationPad2d((1, 1, 2, 2))", "ReplicationPad2d((1, 1, 2, 2))"),
    ("nn.ReplicationPad3d(1)", "ReplicationPad3d((1, 1, 1, 1, 1, 1))"),
    ("nn.CircularPad1d(1)", "CircularPad1d((1, 1))"),
    ("nn.CircularPad2d(1)", "CircularPad2d((1, 1, 1, 1))"),
    ("nn.CircularPad3d(1)", "CircularPad3d((1, 1, 1, 1, 1, 1))"),
    ("nn.Flatten()", "Flatten(start_dim=1, end_dim=-1)"),
    ("nn.Unflatten(1, (2, 3))", "Unflatten(dim=1, unflattened_size=(2, 3))"),
    ("nn.Unflatten(1, [2, 3])", "Unflatten(dim=1, unflattened_size=[2, 3])"),
    ("nn.PixelShuffle(2)", "PixelShuffle(upscale_factor=2)"),
    ("nn.PixelUnshuffle(3)", "PixelUnshuffle(downscale_factor=3)"),
    ("nn.Upsample(scale_factor=2)", "Upsample(scale_factor=2.0, mode='nearest')"),
    ("nn.Upsample(size=4, mode='bilinear')", "Upsample(size=4, mode='bilinear')"),
    ("nn.Upsample(size=(4, 5), mode='bicubic', align_corners=True)", "Upsample(size=(4, 5), mode='bicubic')"),
    ("nn.Upsample(scale_factor=(2, 3))", "Upsample(scale_factor=(2.0, 3.0), mode='nearest')"),
    ("nn.Upsample()", "Upsample(size=None, mode='nearest')"),
    ("nn.UpsamplingNearest2d(scale_factor=2)", "UpsamplingNearest2d(scale_factor=2.0, mode='nearest')"),
    ("nn.UpsamplingBilinear2d(size=3)", "UpsamplingBilinear2d(size=3, mode='bilinear')"),
    ("nn.ChannelShuffle(2)", "ChannelShuffle(groups=2)"),
    ("nn.Fold(4, 2)", "Fold(output_size=4, kernel_size=2, dilation=1, padding=0, stride=1)"),
    ("nn.Fold((4, 5), (2, 2), padding=1)",
     "Fold(output_size=(4, 5), kernel_size=(2, 2), dilation=1, padding=1, stride=1)"),
    ("nn.Unfold((2, 3), dilation=2, stride=(1, 2))",
     "Unfold(kernel_size=(2, 3), dilation=2, padding=0, stride=(1, 2))"),
    ("nn.Sequential(nn.ReLU(), nn.Softmax(1))", "Sequential(\n  (0): ReLU()\n  (1): Softmax(dim=1)\n)"),
]


def test_repr():
    for expr, expected in REPRS:
        assert repr(_build(expr, tl)) == expected, expr


def test_repr_against_torch():
    torch = _torch()
    for expr, expected in REPRS:
        assert repr(_build(expr, torch)) == expected, expr
        assert repr(_build(expr, tl)) == repr(_build(expr, torch)), expr


# ------------------------------------------------------------------ construction defaults
DEFAULTS = [
    ("nn.ReLU()", {"inplace": False}),
    ("nn.RReLU()", {"lower": 1 / 8, "upper": 1 / 3, "inplace": False}),
    ("nn.Hardtanh()", {"min_val": -1.0, "max_val": 1.0, "inplace": False}),
    ("nn.ReLU6()", {"min_val": 0.0, "max_val": 6.0, "inplace": False}),
    ("nn.ELU()", {"alpha": 1.0, "inplace": False}),
    ("nn.CELU()", {"alpha": 1.0, "inplace": False}),
    ("nn.GLU()", {"dim": -1}),
    ("nn.GELU()", {"approximate": "none"}),
    ("nn.Hardshrink()", {"lambd": 0.5}),
    ("nn.Softshrink()", {"lambd": 0.5}),
    ("nn.LeakyReLU()", {"negative_slope": 0.01, "inplace": False}),
    ("nn.Softplus()", {"beta": 1.0, "threshold": 20.0}),
    ("nn.PReLU()", {"num_parameters": 1, "init": 0.25}),
    ("nn.Softmax()", {"dim": None}),
    ("nn.LogSoftmax()", {"dim": None}),
    ("nn.Softmin()", {"dim": None}),
    ("nn.L1Loss()", {"reduction": "mean"}),
    ("nn.NLLLoss()", {"reduction": "mean", "ignore_index": -100, "weight": None}),
    ("nn.CrossEntropyLoss()", {"reduction": "mean", "ignore_index": -100, "label_smoothing": 0.0, "weight": None}),
    ("nn.PoissonNLLLoss()", {"log_input": True, "full": False, "eps": 1e-8, "reduction": "mean"}),
    ("nn.GaussianNLLLoss()", {"full": False, "eps": 1e-6, "reduction": "mean"}),
    ("nn.KLDivLoss()", {"reduction": "mean", "log_target": False}),
    ("nn.BCEWithLogitsLoss()", {"reduction": "mean", "weight": None, "pos_weight": None}),
    ("nn.HingeEmbeddingLoss()", {"margin": 1.0}),
    ("nn.SmoothL1Loss()", {"beta": 1.0}),
    ("nn.HuberLoss()", {"delta": 1.0, "reduction": "mean"}),
    ("nn.CosineEmbeddingLoss()", {"margin": 0.0}),
    ("nn.MarginRankingLoss()", {"margin": 0.0}),
    ("nn.MultiMarginLoss()", {"p": 1, "margin": 1.0, "weight": None}),
    ("nn.TripletMarginLoss()", {"margin": 1.0, "p": 2.0, "eps": 1e-6, "swap": False}),
    ("nn.TripletMarginWithDistanceLoss()", {"margin": 1.0, "swap": False, "reduction": "mean"}),
    ("nn.CTCLoss()", {"blank": 0, "reduction": "mean", "zero_infinity": False}),
    ("nn.PairwiseDistance()", {"norm": 2.0, "eps": 1e-6, "keepdim": False}),
    ("nn.CosineSimilarity()", {"dim": 1, "eps": 1e-8}),
    ("nn.Dropout()", {"p": 0.5, "inplace": False}),
    ("nn.FeatureAlphaDropout()", {"p": 0.5, "inplace": False}),
    ("nn.ZeroPad2d(1)", {"padding": (1, 1, 1, 1), "value": 0.0}),
    ("nn.ConstantPad1d((1, 2), 3)", {"padding": (1, 2), "value": 3}),
    ("nn.Flatten()", {"start_dim": 1, "end_dim": -1}),
    ("nn.Upsample()", {"size": None, "scale_factor": None, "mode": "nearest", "align_corners": None,
                       "recompute_scale_factor": None, "name": "Upsample"}),
    ("nn.Upsample(scale_factor=0)", {"scale_factor": None}),
    ("nn.UpsamplingBilinear2d(scale_factor=2)", {"scale_factor": 2.0, "mode": "bilinear", "align_corners": True,
                                                 "name": "UpsamplingBilinear2d"}),
    ("nn.UpsamplingNearest2d(size=3)", {"size": 3, "mode": "nearest", "align_corners": None}),
    ("nn.Fold(3, 2)", {"output_size": 3, "kernel_size": 2, "dilation": 1, "padding": 0, "stride": 1}),
    ("nn.Unfold(2)", {"kernel_size": 2, "dilation": 1, "padding": 0, "stride": 1}),
]


@pytest.mark.parametrize("expr,attrs", DEFAULTS, ids=[e for e, _ in DEFAULTS])
def test_defaults(expr, attrs):
    m = _build(expr, tl)
    assert m.training
    for name, value in attrs.items():
        assert getattr(m, name) == value, name


def test_defaults_against_torch():
    torch = _torch()
    for expr, attrs in DEFAULTS:
        ours, theirs = _build(expr, tl), _build(expr, torch)
        for name in attrs:
            assert getattr(ours, name) == getattr(theirs, name), (expr, name)
        assert getattr(type(ours), "__constants__", None) == getattr(type(theirs), "__constants__", None), expr
        assert [k for k, _ in ours.named_children()] == [k for k, _ in theirs.named_children()]


def test_no_parameters_except_prelu():
    for expr, _ in REPRS:
        m = _build(expr, tl)
        params = [n for n, _ in m.named_parameters()]
        assert params == (["weight"] if expr.startswith("nn.PReLU") else []), expr


# ------------------------------------------------------------------ activations against NumPy
def _sig(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def _softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


_ALPHA, _SCALE = 1.6732632423543772, 1.0507009873554805
_ERF = np.vectorize(math.erf)

ACTIVATIONS = [
    ("nn.Threshold(0.1, 20.0)", lambda x: np.where(x > 0.1, x, 20.0)),
    ("nn.ReLU()", lambda x: np.maximum(x, 0)),
    ("nn.RReLU(0.1, 0.3).eval()", lambda x: np.where(x >= 0, x, 0.2 * x)),
    ("nn.Hardtanh(-2.0, 1.5)", lambda x: np.clip(x, -2.0, 1.5)),
    ("nn.ReLU6()", lambda x: np.clip(x, 0, 6)),
    ("nn.Sigmoid()", _sig),
    ("nn.Hardsigmoid()", lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    ("nn.Tanh()", np.tanh),
    ("nn.SiLU()", lambda x: x * _sig(x)),
    ("nn.Mish()", lambda x: x * np.tanh(_softplus(x))),
    ("nn.Hardswish()", lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("nn.ELU(0.5)", lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    ("nn.CELU(2.0)", lambda x: np.maximum(x, 0) + np.minimum(0, 2.0 * np.expm1(x / 2.0))),
    ("nn.SELU()", lambda x: _SCALE * np.where(x > 0, x, _ALPHA * np.expm1(x))),
    ("nn.GLU(1)", lambda x: x[:, :2] * _sig(x[:, 2:])),
    ("nn.GELU()", lambda x: 0.5 * x * (1 + _ERF(x / math.sqrt(2)))),
    ("nn.GELU('tanh')", lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    ("nn.Hardshrink(1.0)", lambda x: np.where(np.abs(x) > 1.0, x, 0)),
    ("nn.LeakyReLU(0.2)", lambda x: np.where(x >= 0, x, 0.2 * x)),
    ("nn.LogSigmoid()", lambda x: -np.logaddexp(0, -x)),
    ("nn.Softplus(2.0, 1.0)", lambda x: _softplus(x, 2.0, 1.0)),
    ("nn.Softshrink(0.7)", lambda x: np.where(x > 0.7, x - 0.7, np.where(x < -0.7, x + 0.7, 0))),
    ("nn.PReLU()", lambda x: np.where(x >= 0, x, 0.25 * x)),
    ("nn.Softsign()", lambda x: x / (1 + np.abs(x))),
    ("nn.Tanhshrink()", lambda x: x - np.tanh(x)),
    ("nn.Softmin(1)", lambda x: _softmax(-x, 1)),
    ("nn.Softmax(-1)", lambda x: _softmax(x, -1)),
    ("nn.Softmax2d()", lambda x: _softmax(x, -3)),
    ("nn.LogSoftmax(2)", lambda x: np.log(_softmax(x, 2))),
]


def _x(shape=(2, 4, 3), seed=0, scale=3.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


@pytest.mark.parametrize("expr,ref", ACTIVATIONS, ids=[e for e, _ in ACTIVATIONS])
def test_activation_forward(expr, ref):
    x = _x()
    out = _build(expr, tl)(tl.tensor(x))
    assert out.shape == ref(x).shape and out.dtype == tl.float32
    _close(_np(out), ref(x.astype(np.float64)))


def test_activation_inplace():
    for expr in ["nn.ReLU(True)", "nn.LeakyReLU(0.1, True)", "nn.ELU(1.0, True)", "nn.Hardtanh(-1, 1, True)",
                 "nn.Threshold(0.0, -1.0, True)", "nn.SiLU(True)", "nn.Hardswish(True)", "nn.SELU(True)"]:
        x = tl.tensor(_x())
        expected = _build(expr.replace("True", "False"), tl)(x.clone())
        out = _build(expr, tl)(x)
        _close(_np(x), _np(expected))  # the input itself was written
        _close(_np(out), _np(expected))
    x = tl.tensor(_x())
    nn.ReLU()(x)
    assert (_np(x) < 0).any()  # not in place by default


def test_rrelu_training_draws_slopes_in_range():
    x = -tl.ones(2000)
    m = nn.RReLU(0.1, 0.3)
    slopes = -_np(m(x))
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    m.eval()
    _close(_np(m(x)), np.full(2000, -0.2))


def test_softmax_implicit_dim_warns():
    x = tl.tensor(_x((2, 3)))
    for m, name, ref in [(nn.Softmax(), "softmax", _softmax(_x((2, 3)), 1)),
                         (nn.LogSoftmax(), "log_softmax", np.log(_softmax(_x((2, 3)), 1))),
                         (nn.Softmin(), "softmin", _softmax(-_x((2, 3)), 1))]:
        with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been deprecated"):
            out = m(x)
        _close(_np(out), ref)
    with pytest.warns(UserWarning):
        out = nn.Softmax()(tl.tensor(_x((2, 3, 4))))  # 3-D: dim 0
    _close(_np(out), _softmax(_x((2, 3, 4)), 0))


def test_softmax_setstate_fills_dim():
    m = nn.Softmax(1)
    state = dict(m.__dict__)
    del state["dim"]
    fresh = nn.Softmax.__new__(nn.Softmax)
    fresh.__setstate__(state)
    assert fresh.dim is None


def test_activation_errors():
    with pytest.raises(AssertionError, match=r"max_val \(1\) must be greater than min_val \(1\)"):
        nn.Hardtanh(1, 1)
    with pytest.warns(FutureWarning, match="keyword argument `min_value` is deprecated and renamed to `min_val`"):
        m = nn.Hardtanh(min_value=-3)
    assert m.min_val == -3
    with pytest.warns(FutureWarning, match="`max_value` is deprecated"):
        assert nn.Hardtanh(max_value=3).max_val == 3
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nn.Softmax2d()(tl.ones(2, 3))
    with pytest.raises(ValueError, match="got 5D instead"):
        nn.Softmax2d()(tl.ones(1, 2, 3, 2, 2))
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        nn.GLU()(tl.ones(3))
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        nn.GELU("foo")(tl.ones(3))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        nn.PReLU(3)(tl.ones(2, 4))


# ------------------------------------------------------------------ PReLU
def test_prelu_parameter_and_backward():
    m = nn.PReLU(3, init=0.1, dtype=tl.float64)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    assert m.weight.dtype == tl.float64 and tuple(m.weight.shape) == (3,)
    _close(_np(m.weight), [0.1] * 3)
    assert list(m.state_dict().keys()) == ["weight"]
    with tl.no_grad():
        m.weight.copy_(tl.tensor([0.1, -0.5, 2.0], dtype=tl.float64))
    xn = _x((2, 3, 4)).astype(np.float64)
    gn = _x((2, 3, 4), seed=1).astype(np.float64)
    x = tl.tensor(xn, requires_grad=True)
    out = m(x)
    w = np.array([0.1, -0.5, 2.0])[None, :, None]
    _close(_np(out), np.where(xn >= 0, xn, w * xn))
    (out * tl.tensor(gn)).sum().backward()
    _close(_np(x.grad), np.where(xn >= 0, 1.0, w) * gn)
    _close(_np(m.weight.grad), (np.where(xn >= 0, 0.0, xn) * gn).sum(axis=(0, 2)))
    m.reset_parameters()
    _close(_np(m.weight), [0.1] * 3)


def test_prelu_against_torch():
    torch = _torch()
    for num, shape in [(1, (2, 3, 4)), (3, (2, 3, 4)), (1, (4,)), (2, (3, 2, 2, 2))]:
        ours, theirs = nn.PReLU(num), torch.nn.PReLU(num)
        wn = np.linspace(-1, 1, num).astype(np.float32)
        with tl.no_grad():
            ours.weight.copy_(tl.tensor(wn))
        with torch.no_grad():
            theirs.weight.copy_(torch.from_numpy(wn))
        xn = _x(shape)
        x, tx = tl.tensor(xn, requires_grad=True), torch.tensor(xn, requires_grad=True)
        out, tout = ours(x), theirs(tx)
        _close(_np(out), tout.detach().numpy())
        out.sum().backward()
        tout.sum().backward()
        _close(_np(x.grad), tx.grad.numpy())
        _close(_np(ours.weight.grad), theirs.weight.grad.numpy())
        assert list(ours.state_dict()) == list(theirs.state_dict())


# ------------------------------------------------------------------ losses
def _bce(p, y):
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def test_losses_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((4, 3)).astype(np.float32)
    p = (rng.random((4, 3)) * 0.8 + 0.1).astype(np.float32)
    y = rng.random((4, 3)).astype(np.float32)
    s = np.sign(rng.standard_normal((4, 3))).astype(np.float32)
    cls = np.array([0, 2, 1, 2])
    A, B, P, Y, S, C = (tl.tensor(v) for v in (a, b, p, y, s, cls))
    d = a.astype(np.float64) - b
    _close(_np(nn.L1Loss()(A, B)), np.abs(d).mean())
    _close(_np(nn.L1Loss(reduction="none")(A, B)), np.abs(d))
    _close(_np(nn.MSELoss(reduction="sum")(A, B)), (d ** 2).sum())
    _close(_np(nn.SmoothL1Loss(beta=0.5)(A, B)),
           np.where(np.abs(d) < 0.5, 0.5 * d ** 2 / 0.5, np.abs(d) - 0.25).mean())
    _close(_np(nn.HuberLoss(delta=0.5)(A, B)),
           np.where(np.abs(d) <= 0.5, 0.5 * d ** 2, 0.5 * (np.abs(d) - 0.25)).mean())
    _close(_np(nn.BCELoss()(P, Y)), _bce(p, y).mean())
    w = np.array([1.0, 2.0, 0.5], dtype=np.float32)
    _close(_np(nn.BCELoss(weight=tl.tensor(w))(P, Y)), (w * _bce(p, y)).mean())
    _close(_np(nn.BCEWithLogitsLoss(pos_weight=tl.tensor(w))(A, Y)),
           (-(w * y * np.log(_sig(a)) + (1 - y) * np.log(1 - _sig(a)))).mean(), rtol=1e-4)
    logp = np.log(_softmax(a.astype(np.float64), 1))
    _close(_np(nn.CrossEntropyLoss()(A, C)), -logp[np.arange(4), cls].mean())
    _close(_np(nn.CrossEntropyLoss(weight=tl.tensor(w))(A, C)),
           -(w[cls] * logp[np.arange(4), cls]).sum() / w[cls].sum())
    _close(_np(nn.NLLLoss(reduction="sum", ignore_index=2)(A, C)), -(a[0, 0] + a[2, 1]))
    _close(_np(nn.KLDivLoss(reduction="batchmean")(tl.tensor(logp.astype(np.float32)), P)),
           (p * (np.log(p) - logp)).sum() / 4)
    _close(_np(nn.SoftMarginLoss()(A, S)), np.log1p(np.exp(-s * a)).mean())
    _close(_np(nn.MarginRankingLoss(0.5)(A, B, S)), np.maximum(0, -s * d + 0.5).mean())
    _close(_np(nn.HingeEmbeddingLoss(margin=1.5)(A, S)), np.where(s == 1, a, np.maximum(0, 1.5 - a)).mean())
    _close(_np(nn.PoissonNLLLoss()(A, P)), (np.exp(a) - p * a).mean())
    var = p + 0.5
    _close(_np(nn.GaussianNLLLoss()(A, B, tl.tensor(var))), (0.5 * (np.log(var) + d ** 2 / var)).mean())
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    t = s[:, 0]
    _close(_np(nn.CosineEmbeddingLoss(0.1)(A, B, tl.tensor(t))),
           np.where(t == 1, 1 - cos, np.maximum(0, cos - 0.1)).mean())
    margins = np.maximum(0, 1.0 - a[np.arange(4), cls][:, None] + a)
    margins[np.arange(4), cls] = 0
    _close(_np(nn.MultiMarginLoss()(A, C)), (margins.sum(1) / 3).mean())
    _close(_np(nn.MultiLabelSoftMarginLoss()(A, tl.tensor((y > 0.5).astype(np.float32)))),
           _bce(_sig(a.astype(np.float64)), (y > 0.5)).mean())
    dist = lambda u, v: np.sqrt(((u - v + 1e-6) ** 2).sum(-1))  # noqa: E731
    _close(_np(nn.TripletMarginLoss()(A, B, P)), np.maximum(dist(a, b) - dist(a, p) + 1, 0).mean())


def test_losses_match_functional():
    rng = np.random.default_rng(1)
    a = tl.tensor(rng.standard_normal((3, 5)).astype(np.float32))
    pos, neg = tl.tensor(rng.standard_normal((3, 5)).astype(np.float32)), tl.randn(3, 5)
    tgt = tl.tensor(np.array([[3, 0, -1, 1, 0], [1, 2, 3, -1, 0], [4, -1, 0, 0, 0]]))
    _close(_np(nn.MultiLabelMarginLoss()(a, tgt)), _np(F.multilabel_margin_loss(a, tgt)))
    dfn = nn.CosineSimilarity(dim=1)
    m = nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: 1 - dfn(u, v), margin=0.5, swap=True)
    _close(_np(m(a, pos, neg)), _np(F.triplet_margin_with_distance_loss(
        a, pos, neg, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.5, swap=True)))
    logp = tl.randn(6, 2, 4).log_softmax(2)
    targets = tl.tensor([[1, 2, 2], [3, 1, 0]])
    il, tlen = tl.tensor([6, 5]), tl.tensor([3, 2])
    for red in ("mean", "sum", "none"):
        _close(_np(nn.CTCLoss(reduction=red)(logp, targets, il, tlen)),
               _np(F.ctc_loss(logp, targets, il, tlen, reduction=red)))


def test_loss_legacy_arguments():
    cases = [({"size_average": False}, "sum"), ({"reduce": False}, "none"), ({"size_average": True}, "mean"),
             ({"size_average": False, "reduce": True, "reduction": "none"}, "sum")]
    for kwargs, expected in cases:
        for cls in (nn.L1Loss, nn.MSELoss, nn.BCELoss, nn.NLLLoss, nn.MultiMarginLoss, nn.TripletMarginLoss):
            with pytest.warns(UserWarning, match=f"please use reduction='{expected}' instead"):
                m = cls(**kwargs)
            assert m.reduction == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nn.L1Loss(reduction="sum").reduction == "sum"  # no warning without the legacy arguments
    with pytest.warns(UserWarning):
        assert nn.NLLLoss(None, False).reduction == "sum"  # size_average is the second positional argument
    with pytest.warns(UserWarning, match="reduction='sum'"):
        m = nn.L1Loss(size_average=False)
    _close(_np(m(tl.ones(2, 3), tl.zeros(2, 3))), 6.0)
    with pytest.raises(TypeError):
        nn.HuberLoss(size_average=True)
    with pytest.raises(TypeError):
        nn.GaussianNLLLoss(False)  # keyword-only


def test_loss_weight_buffers():
    w = tl.tensor([1.0, 2.0, 3.0])
    for m in (nn.CrossEntropyLoss(w), nn.NLLLoss(w), nn.BCELoss(w), nn.MultiLabelSoftMarginLoss(w),
              nn.MultiMarginLoss(weight=w)):
        assert list(m.state_dict()) == ["weight"] and list(dict(m.named_buffers())) == ["weight"]
        assert m.weight is w and list(m.parameters()) == []
        m.double()
        assert m.weight.dtype == tl.float64 and m.state_dict()["weight"].dtype == tl.float64
        m.load_state_dict({"weight": tl.tensor([3.0, 2.0, 1.0], dtype=tl.float64)})
        _close(_np(m.weight), [3, 2, 1])
    m = nn.CrossEntropyLoss()
    assert list(m.state_dict()) == [] and "weight" in m._buffers and m.weight is None
    m = nn.BCEWithLogitsLoss(pos_weight=w)
    assert list(m.state_dict()) == ["pos_weight"]
    m = nn.BCEWithLogitsLoss(w, pos_weight=w * 2)
    assert list(m.state_dict()) == ["weight", "pos_weight"]
    assert m.to(tl.float64).pos_weight.dtype == tl.float64
    _close(_np(m.pos_weight), [2, 4, 6])


def test_loss_weight_buffers_against_torch():
    torch = _torch()
    for expr in ["nn.CrossEntropyLoss(T.ones(3))", "nn.CrossEntropyLoss()", "nn.NLLLoss(T.ones(3))",
                 "nn.BCEWithLogitsLoss(pos_weight=T.ones(3))", "nn.BCEWithLogitsLoss(T.ones(3), pos_weight=T.ones(3))",
                 "nn.MultiMarginLoss(weight=T.ones(3))", "nn.TripletMarginWithDistanceLoss()", "nn.PReLU(2)"]:
        ours, theirs = _build(expr, tl), _build(expr, torch)
        assert list(ours.state_dict()) == list(theirs.state_dict()), expr
        assert list(ours._buffers) == list(theirs._buffers), expr


def test_nllloss2d_is_deprecated_nllloss():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead"):
        m = nn.NLLLoss2d(ignore_index=1)
    assert isinstance(m, nn.NLLLoss) and repr(m) == "NLLLoss2d()" and m.ignore_index == 1
    x, t = tl.randn(2, 3, 2, 2).log_softmax(1), tl.tensor(np.array([[[0, 1], [2, 0]], [[1, 1], [2, 2]]]))
    _close(_np(m(x, t)), _np(F.nll_loss(x, t, ignore_index=1)))


def test_loss_errors():
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="MultiMarginLoss: expected weight to be None or 1D tensor, got 2D instead"):
        nn.MultiMarginLoss(weight=tl.ones(2, 2))
    with pytest.raises(ValueError, match="TripletMarginLoss: expected margin to be greater than 0, got 0 instead"):
        nn.TripletMarginLoss(margin=0)
    with pytest.raises(ValueError, match="TripletMarginWithDistanceLoss: expected margin to be greater than 0, "
                                         "got -1 instead"):
        nn.TripletMarginWithDistanceLoss(margin=-1)
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        nn.L1Loss(reduction="foo")(tl.ones(2), tl.ones(2))


# ------------------------------------------------------------------ distances
def test_distances():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    A, B = tl.tensor(a), tl.tensor(b)
    _close(_np(nn.PairwiseDistance()(A, B)), np.sqrt(((a - b + 1e-6) ** 2).sum(1)))
    _close(_np(nn.PairwiseDistance(p=1.0, keepdim=True)(A, B)), np.abs(a - b + 1e-6).sum(1, keepdims=True))
    cos0 = (a * b).sum(0) / np.linalg.norm(a, axis=0) / np.linalg.norm(b, axis=0)
    _close(_np(nn.CosineSimilarity(dim=0)(A, B)), cos0)
    _close(_np(nn.CosineSimilarity()(A, B)), (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1))


# ------------------------------------------------------------------ dropout
def test_dropout_train_and_eval():
    tl.manual_seed(0)
    x = tl.ones(4000) * 2
    m = nn.Dropout(0.25)
    out = _np(m(x))
    assert np.all(np.isclose(out, 0.0) | np.isclose(out, 2.0 / 0.75))
    assert abs((out == 0).mean() - 0.25) < 0.04
    m.eval()
    assert np.array_equal(_np(m(x)), _np(x))
    m.train()
    assert (_np(m(x)) == 0).any()
    assert np.array_equal(_np(nn.Dropout(0.0)(x)), _np(x))
    assert not _np(nn.Dropout(1.0)(x)).any()
    y = tl.ones(100)
    out = nn.Dropout(0.5, inplace=True)(y)
    assert np.array_equal(_np(y), _np(out)) and (_np(y) == 0).any()  # written in place


@pytest.mark.parametrize("cls,shape", [(nn.Dropout1d, (8, 16, 5)), (nn.Dropout2d, (8, 16, 3, 2)),
                                       (nn.Dropout3d, (8, 16, 2, 2, 2)), (nn.Dropout1d, (16, 5))])
def test_channel_dropout_zeroes_whole_channels(cls, shape):
    tl.manual_seed(1)
    m = cls(0.5)
    out = _np(m(tl.ones(*shape)))
    spatial = int(cls.__name__[-2])
    flat = out.reshape(-1, int(np.prod(shape[-spatial:])))  # one row per channel
    assert all(len(set(row.tolist())) == 1 for row in flat)  # one value per channel
    assert set(np.unique(out).tolist()) == {0.0, 2.0}
    m.eval()
    assert np.array_equal(_np(m(tl.ones(*shape))), np.ones(shape))


def test_alpha_dropout():
    tl.manual_seed(2)
    x = tl.randn(20000)
    m = nn.AlphaDropout(0.2)
    out = _np(m(x))
    # the dropped elements all take one value: a * (-alpha * scale) + b
    p, alpha = 0.2, -_ALPHA * _SCALE
    a = ((1 - p) * (1 + p * alpha ** 2)) ** -0.5
    dropped = a * alpha + (-a * alpha * p)
    assert abs(np.isclose(out, dropped, atol=1e-5).mean() - 0.2) < 0.03
    assert abs(out.mean()) < 0.05 and abs(out.std() - 1) < 0.05
    m.eval()
    assert np.array_equal(_np(m(x)), _np(x))
    fm = nn.FeatureAlphaDropout(0.5)
    out = _np(fm(tl.randn(4, 6, 5)))
    changed = np.isclose(out, -_ALPHA * _SCALE * ((0.5 * (1 + 0.5 * alpha ** 2)) ** -0.5) * 0.5, atol=1e-5)
    assert all(row.all() or not row.any() for row in changed.reshape(24, 5))
    fm.eval()
    x = tl.randn(4, 6, 5)
    assert np.array_equal(_np(fm(x)), _np(x))


def test_dropout_errors():
    for cls in (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout, nn.FeatureAlphaDropout):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
            cls(1.5)
        with pytest.raises(ValueError, match="but got -0.1"):
            cls(-0.1)
        assert cls(1).p == 1


# ------------------------------------------------------------------ padding
PADS = [
    ("nn.ConstantPad1d((1, 2), 3.5)", (2, 3, 4), lambda x: np.pad(x, [(0, 0), (0, 0), (1, 2)], constant_values=3.5)),
    ("nn.ConstantPad2d(1, -1.0)", (3, 4, 2), lambda x: np.pad(x, [(0, 0), (1, 1), (1, 1)], constant_values=-1)),
    ("nn.ConstantPad3d((1, 0, 0, 2, 1, 1), 2.0)", (1, 2, 2, 3, 2),
     lambda x: np.pad(x, [(0, 0), (0, 0), (1, 1), (0, 2), (1, 0)], constant_values=2)),
    ("nn.ZeroPad1d(2)", (3, 4), lambda x: np.pad(x, [(0, 0), (2, 2)])),
    ("nn.ZeroPad2d((1, 2, 0, 1))", (2, 3, 4), lambda x: np.pad(x, [(0, 0), (0, 1), (1, 2)])),
    ("nn.ZeroPad3d(1)", (2, 2, 2, 2), lambda x: np.pad(x, [(0, 0), (1, 1), (1, 1), (1, 1)])),
    ("nn.ReflectionPad1d((2, 1))", (2, 3, 4), lambda x: np.pad(x, [(0, 0), (0, 0), (2, 1)], mode="reflect")),
    ("nn.ReflectionPad2d(1)", (1, 2, 3, 4), lambda x: np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], mode="reflect")),
    ("nn.ReflectionPad3d(1)", (2, 3, 3, 3), lambda x: np.pad(x, [(0, 0), (1, 1), (1, 1), (1, 1)], mode="reflect")),
    ("nn.ReplicationPad1d((0, 3))", (3, 4), lambda x: np.pad(x, [(0, 0), (0, 3)], mode="edge")),
    ("nn.ReplicationPad2d((1, 2, 2, 1))", (1, 2, 3, 4),
     lambda x: np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 2)], mode="edge")),
    ("nn.ReplicationPad3d(1)", (1, 1, 2, 2, 3),
     lambda x: np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1)], mode="edge")),
    ("nn.CircularPad1d((1, 2))", (2, 3, 4), lambda x: np.pad(x, [(0, 0), (0, 0), (1, 2)], mode="wrap")),
    ("nn.CircularPad2d(1)", (2, 3, 4), lambda x: np.pad(x, [(0, 0), (1, 1), (1, 1)], mode="wrap")),
    ("nn.CircularPad3d((1, 1, 0, 1, 1, 0))", (1, 1, 2, 2, 3),
     lambda x: np.pad(x, [(0, 0), (0, 0), (1, 0), (0, 1), (1, 1)], mode="wrap")),
]


@pytest.mark.parametrize("expr,shape,ref", PADS, ids=[p[0] for p in PADS])
def test_padding(expr, shape, ref):
    x = _x(shape)
    _close(_np(_build(expr, tl)(tl.tensor(x))), ref(x))


def test_padding_errors():
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 1D input\)"):
        nn.CircularPad1d(1)(tl.ones(2))
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
        nn.CircularPad2d(1)(tl.ones(2, 2))
    with pytest.raises(ValueError, match=r"expected 4D or 5D input \(got 6D input\)"):
        nn.CircularPad3d(1)(tl.ones(1, 1, 1, 2, 2, 2))
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 1D input tensor"):
        nn.ReflectionPad1d(1)(tl.ones(2))
    with pytest.raises(NotImplementedError, match="Padding size 4 is not supported for 2D input tensor"):
        nn.ReplicationPad2d(1)(tl.ones(2, 2))
    assert nn.ConstantPad1d((1, 2, 3), 0).padding == (1, 2, 3)  # a tuple is kept as given
    assert nn.ReflectionPad2d([1, 2]).padding == (1, 2)


# ------------------------------------------------------------------ flatten, shuffles, upsampling, fold
def test_flatten_unflatten():
    x = _x((2, 3, 4, 5))
    X = tl.tensor(x)
    assert tuple(nn.Flatten()(X).shape) == (2, 60)
    _close(_np(nn.Flatten(0, 2)(X)), x.reshape(24, 5))
    _close(_np(nn.Flatten(-2)(X)), x.reshape(2, 3, 20))
    _close(_np(nn.Unflatten(2, (2, 2))(X)), x.reshape(2, 3, 2, 2, 5))
    _close(_np(nn.Unflatten(-1, [5, 1])(X)), x.reshape(2, 3, 4, 5, 1))
    _close(_np(nn.Unflatten(1, tl.Size([3, 1]))(X)), x.reshape(2, 3, 1, 4, 5))
    _close(_np(nn.Unflatten(3, (-1, 5))(X)), x.reshape(2, 3, 4, 1, 5))
    with pytest.raises(TypeError, match="unflattened_size must be a tuple of ints, but found type int"):
        nn.Unflatten(1, 2)
    with pytest.raises(TypeError,
                       match="unflattened_size must be tuple of ints, but found element of type str at pos 1"):
        nn.Unflatten(1, (2, "a"))
    with pytest.raises(IndexError, match="Dimension out of range"):
        nn.Flatten()(tl.ones(3))


def test_pixel_and_channel_shuffle():
    x = np.arange(2 * 8 * 2 * 3, dtype=np.float32).reshape(2, 8, 2, 3)
    X = tl.tensor(x)
    ps = x.reshape(2, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 6)
    _close(_np(nn.PixelShuffle(2)(X)), ps)
    _close(_np(nn.PixelUnshuffle(2)(tl.tensor(ps))), x)
    cs = x.reshape(2, 4, 2, 2, 3).transpose(0, 2, 1, 3, 4).reshape(2, 8, 2, 3)
    _close(_np(nn.ChannelShuffle(4)(X)), cs)
    _close(_np(nn.ChannelShuffle(2)(tl.tensor(x[:, :, 0]))), x[:, :, 0].reshape(2, 2, 4, 3).transpose(0, 2, 1, 3)
           .reshape(2, 8, 3))
    xg = tl.tensor(x, requires_grad=True)
    g = _x((2, 8, 2, 3))
    (nn.ChannelShuffle(4)(xg) * tl.tensor(g)).sum().backward()
    _close(_np(xg.grad), g.reshape(2, 2, 4, 2, 3).transpose(0, 2, 1, 3, 4).reshape(2, 8, 2, 3))
    with pytest.raises(RuntimeError, match=r"channel_shuffle expects input with > 2 dims, but got input with sizes "
                                           r"\[1, 4\]"):
        nn.ChannelShuffle(2)(tl.ones(1, 4))
    with pytest.raises(RuntimeError,
                       match="Number of groups to divide channels in must be positive. Value of groups:0"):
        nn.ChannelShuffle(0)(tl.ones(1, 4, 2))
    with pytest.raises(RuntimeError,
                       match="Number of channels must be divisible by groups. Got 3 channels and 2 groups."):
        nn.ChannelShuffle(2)(tl.ones(1, 3, 2))


def test_upsampling():
    x = _x((1, 2, 2, 3))
    X = tl.tensor(x)
    _close(_np(nn.Upsample(scale_factor=2)(X)), x.repeat(2, axis=2).repeat(2, axis=3))
    _close(_np(nn.UpsamplingNearest2d(size=(4, 3))(X)), x.repeat(2, axis=2))
    _close(_np(nn.Upsample(scale_factor=(1, 2))(X)), x.repeat(2, axis=3))
    # align_corners=True: 2 -> 3 samples and 3 -> 5 samples put the midpoints between the old ones
    out = _np(nn.UpsamplingBilinear2d(size=(3, 5))(X))
    rows = np.stack([x[:, :, 0], (x[:, :, 0] + x[:, :, 1]) / 2, x[:, :, 1]], axis=2)
    cols = np.stack([rows[..., 0], (rows[..., 0] + rows[..., 1]) / 2, rows[..., 1], (rows[..., 1] + rows[..., 2]) / 2,
                     rows[..., 2]], axis=3)
    _close(out, cols)
    m = nn.Upsample(scale_factor=1.5, mode="linear", align_corners=False)
    _close(_np(m(tl.tensor(x[0]))), _np(F.interpolate(tl.tensor(x[0]), scale_factor=1.5, mode="linear",
                                                      align_corners=False)))
    state = dict(m.__dict__)
    del state["recompute_scale_factor"]
    fresh = nn.Upsample.__new__(nn.Upsample)
    fresh.__setstate__(state)
    assert fresh.recompute_scale_factor is True
    with pytest.raises(TypeError):
        nn.Upsample(scale_factor=[2, 3])


def _im2col(x, k):
    n, c, h, w = x.shape
    cols = [x[:, :, i:i + k, j:j + k].reshape(n, c * k * k) for i in range(h - k + 1) for j in range(w - k + 1)]
    return np.stack(cols, axis=2)


def test_fold_unfold():
    x = _x((2, 3, 4, 5))
    cols = _im2col(x, 2)
    _close(_np(nn.Unfold(2)(tl.tensor(x))), cols)
    # Fold sums the blocks back: with all-ones columns each pixel counts the blocks covering it
    counts = _np(nn.Fold((4, 5), 2)(tl.ones(1, 4, 12)))[0, 0]
    cover = np.array([min(i, 1, 3 - i) + 1 for i in range(4)])[:, None] * \
        np.array([min(j, 1, 4 - j) + 1 for j in range(5)])[None, :]
    _close(counts, cover)
    _close(_np(nn.Fold((4, 5), 2)(tl.tensor(cols))), x * cover)
    m = nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    _close(_np(m(tl.tensor(x))), _np(F.unfold(tl.tensor(x), (2, 3), (1, 2), 1, (2, 1))))


# ------------------------------------------------------------------ the same inputs through PyTorch's modules
def _inputs(spec, rng):
    out = []
    for kind, *args in spec:
        if kind == "randn":
            out.append((rng.standard_normal(args[0]) * (args[1] if len(args) > 1 else 1.0)).astype(np.float32))
        elif kind == "rand":  # in (0.05, 0.95)
            out.append((rng.random(args[0]) * 0.9 + 0.05).astype(np.float32))
        elif kind == "sign":
            out.append(np.sign(rng.standard_normal(args[0])).astype(np.float32))
        elif kind == "int":
            out.append(rng.integers(args[0], args[1], args[2]).astype(np.int64))
        elif kind == "logsoftmax":
            z = rng.standard_normal(args[0])
            out.append((z - np.log(np.exp(z).sum(args[1], keepdims=True))).astype(np.float32))
        elif kind == "const":
            out.append(np.asarray(args[0]))
    return out


_X = [("randn", (2, 4, 3), 3.0)]
_X4 = [("randn", (2, 3, 4, 5))]
_AB = [("randn", (4, 3)), ("randn", (4, 3))]
COMPARE = [(expr.replace(".eval()", ""), _X) for expr, _ in ACTIVATIONS if expr != "nn.Softmax2d()"] + [
    ("nn.Softmax2d()", _X4),
    ("nn.Softmax(dim=0)", _X),
    ("nn.L1Loss()", _AB),
    ("nn.MSELoss(reduction='none')", _AB),
    ("nn.CrossEntropyLoss(weight=T.tensor([1., 2., .5]), label_smoothing=0.1)", [("randn", (4, 3)), ("int", 0, 3, 4)]),
    ("nn.CrossEntropyLoss(reduction='sum')", [("randn", (2, 3, 4)), ("rand", (2, 3, 4))]),
    ("nn.NLLLoss(ignore_index=1)", [("logsoftmax", (5, 3), 1), ("int", 0, 3, 5)]),
    ("nn.NLLLoss(weight=T.tensor([1., 2., .5]), reduction='none')",
     [("logsoftmax", (2, 3, 4), 1), ("int", 0, 3, (2, 4))]),
    ("nn.PoissonNLLLoss()", [("randn", (4, 3)), ("rand", (4, 3))]),
    ("nn.PoissonNLLLoss(log_input=False, full=True)", [("rand", (4, 3)), ("const", [[0., 2., 3.]] * 4)]),
    ("nn.GaussianNLLLoss(full=True)", [("randn", (4, 3)), ("randn", (4, 3)), ("rand", (4, 3))]),
    ("nn.KLDivLoss(reduction='batchmean')", [("logsoftmax", (4, 3), 1), ("rand", (4, 3))]),
    ("nn.KLDivLoss(reduction='sum', log_target=True)", [("logsoftmax", (4, 3), 1), ("logsoftmax", (4, 3), 1)]),
    ("nn.BCELoss(weight=T.tensor([1., 2., .5]))", [("rand", (4, 3)), ("rand", (4, 3))]),
    ("nn.BCEWithLogitsLoss(pos_weight=T.tensor([1., 2., .5]))", [("randn", (4, 3)), ("rand", (4, 3))]),
    ("nn.BCEWithLogitsLoss(T.tensor([3., 1., 2.]), reduction='sum')", [("randn", (4, 3)), ("rand", (4, 3))]),
    ("nn.MarginRankingLoss(0.5)", [("randn", (5,)), ("randn", (5,)), ("sign", (5,))]),
    ("nn.HingeEmbeddingLoss(margin=1.5)", [("randn", (4, 3)), ("sign", (4, 3))]),
    ("nn.MultiLabelMarginLoss()", [("randn", (2, 4)), ("const", np.array([[3, 0, -1, 1], [1, 2, 3, 0]]))]),
    ("nn.SmoothL1Loss(beta=0.5)", _AB),
    ("nn.HuberLoss(delta=0.5, reduction='sum')", _AB),
    ("nn.SoftMarginLoss()", [("randn", (4, 3)), ("sign", (4, 3))]),
    ("nn.MultiLabelSoftMarginLoss(weight=T.tensor([1., 2., .5]))", [("randn", (4, 3)), ("int", 0, 2, (4, 3))]),
    ("nn.CosineEmbeddingLoss(0.2)", [("randn", (4, 3)), ("randn", (4, 3)), ("sign", (4,))]),
    ("nn.MultiMarginLoss(p=2, margin=0.5, weight=T.tensor([1., 2., .5]))", [("randn", (4, 3)), ("int", 0, 3, 4)]),
    ("nn.TripletMarginLoss(swap=True, p=1.0)", [("randn", (4, 3)), ("randn", (4, 3)), ("randn", (4, 3))]),
    ("nn.TripletMarginWithDistanceLoss(margin=0.5)", [("randn", (4, 3)), ("randn", (4, 3)), ("randn", (4, 3))]),
    ("nn.CTCLoss(blank=0)", [("logsoftmax", (6, 2, 4), 2), ("const", np.array([[1, 2, 2], [3, 1, 0]])),
                             ("const", np.array([6, 5])), ("const", np.array([3, 2]))]),
    ("nn.CTCLoss(reduction='sum', zero_infinity=True)", [("logsoftmax", (3, 2, 4), 2),
                                                         ("const", np.array([[1, 1, 2], [3, 1, 0]])),
                                                         ("const", np.array([3, 3])), ("const", np.array([3, 2]))]),
    ("nn.PairwiseDistance(p=1.0, keepdim=True)", _AB),
    ("nn.CosineSimilarity(dim=0)", _AB),
    ("nn.Dropout()", _X),
    ("nn.AlphaDropout(0.3)", _X),
    ("nn.FeatureAlphaDropout(0.3)", _X),
    ("nn.Dropout2d(0.3)", _X4),
] + [(expr, [("randn", shape)]) for expr, shape, _ in PADS] + [
    ("nn.Flatten(0, 1)", _X4),
    ("nn.Unflatten(1, (1, 3))", _X4),
    ("nn.PixelShuffle(2)", [("randn", (1, 8, 2, 3))]),
    ("nn.PixelUnshuffle(2)", [("randn", (1, 2, 4, 6))]),
    ("nn.ChannelShuffle(3)", [("randn", (2, 6, 2))]),
    ("nn.Upsample(scale_factor=2)", _X4),
    ("nn.Upsample(size=(3, 7), mode='bilinear')", _X4),
    ("nn.Upsample(scale_factor=1.5, mode='bicubic', align_corners=True)", _X4),
    ("nn.Upsample(size=7, mode='linear')", _X),
    ("nn.Upsample(scale_factor=2, mode='nearest-exact')", _X),
    ("nn.UpsamplingNearest2d(size=(3, 4))", _X4),
    ("nn.UpsamplingBilinear2d(scale_factor=2)", _X4),
    ("nn.Fold(output_size=(4, 5), kernel_size=2)", [("randn", (2, 12, 12))]),
    ("nn.Unfold(kernel_size=(2, 3), padding=1, stride=(1, 2))", _X4),
]


@pytest.mark.parametrize("expr,spec", COMPARE, ids=[c[0] for c in COMPARE])
def test_against_torch(expr, spec):
    torch = _torch()
    arrays = _inputs(spec, np.random.default_rng(7))
    ours, theirs = _build(expr, tl).eval(), _build(expr, torch).eval()
    grads = [a.dtype == np.float32 and kind != "sign" for a, (kind, *_) in zip(arrays, spec)]
    xs = [tl.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    txs = [torch.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    out, tout = ours(*xs), theirs(*txs)
    assert tuple(out.shape) == tuple(tout.shape) and str(out.dtype).split(".")[-1] == str(tout.dtype).split(".")[-1]
    _close(_np(out), tout.detach().numpy())
    g = np.random.default_rng(8).standard_normal(tuple(tout.shape)).astype(np.float32)
    (out * tl.tensor(g)).sum().backward()
    (tout * torch.tensor(g)).sum().backward()
    for x, tx in zip(xs, txs):
        if tx.requires_grad:
            _close(_np(x.grad), tx.grad.numpy(), rtol=1e-3, atol=1e-4)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_dropout_training_statistics_against_torch():
    torch = _torch()
    p, alpha = 0.3, -_ALPHA * _SCALE
    a = ((1 - p) * (1 + p * alpha ** 2)) ** -0.5
    for expr, shape, scale, shift, dropped in [("nn.Dropout(0.3)", (4000,), 1 / 0.7, 0.0, 0.0),
                                               ("nn.Dropout2d(0.3)", (40, 50, 2, 2), 1 / 0.7, 0.0, 0.0),
                                               ("nn.AlphaDropout(0.3)", (4000,), a, -a * alpha * p,
                                                a * alpha - a * alpha * p)]:
        x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
        fractions = []
        for out in (_np(_build(expr, tl)(tl.tensor(x))), _build(expr, torch)(torch.tensor(x)).numpy()):
            kept = np.isclose(out, x * scale + shift, atol=1e-5)
            assert np.allclose(out[~kept], dropped, atol=1e-5), expr
            fractions.append(kept.mean())
        assert abs(fractions[0] - 0.7) < 0.05 and abs(fractions[1] - 0.7) < 0.05, (expr, fractions)


def test_errors_against_torch():
    torch = _torch()
    cases = [
        ("nn.Hardtanh(2, 1)", None), ("nn.Dropout(1.5)", None), ("nn.MultiMarginLoss(p=3)", None),
        ("nn.MultiMarginLoss(weight=T.ones(2, 2))", None), ("nn.TripletMarginLoss(margin=0)", None),
        ("nn.Unflatten(1, 2)", None), ("nn.Unflatten(1, (2, 'a'))", None),
        ("nn.Softmax2d()", (2, 3)), ("nn.CircularPad2d(1)", (2, 2)), ("nn.ChannelShuffle(2)", (1, 3, 2)),
        ("nn.ChannelShuffle(2)", (1, 4)), ("nn.ChannelShuffle(-1)", (1, 4, 2)),
    ]
    for expr, shape in cases:
        results = []
        for fw in (tl, torch):
            try:
                m = _build(expr, fw)
                m(fw.ones(*shape))
                results.append(None)
            except Exception as e:  # noqa: BLE001
                results.append((type(e).__name__, str(e)))
        assert results[0] is not None and results[0] == results[1], (expr, results)
