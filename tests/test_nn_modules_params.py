"""The layers with parameters and the pooling layers (torchlite.nn: linear, conv, pooling, batch/instance/
layer/group/RMS norm, LRN, embeddings, the Lazy forms): construction defaults, parameter names and shapes,
repr, forward against torchlite.nn.functional (or NumPy) with the module's own weights, gradients for every
parameter, batch-norm running statistics; and, where PyTorch is installed, the same modules with PyTorch's
weights copied in must give PyTorch's repr, state_dict keys, outputs, gradients and buffers."""
import math
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn
import torchlite.nn.functional as F


def _np(t):
    return t.detach().cpu().numpy()


def _randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _t(a, requires_grad=False):
    return tl.tensor(a, requires_grad=requires_grad)


def _grads_all_set(module, out):
    """Backpropagates a random weighting of `out`; every parameter must get a gradient of its shape."""
    g = _t(_randn(*out.shape, seed=9))
    (out * g).sum().backward()
    for name, p in module.named_parameters():
        assert p.grad is not None, name
        assert tuple(p.grad.shape) == tuple(p.shape), name
        assert np.isfinite(_np(p.grad)).all(), name


# ============================================================================ Linear, Bilinear, Identity
def test_identity():
    m = nn.Identity(54, unused="argument")
    x = tl.randn(2, 3)
    assert m(x) is x and repr(m) == "Identity()" and list(m.parameters()) == []


def test_linear():
    m = nn.Linear(5, 3)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [("weight", (3, 5)), ("bias", (3,))]
    assert repr(m) == "Linear(in_features=5, out_features=3, bias=True)"
    x = _randn(4, 5)
    out = m(_t(x))
    np.testing.assert_allclose(_np(out), x @ _np(m.weight).T + _np(m.bias), rtol=1e-5, atol=1e-6)
    assert tuple(m(_t(_randn(2, 6, 5))).shape) == (2, 6, 3) and tuple(m(_t(_randn(5))).shape) == (3,)
    _grads_all_set(m, out)
    np.testing.assert_allclose(_np(m.bias.grad), _randn(4, 3, seed=9).sum(0), rtol=1e-5)
    m = nn.Linear(5, 3, bias=False, dtype=tl.float64)
    assert m.bias is None and list(m.state_dict()) == ["weight"] and m.weight.dtype == tl.float64
    assert repr(m) == "Linear(in_features=5, out_features=3, bias=False)"
    assert m.in_features == 5 and m.out_features == 3


def test_bilinear():
    m = nn.Bilinear(3, 4, 2)
    assert tuple(m.weight.shape) == (2, 3, 4) and tuple(m.bias.shape) == (2,)
    a, b = _randn(5, 3), _randn(5, 4, seed=1)
    out = m(_t(a), _t(b))
    expected = np.einsum("ni,oij,nj->no", a, _np(m.weight), b) + _np(m.bias)
    np.testing.assert_allclose(_np(out), expected, rtol=1e-5, atol=1e-5)
    _grads_all_set(m, out)
    assert repr(nn.Bilinear(3, 4, 2, bias=False)) == "Bilinear(in1_features=3, in2_features=4, out_features=2, " \
                                                     "bias=False)"
    with pytest.raises(ValueError, match=r"^in1_features must be > 0, but got \(in1_features=0\)$"):
        nn.Bilinear(0, 4, 2)


def test_lazy_linear():
    m = nn.LazyLinear(3)
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert isinstance(m.weight, nn.UninitializedParameter) and m.has_uninitialized_params()
    x = _t(_randn(2, 7))
    out = m(x)
    assert type(m) is nn.Linear and type(m.weight) is nn.Parameter and tuple(m.weight.shape) == (3, 7)
    assert m.in_features == 7 and repr(m) == "Linear(in_features=7, out_features=3, bias=True)"
    np.testing.assert_allclose(_np(out), _np(F.linear(x, m.weight, m.bias)), rtol=1e-6)
    assert np.abs(_np(m.weight)).max() <= 1 / math.sqrt(7)
    assert not hasattr(m, "_initialize_hook") and not m._forward_pre_hooks
    m = nn.LazyLinear(2, bias=False)
    m(tl.randn(4))
    assert m.bias is None and tuple(m.weight.shape) == (2, 4)
    # Loading an initialized state_dict materializes the lazy module.
    lazy = nn.LazyLinear(3)
    src = nn.Linear(4, 3)
    lazy.load_state_dict(src.state_dict())
    np.testing.assert_array_equal(_np(lazy.weight), _np(src.weight))
    out = lazy(tl.ones(1, 4))
    assert type(lazy) is nn.Linear and lazy.in_features == 4
    np.testing.assert_allclose(_np(out), _np(src(tl.ones(1, 4))), rtol=1e-6)


# ==================================================================================== convolutions
CONV_FN = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


@pytest.mark.parametrize("cls,nd", [(nn.Conv1d, 1), (nn.Conv2d, 2), (nn.Conv3d, 3)])
def test_conv_defaults(cls, nd):
    m = cls(4, 6, 3)
    assert m.kernel_size == (3,) * nd and m.stride == (1,) * nd and m.padding == (0,) * nd
    assert m.dilation == (1,) * nd and m.output_padding == (0,) * nd and m.groups == 1
    assert m.padding_mode == "zeros" and m.transposed is False
    assert tuple(m.weight.shape) == (6, 4) + (3,) * nd and tuple(m.bias.shape) == (6,)
    k = "(" + ", ".join(["3"] * nd) + ("," if nd == 1 else "") + ")"
    s = "(" + ", ".join(["1"] * nd) + ("," if nd == 1 else "") + ")"
    assert repr(m) == f"{cls.__name__}(4, 6, kernel_size={k}, stride={s})"
    x = _t(_randn(2, 4, *([6] * nd)))
    out = m(x)
    np.testing.assert_allclose(_np(out), _np(CONV_FN[nd](x, m.weight, m.bias)), rtol=1e-6)
    _grads_all_set(m, out)


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [(1, 2), "same", "valid"])
def test_conv2d_padding_modes(mode, padding):
    m = nn.Conv2d(3, 4, (3, 4), padding=padding, dilation=(2, 1), padding_mode=mode, bias=False)
    x = _t(_randn(2, 3, 7, 8))
    out = m(x)
    if padding == "same":
        # dilation * (kernel - 1) split as evenly as possible, the extra on the right: (2, 2) and (1, 2).
        pads = [1, 2, 2, 2]
        assert tuple(out.shape) == (2, 4, 7, 8)
    elif padding == "valid":
        pads = [0, 0, 0, 0]
    else:
        pads = [2, 2, 1, 1]
    if mode == "zeros":
        padded = F.pad(x, pads)
    else:
        padded = F.pad(x, pads, mode=mode)
    np.testing.assert_allclose(_np(out), _np(F.conv2d(padded, m.weight, None, 1, 0, (2, 1))), rtol=1e-5, atol=1e-6)
    _grads_all_set(m, out)


def test_conv_unbatched_and_groups():
    m = nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2, padding_mode="circular")
    assert tuple(m.weight.shape) == (6, 2, 3)
    assert repr(m) == ("Conv1d(4, 6, kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,), groups=2, "
                       "padding_mode=circular)")
    x = _randn(4, 9)
    batched = m(_t(x[None]))
    np.testing.assert_allclose(_np(m(_t(x))), _np(batched)[0], rtol=1e-6)
    ref = F.conv1d(F.pad(_t(x[None]), [1, 1], mode="circular"), m.weight, m.bias, 2, 0, 2, 2)
    np.testing.assert_allclose(_np(batched), _np(ref), rtol=1e-6)


def test_conv_errors():
    with pytest.raises(ValueError, match="^groups must be a positive integer$"):
        nn.Conv2d(4, 4, 3, groups=0)
    with pytest.raises(ValueError, match="^in_channels must be divisible by groups$"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="^out_channels must be divisible by groups$"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="^Invalid padding string 'full', should be one of "):
        nn.Conv1d(2, 2, 3, padding="full")
    with pytest.raises(ValueError, match="^padding='same' is not supported for strided convolutions$"):
        nn.Conv2d(2, 2, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="^padding_mode must be one of .*, but got padding_mode='mirror'$"):
        nn.Conv3d(2, 2, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match='^Only "zeros" padding mode is supported for ConvTranspose2d$'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_transpose(nd):
    cls = {1: nn.ConvTranspose1d, 2: nn.ConvTranspose2d, 3: nn.ConvTranspose3d}[nd]
    fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[nd]
    m = cls(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    assert tuple(m.weight.shape) == (4, 3) + (3,) * nd and m.transposed
    x = _t(_randn(2, 4, *([3] * nd)))
    out = m(x)
    assert tuple(out.shape) == (2, 6) + (6,) * nd
    np.testing.assert_allclose(_np(out), _np(fn(x, m.weight, m.bias, 2, 1, 1, 2)), rtol=1e-5, atol=1e-6)
    _grads_all_set(m, out)


def test_conv_transpose_output_size():
    m = nn.ConvTranspose2d(2, 3, 3, stride=3, padding=1)
    x = _t(_randn(1, 2, 4, 4))
    assert tuple(m(x).shape) == (1, 3, 10, 10)
    for size in ([10, 12], [1, 3, 12, 11], (11, 10)):
        out = m(x, output_size=size)
        assert tuple(out.shape[2:]) == tuple(size[-2:])
        extra = [s - 10 for s in size[-2:]]
        np.testing.assert_allclose(_np(out), _np(F.conv_transpose2d(x, m.weight, m.bias, 3, 1, extra)), rtol=1e-6)
    assert tuple(m(x[0], output_size=[3, 11, 12]).shape) == (3, 11, 12)
    with pytest.raises(ValueError, match=r"^requested an output size of \[13, 10\], but valid sizes range from "
                                         r"\[10, 10\] to \[12, 12\] \(for an input of torchlite.Size\(\[4, 4\]\)\)$"):
        m(x, output_size=[13, 10])
    with pytest.raises(ValueError, match=r"^ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements "
                                         r"\(got 3\)$"):
        m(x, output_size=[3, 10, 10])
    m.padding_mode = "reflect"
    with pytest.raises(ValueError, match="^Only `zeros` padding mode is supported for ConvTranspose2d$"):
        m(x)


@pytest.mark.parametrize("cls,base,shape", [(nn.LazyConv1d, nn.Conv1d, (2, 3, 8)), (nn.LazyConv2d, nn.Conv2d, (3, 6, 6)),
                                            (nn.LazyConv3d, nn.Conv3d, (1, 3, 4, 4, 4)),
                                            (nn.LazyConvTranspose2d, nn.ConvTranspose2d, (2, 3, 4, 4))])
def test_lazy_conv(cls, base, shape):
    m = cls(4, 3, groups=1)
    assert m.has_uninitialized_params() and m.in_channels == 0
    x = _t(_randn(*shape))
    out = m(x)
    assert type(m) is base and m.in_channels == 3
    expected_w = (3, 4) if m.transposed else (4, 3)
    assert tuple(m.weight.shape[:2]) == expected_w
    again = m(x)
    np.testing.assert_array_equal(_np(out), _np(again))
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to LazyConv2d"):
        nn.LazyConv2d(4, 3)(tl.randn(3, 4))


# ========================================================================================= pooling
POOLS = [
    ("MaxPool1d(3, 2, 1)", lambda x: F.max_pool1d(x, 3, 2, 1), (2, 3, 9)),
    ("MaxPool2d(3, stride=2, padding=1, dilation=2, ceil_mode=True)",
     lambda x: F.max_pool2d(x, 3, 2, 1, 2, True), (2, 3, 9, 8)),
    ("MaxPool3d(2)", lambda x: F.max_pool3d(x, 2), (1, 2, 4, 4, 6)),
    ("AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False)",
     lambda x: F.avg_pool1d(x, 3, 2, 1, True, False), (2, 3, 10)),
    ("AvgPool2d(3, 2, 1, divisor_override=2)", lambda x: F.avg_pool2d(x, 3, 2, 1, False, True, 2), (2, 3, 7, 6)),
    ("AvgPool3d((1, 2, 2))", lambda x: F.avg_pool3d(x, (1, 2, 2)), (1, 2, 3, 4, 4)),
    ("LPPool1d(2, 3, 2)", lambda x: F.lp_pool1d(x, 2.0, 3, 2), (2, 3, 9)),
    ("LPPool2d(1.5, 2)", lambda x: F.lp_pool2d(x, 1.5, 2), (2, 3, 6, 6)),
    ("LPPool3d(2, 2)", lambda x: F.lp_pool3d(x, 2.0, 2), (1, 2, 4, 4, 4)),
    ("AdaptiveMaxPool1d(4)", lambda x: F.adaptive_max_pool1d(x, 4), (2, 3, 9)),
    ("AdaptiveMaxPool2d((None, 3))", lambda x: F.adaptive_max_pool2d(x, (None, 3)), (2, 3, 5, 7)),
    ("AdaptiveMaxPool3d(2)", lambda x: F.adaptive_max_pool3d(x, 2), (1, 2, 5, 4, 3)),
    ("AdaptiveAvgPool1d(4)", lambda x: F.adaptive_avg_pool1d(x, 4), (2, 3, 9)),
    ("AdaptiveAvgPool2d((2, 3))", lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (2, 3, 5, 7)),
    ("AdaptiveAvgPool3d((2, None, 1))", lambda x: F.adaptive_avg_pool3d(x, (2, None, 1)), (1, 2, 5, 4, 3)),
]


@pytest.mark.parametrize("expr,ref,shape", POOLS, ids=[p[0] for p in POOLS])
def test_pooling_matches_functional(expr, ref, shape):
    m = eval("nn." + expr)
    x = _t(np.abs(_randn(*shape)) + 0.1, requires_grad=True)
    out = m(x)
    np.testing.assert_allclose(_np(out), _np(ref(x)), rtol=1e-6)
    out.sum().backward()
    assert x.grad is not None and list(m.parameters()) == [] and list(m.state_dict()) == []


def test_pooling_reprs_and_attributes():
    assert repr(nn.MaxPool2d(3)) == "MaxPool2d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool1d(2)) == "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))"
    assert repr(nn.AvgPool2d(2, 1)) == "AvgPool2d(kernel_size=2, stride=1, padding=0)"
    assert repr(nn.MaxUnpool2d(2)) == "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))"
    assert repr(nn.LPPool2d(2, 3)) == "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    assert repr(nn.AdaptiveAvgPool2d((None, 3))) == "AdaptiveAvgPool2d(output_size=(None, 3))"
    assert repr(nn.FractionalMaxPool2d(2, output_ratio=0.5)) == "FractionalMaxPool2d()"
    m = nn.FractionalMaxPool3d(2, output_size=3)
    assert m.kernel_size == (2, 2, 2) and m.output_size == (3, 3, 3) and m.output_ratio is None
    assert "_random_samples" in m._buffers and list(m.state_dict()) == []


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_round_trip(nd):
    pool = [nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d][nd - 1](2, return_indices=True)
    unpool = [nn.MaxUnpool1d, nn.MaxUnpool2d, nn.MaxUnpool3d][nd - 1](2)
    x = _t(_randn(1, 2, *([4] * nd)))
    out, idx = pool(x)
    back = unpool(out, idx)
    assert tuple(back.shape) == tuple(x.shape)
    xs, bs = _np(x), _np(back)
    kept = bs != 0
    np.testing.assert_array_equal(bs[kept], xs[kept])
    assert kept.sum() == out.numel()
    bigger = unpool(out, idx, output_size=[5] * nd)
    assert tuple(bigger.shape[2:]) == (5,) * nd


def test_fractional_max_pool():
    samples = tl.tensor([[[0.3, 0.7], [0.1, 0.9]]])
    m = nn.FractionalMaxPool2d(2, output_size=(3, 4), return_indices=True, _random_samples=samples)
    x = _t(_randn(1, 2, 7, 8), requires_grad=True)
    out, idx = m(x)
    ref, ref_idx = F.fractional_max_pool2d(x, 2, (3, 4), None, True, _random_samples=samples)
    np.testing.assert_array_equal(_np(out), _np(ref))
    np.testing.assert_array_equal(_np(idx), _np(ref_idx))
    assert tuple(nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(tl.randn(1, 1, 8, 10)).shape) == (1, 1, 4, 5)
    with pytest.raises(ValueError, match="^FractionalMaxPool2d requires specifying either an output size, or a "
                                         "pooling ratio$"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="^only one of output_size and output_ratio may be specified$"):
        nn.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5)
    with pytest.raises(ValueError, match=r"^output_ratio must be between 0 and 1 \(got 1.5\)$"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(ValueError, match="^kernel_size must be greater than 0, but got 0$"):
        nn.FractionalMaxPool3d(0, output_size=2)


# ===================================================================================== batch norm
def _bn_reference(x, axes, mean_before, var_before, momentum, eps=1e-5):
    mean = x.mean(axis=axes)
    var = x.var(axis=axes)
    n = x.size // x.shape[1]
    unbiased = var * n / (n - 1)
    shape = [1] * x.ndim
    shape[1] = -1
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return y, (1 - momentum) * mean_before + momentum * mean, (1 - momentum) * var_before + momentum * unbiased


@pytest.mark.parametrize("cls,shape", [(nn.BatchNorm1d, (6, 3)), (nn.BatchNorm1d, (4, 3, 5)),
                                       (nn.BatchNorm2d, (4, 3, 2, 3)), (nn.BatchNorm3d, (2, 3, 2, 2, 3)),
                                       (nn.SyncBatchNorm, (4, 3, 2, 3))])
def test_batch_norm_train_and_eval(cls, shape):
    m = cls(3)
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert m.num_batches_tracked.dtype == tl.int64 and m.num_batches_tracked.dim() == 0
    with tl.no_grad():
        m.weight.copy_(tl.tensor([1.0, 2.0, 0.5]))
        m.bias.copy_(tl.tensor([0.0, -1.0, 3.0]))
    rm, rv = m.running_mean, m.running_var
    x = _randn(*shape) * 2 + 1
    axes = tuple(i for i in range(len(shape)) if i != 1)
    out = m(_t(x))
    y, mean, var = _bn_reference(x, axes, np.zeros(3), np.ones(3), 0.1)
    cshape = [1] * len(shape)
    cshape[1] = -1
    w, b = np.array([1.0, 2.0, 0.5]).reshape(cshape), np.array([0.0, -1.0, 3.0]).reshape(cshape)
    np.testing.assert_allclose(_np(out), y * w + b, rtol=1e-4, atol=1e-5)
    assert m.running_mean is rm and m.running_var is rv  # updated in place
    np.testing.assert_allclose(_np(rm), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(rv), var, rtol=1e-5, atol=1e-6)
    assert int(m.num_batches_tracked) == 1
    _grads_all_set(m, out)
    m.eval()
    x2 = _randn(*shape, seed=3)
    out = m(_t(x2))
    np.testing.assert_allclose(_np(out), (x2 - mean.reshape(cshape)) / np.sqrt(var.reshape(cshape) + 1e-5) * w + b,
                               rtol=1e-4, atol=1e-5)
    assert int(m.num_batches_tracked) == 1
    np.testing.assert_allclose(_np(rm), mean, rtol=1e-5, atol=1e-6)


def test_batch_norm_momentum_none_is_a_cumulative_average():
    m = nn.BatchNorm1d(2, momentum=None, affine=False)
    assert repr(m) == "BatchNorm1d(2, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=True)"
    means, vars_ = [], []
    for seed in range(3):
        x = _randn(5, 2, seed=seed) + seed
        m(_t(x))
        means.append(x.mean(0))
        vars_.append(x.var(0, ddof=1))
    assert int(m.num_batches_tracked) == 3
    np.testing.assert_allclose(_np(m.running_mean), np.mean(means, 0), rtol=1e-5, atol=1e-6)
    # The average includes the initial running_var of 1 weighted as nothing: 1/n at step n.
    np.testing.assert_allclose(_np(m.running_var), np.mean(vars_, 0), rtol=1e-5)


def test_batch_norm_without_running_stats_or_affine():
    m = nn.BatchNorm2d(3, track_running_stats=False, affine=False)
    assert m.running_mean is None and m.num_batches_tracked is None and m.weight is None
    assert list(m.state_dict()) == [] and list(m.parameters()) == []
    x = _randn(2, 3, 2, 2)
    y, _, _ = _bn_reference(x, (0, 2, 3), 0, 0, 0.1)
    for mode in (True, False):  # batch statistics in eval too
        m.train(mode)
        np.testing.assert_allclose(_np(m(_t(x))), y, rtol=1e-4, atol=1e-5)
    m = nn.BatchNorm1d(3, bias=False)
    assert m.bias is None and list(m.state_dict()) == ["weight", "running_mean", "running_var",
                                                        "num_batches_tracked"]


@pytest.mark.parametrize("cls,ndim,text", [(nn.BatchNorm1d, 4, "2D or 3D"), (nn.BatchNorm2d, 3, "4D"),
                                           (nn.BatchNorm3d, 4, "5D"), (nn.SyncBatchNorm, 1, "at least 2D"),
                                           (nn.LazyBatchNorm2d, 5, "4D")])
def test_batch_norm_input_dim_errors(cls, ndim, text):
    m = cls() if cls is nn.LazyBatchNorm2d else cls(2)
    with pytest.raises(ValueError, match=f"^expected {text} input \\(got {ndim}D input\\)$"):
        m(tl.randn(*([2] * ndim)))


def test_batch_norm_loads_old_state_dict_without_num_batches_tracked():
    src = nn.BatchNorm1d(3)
    src(tl.randn(4, 3))
    sd = src.state_dict()
    assert int(sd["num_batches_tracked"]) == 1
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1
    dst = nn.BatchNorm1d(3)
    dst.load_state_dict(sd)
    np.testing.assert_array_equal(_np(dst.running_mean), _np(src.running_mean))
    assert int(dst.num_batches_tracked) == 0
    # Version 2 state dicts must have it.
    sd._metadata[""]["version"] = 2
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
        nn.BatchNorm1d(3).load_state_dict(sd)
    assert src._version == 2 and src.state_dict()._metadata[""]["version"] == 2


def test_batch_norm_reset_and_dtypes():
    m = nn.BatchNorm1d(2, dtype=tl.float64)
    assert m.weight.dtype == tl.float64 and m.running_mean.dtype == tl.float64
    assert m.num_batches_tracked.dtype == tl.int64
    m(tl.randn(3, 2, dtype=tl.float64))
    m.reset_running_stats()
    assert int(m.num_batches_tracked) == 0 and (_np(m.running_var) == 1).all() and (_np(m.running_mean) == 0).all()
    m.double()
    assert m.num_batches_tracked.dtype == tl.int64


def test_lazy_batch_norm():
    m = nn.LazyBatchNorm1d()
    assert isinstance(m.running_mean, nn.UninitializedBuffer)
    x = _randn(5, 4)
    out = m(_t(x))
    assert type(m) is nn.BatchNorm1d and m.num_features == 4 and tuple(m.running_var.shape) == (4,)
    assert int(m.num_batches_tracked) == 1
    np.testing.assert_allclose(_np(m.running_mean), 0.1 * x.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(out), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    assert (_np(m.weight) == 1).all()
    m = nn.LazyInstanceNorm2d(affine=False)
    m(tl.randn(3, 5, 5))
    assert type(m) is nn.InstanceNorm2d and m.num_features == 3


def test_convert_sync_batchnorm():
    net = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3), nn.Sequential(nn.BatchNorm1d(4, momentum=None)))
    bn = net[1]
    bn(tl.randn(2, 3, 2, 2))
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert out is net and type(net[1]) is nn.SyncBatchNorm and type(net[2][0]) is nn.SyncBatchNorm
    assert net[1].weight is bn.weight and net[1].running_mean is bn.running_mean
    assert int(net[1].num_batches_tracked) == 1 and net[2][0].momentum is None
    assert list(net.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                      "1.running_var", "1.num_batches_tracked", "2.0.weight", "2.0.bias",
                                      "2.0.running_mean", "2.0.running_var", "2.0.num_batches_tracked"]
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm3d(2, affine=False))
    assert type(single) is nn.SyncBatchNorm and single.weight is None
    with pytest.raises(ValueError, match="^SyncBatchNorm number of input channels should be non-zero$"):
        nn.SyncBatchNorm(0)(tl.randn(2, 0, 3))


# ================================================================================== instance norm
@pytest.mark.parametrize("cls,shape", [(nn.InstanceNorm1d, (2, 3, 5)), (nn.InstanceNorm2d, (2, 3, 4, 3)),
                                       (nn.InstanceNorm3d, (1, 3, 2, 3, 2))])
def test_instance_norm(cls, shape):
    m = cls(3)
    assert m.weight is None and m.running_mean is None and list(m.state_dict()) == []
    x = _randn(*shape)
    axes = tuple(range(2, len(shape)))
    ref = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(_np(m(_t(x))), ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(m(_t(x[0]))), ref[0], rtol=1e-4, atol=1e-5)  # unbatched
    m = cls(3, affine=True, track_running_stats=True, momentum=0.5)
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    out = m(_t(x))
    _grads_all_set(m, out)
    mean = x.mean(axes).mean(0)
    np.testing.assert_allclose(_np(m.running_mean), 0.5 * mean, rtol=1e-5, atol=1e-6)
    m.eval()
    x2 = _randn(*shape, seed=4)
    rm, rv = _np(m.running_mean).reshape(1, 3, *([1] * len(axes))), _np(m.running_var).reshape(1, 3, *([1] * len(axes)))
    np.testing.assert_allclose(_np(m(_t(x2))), (x2 - rm) / np.sqrt(rv + 1e-5), rtol=1e-4, atol=1e-5)


def test_instance_norm_checks():
    with pytest.raises(ValueError, match=r"^expected 3D or 4D input \(got 2D input\)$"):
        nn.InstanceNorm2d(3)(tl.randn(3, 4))
    with pytest.raises(ValueError, match=r"^expected input's size at dim=1 to match num_features \(4\), but got: 3.$"):
        nn.InstanceNorm1d(4, affine=True)(tl.randn(2, 3, 5))
    with pytest.warns(UserWarning, match="input's size at dim=0 does not match num_features"):
        nn.InstanceNorm1d(4)(tl.randn(3, 5))
    assert repr(nn.InstanceNorm2d(3)) == ("InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
                                          "track_running_stats=False)")
    # Pre-0.4 checkpoints with running stats for an instance norm that does not track them.
    sd = OrderedDict(running_mean=tl.zeros(3), running_var=tl.ones(3))
    with pytest.raises(RuntimeError, match='Unexpected running stats buffer\\(s\\) "running_mean" and "running_var" '
                                           'for InstanceNorm1d with track_running_stats=False'):
        nn.InstanceNorm1d(3).load_state_dict(sd)


# ======================================================================== layer, group, RMS norm, LRN
def test_layer_norm():
    m = nn.LayerNorm([3, 4])
    assert m.normalized_shape == (3, 4) and tuple(m.weight.shape) == (3, 4)
    assert repr(m) == "LayerNorm((3, 4), eps=1e-05, elementwise_affine=True, bias=True)"
    with tl.no_grad():
        m.weight.uniform_()
        m.bias.uniform_()
    x = _randn(2, 3, 4)
    ref = (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-5)
    out = m(_t(x))
    np.testing.assert_allclose(_np(out), ref * _np(m.weight) + _np(m.bias), rtol=1e-4, atol=1e-5)
    _grads_all_set(m, out)
    m = nn.LayerNorm(4, elementwise_affine=False)
    assert m.weight is None and m.bias is None and m.normalized_shape == (4,)
    assert nn.LayerNorm(4, bias=False).bias is None


def test_group_norm():
    m = nn.GroupNorm(2, 6)
    with tl.no_grad():
        m.weight.uniform_()
    x = _randn(2, 6, 5)
    g = x.reshape(2, 2, 15)
    ref = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)).reshape(2, 6, 5)
    out = m(_t(x))
    np.testing.assert_allclose(_np(out), ref * _np(m.weight)[:, None], rtol=1e-4, atol=1e-5)
    _grads_all_set(m, out)
    with pytest.raises(ValueError, match=r"^num_channels \(5\) must be divisible by num_groups \(2\)$"):
        nn.GroupNorm(2, 5)
    assert repr(nn.GroupNorm(1, 4, affine=False)) == "GroupNorm(1, 4, eps=1e-05, affine=False, bias=False)"


def test_rms_norm():
    m = nn.RMSNorm(4)
    assert m.eps is None and repr(m) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    x = _randn(3, 4)
    eps = np.finfo(np.float32).eps
    out = m(_t(x))
    np.testing.assert_allclose(_np(out), x / np.sqrt((x * x).mean(-1, keepdims=True) + eps), rtol=1e-5)
    _grads_all_set(m, out)
    m = nn.RMSNorm([2, 4], eps=0.5, elementwise_affine=False)
    x = _randn(3, 2, 4)
    np.testing.assert_allclose(_np(m(_t(x))), x / np.sqrt((x * x).mean((1, 2), keepdims=True) + 0.5), rtol=1e-5)
    assert list(m.parameters()) == []


def test_local_response_norm():
    m = nn.LocalResponseNorm(3, alpha=0.1, beta=0.5, k=2.0)
    x = _t(_randn(2, 5, 3, 3))
    np.testing.assert_allclose(_np(m(x)), _np(F.local_response_norm(x, 3, 0.1, 0.5, 2.0)), rtol=1e-6)
    assert repr(m) == "LocalResponseNorm(3, alpha=0.1, beta=0.5, k=2.0)"


def _cross_map_lrn_reference(x, size, alpha, beta, k):
    # The running channel sum of PyTorch's legacy CrossMapLRN2d, step by step.
    sq = x * x
    c = x.shape[1]
    pre = int((size - 1) / 2 + 1)
    scale = np.zeros_like(x)
    scale[:, 0] = sq[:, :min(pre, c)].sum(1)
    for ch in range(1, c):
        scale[:, ch] = scale[:, ch - 1]
        if ch < c - pre + 1:
            scale[:, ch] += sq[:, ch + pre - 1]
        if ch > pre:
            scale[:, ch] -= sq[:, ch - pre]
    return x * (scale * alpha / size + k) ** -beta


@pytest.mark.parametrize("size,channels", [(3, 6), (5, 4), (2, 7), (1, 3)])
def test_cross_map_lrn2d(size, channels):
    m = nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5)
    x = _t(_randn(2, channels, 2, 3), requires_grad=True)
    out = m(x)
    np.testing.assert_allclose(_np(out), _cross_map_lrn_reference(_np(x), size, 0.5, 0.75, 1.5), rtol=1e-5, atol=1e-6)
    g = _randn(*out.shape, seed=5)
    (out * _t(g)).sum().backward()
    # PyTorch's hand-written gradient: scale^-beta * g - 2 alpha beta / size * x * (sum of g * out / scale over
    # channels [c - post, c - post + size - 1]).
    xs, os_ = _np(x), _np(out)
    scale = (xs / os_) ** (1 / 0.75)
    ratio = g * os_ / scale
    post = int(size - (size - 1) / 2)
    accum = np.stack([ratio[:, max(c - post, 0):max(c - post + size, 0)].sum(1) for c in range(channels)], 1)
    expected = scale ** -0.75 * g - 2 * 0.5 * 0.75 / size * xs * accum
    np.testing.assert_allclose(_np(x.grad), expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="^CrossMapLRN2d: Expected input to be 4D, got 3D instead.$"):
        m(tl.randn(2, 3, 4))
    assert repr(nn.CrossMapLRN2d(3)) == "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"


# ===================================================================================== embeddings
def test_embedding():
    m = nn.Embedding(10, 3, padding_idx=-2)
    assert m.padding_idx == 8 and tuple(m.weight.shape) == (10, 3)
    assert (_np(m.weight)[8] == 0).all() and (_np(m.weight)[:8] != 0).all()
    assert repr(m) == "Embedding(10, 3, padding_idx=8)"
    idx = np.array([[1, 8, 3], [8, 1, 0]])
    out = m(_t(idx))
    np.testing.assert_array_equal(_np(out), _np(m.weight)[idx])
    out.sum().backward()
    grad = _np(m.weight.grad)
    assert (grad[8] == 0).all() and (grad[1] == 2).all() and (grad[5] == 0).all()
    with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
        nn.Embedding(4, 2, padding_idx=4)
    with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
        nn.Embedding(4, 2, padding_idx=-5)
    m = nn.Embedding(4, 2, sparse=True)
    assert repr(m) == "Embedding(4, 2, sparse=True)" and m.sparse
    m(tl.tensor([1, 1])).sum().backward()  # the gradient's own tests: tests/test_sparse.py
    assert m.weight.grad.is_sparse and m.weight.grad.to_dense().tolist() == [[0, 0], [2, 2], [0, 0], [0, 0]]


def test_embedding_max_norm_and_scale_grad():
    m = nn.Embedding(5, 4, max_norm=1.0, scale_grad_by_freq=True)
    with tl.no_grad():
        m.weight.mul_(3)
    idx = _t(np.array([0, 0, 2]))
    out = m(idx)
    norms = np.linalg.norm(_np(m.weight), axis=1)
    assert norms[0] == pytest.approx(1.0, rel=1e-4) and norms[2] == pytest.approx(1.0, rel=1e-4)
    assert norms[1] > 1.0  # rows not looked up are left as they were
    out.sum().backward()
    np.testing.assert_allclose(_np(m.weight.grad)[0], np.ones(4))  # 2 uses / frequency 2
    assert repr(m) == "Embedding(5, 4, max_norm=1.0, scale_grad_by_freq=True)"


def test_embedding_from_pretrained():
    w = tl.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    m = nn.Embedding.from_pretrained(w)
    assert not m.weight.requires_grad and m.num_embeddings == 3 and m.embedding_dim == 2
    np.testing.assert_array_equal(_np(m(_t(np.array([2, 0])))), [[5, 6], [1, 2]])
    m = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
    assert m.weight.requires_grad and m.padding_idx == 1
    assert (_np(m.weight)[1] == [3, 4]).all()  # the given weight is not zeroed
    with pytest.raises(AssertionError, match="^Embeddings parameter is expected to be 2-dimensional$"):
        nn.Embedding.from_pretrained(tl.ones(3))
    with pytest.raises(AssertionError, match="^Shape of weight does not match num_embeddings and embedding_dim$"):
        nn.Embedding(3, 3, _weight=w)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    m = nn.EmbeddingBag(10, 3, mode=mode)
    assert repr(m) == f"EmbeddingBag(10, 3, mode='{mode}')"
    w = _np(m.weight)
    reduce = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode]
    idx = np.array([[1, 2, 4], [4, 3, 9]])
    out = m(_t(idx))
    np.testing.assert_allclose(_np(out), reduce(w[idx], axis=1), rtol=1e-6)
    flat = np.array([1, 2, 4, 5, 4, 3, 2])
    offsets = np.array([0, 2, 2, 5])
    out = m(_t(flat), _t(offsets))
    bags = [flat[0:2], flat[2:2], flat[2:5], flat[5:]]
    expected = np.stack([reduce(w[b], axis=0) if len(b) else np.zeros(3, np.float32) for b in bags])
    np.testing.assert_allclose(_np(out), expected, rtol=1e-6)
    _grads_all_set(m, out)


def test_embedding_bag_options():
    m = nn.EmbeddingBag(6, 2, mode="sum", padding_idx=0, include_last_offset=True)
    assert (_np(m.weight)[0] == 0).all()
    w = _np(m.weight)
    flat = np.array([0, 1, 2, 3, 1])
    psw = np.array([2.0, 1.0, -1.0, 0.5, 3.0], np.float32)
    out = m(_t(flat), _t(np.array([0, 3, 5])), per_sample_weights=_t(psw))
    expected = np.stack([w[1] - w[2], 0.5 * w[3] + 3 * w[1]])
    np.testing.assert_allclose(_np(out), expected, rtol=1e-5, atol=1e-6)
    assert repr(m) == "EmbeddingBag(6, 2, mode='sum', padding_idx=0)"
    m = nn.EmbeddingBag.from_pretrained(tl.ones(4, 2), mode="max", max_norm=2.0, norm_type=1.0)
    assert not m.weight.requires_grad and repr(m) == "EmbeddingBag(4, 2, max_norm=2.0, norm_type=1.0, mode='max')"
    with pytest.raises(AssertionError, match="^padding_idx must be within num_embeddings$"):
        nn.EmbeddingBag(4, 2, padding_idx=4)


# ============================================================================ module-level behaviour
def test_pickle_and_reset_parameters():
    for m in (nn.Linear(3, 2), nn.Conv2d(2, 2, 3, padding="same", padding_mode="reflect"), nn.BatchNorm1d(3),
              nn.Embedding(4, 2, padding_idx=1), nn.LayerNorm(3), nn.MaxPool2d(2)):
        clone = pickle.loads(pickle.dumps(m))
        assert repr(clone) == repr(m)
        for (k, a), (_, b) in zip(m.state_dict().items(), clone.state_dict().items()):
            np.testing.assert_array_equal(_np(a), _np(b), err_msg=k)
    m = nn.Embedding(4, 2, padding_idx=1)
    m.reset_parameters()
    assert (_np(m.weight)[1] == 0).all()


def test_float64_modules():
    for m, x in [(nn.Linear(3, 2, dtype=tl.float64), tl.randn(2, 3, dtype=tl.float64)),
                 (nn.Conv1d(2, 2, 3, dtype=tl.float64), tl.randn(1, 2, 5, dtype=tl.float64)),
                 (nn.LayerNorm(3, dtype=tl.float64), tl.randn(2, 3, dtype=tl.float64)),
                 (nn.Embedding(3, 2, dtype=tl.float64), tl.tensor([0, 2]))]:
        assert m(x).dtype == tl.float64


# ====================================================================================== vs PyTorch
def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")


def _load_torch_weights(ours, theirs):
    ours.load_state_dict(OrderedDict((k, tl.tensor(v.detach().numpy().copy())) for k, v in theirs.state_dict().items()))


def _as_pair(torch, a, grad):
    if isinstance(a, np.ndarray):
        g = grad and a.dtype.kind == "f"
        return tl.tensor(a, requires_grad=g), torch.tensor(a, requires_grad=g)
    return a, a


def _check_against_torch(expr, inputs, kwargs=None, train=True, steps=1, rtol=1e-4, atol=1e-5):
    torch = _torch()
    theirs = eval(expr, {"nn": torch.nn, "torch": torch})
    ours = eval(expr, {"nn": nn, "torch": tl})
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    _load_torch_weights(ours, theirs)
    ours.train(train)
    theirs.train(train)
    kwargs = kwargs or {}
    for step in range(steps):
        pairs = [_as_pair(torch, a, True) for a in inputs]
        kw_pairs = {k: _as_pair(torch, v, False) for k, v in kwargs.items()}
        out_l = ours(*[p[0] for p in pairs], **{k: v[0] for k, v in kw_pairs.items()})
        out_t = theirs(*[p[1] for p in pairs], **{k: v[1] for k, v in kw_pairs.items()})
        outs_l = out_l if isinstance(out_l, tuple) else (out_l,)
        outs_t = out_t if isinstance(out_t, tuple) else (out_t,)
        for a, b in zip(outs_l, outs_t):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(_np(a), b.detach().numpy(), rtol=rtol, atol=atol, err_msg=expr)
        g = _randn(*outs_t[0].shape, seed=11 + step)
        if outs_t[0].requires_grad:
            (outs_l[0] * tl.tensor(g)).sum().backward()
            (outs_t[0] * torch.tensor(g)).sum().backward()
            for (pl, pt) in pairs:
                if isinstance(pt, torch.Tensor) and pt.requires_grad:
                    np.testing.assert_allclose(_np(pl.grad), pt.grad.numpy(), rtol=rtol, atol=atol, err_msg=expr)
            for (n, pl), (_, pt) in zip(ours.named_parameters(), theirs.named_parameters()):
                if pt.grad is None:
                    assert pl.grad is None, n
                else:
                    np.testing.assert_allclose(_np(pl.grad), pt.grad.numpy(), rtol=rtol, atol=atol,
                                               err_msg=f"{expr}: {n}")
        for (k, a), (k2, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            assert k == k2
            np.testing.assert_allclose(_np(a), b.numpy(), rtol=rtol, atol=atol, err_msg=f"{expr}: {k}")
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    return ours, theirs


_I = np.array
TORCH_CASES = [
    ("nn.Linear(5, 3)", [_randn(4, 5)]), ("nn.Linear(5, 3, bias=False)", [_randn(2, 3, 5)]),
    ("nn.Linear(5, 3)", [_randn(5)]), ("nn.Bilinear(3, 4, 2)", [_randn(5, 3), _randn(5, 4, seed=1)]),
    ("nn.Identity()", [_randn(2, 2)]),
    ("nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2)", [_randn(2, 4, 11)]),
    ("nn.Conv1d(3, 2, 4, padding='same', padding_mode='reflect')", [_randn(2, 3, 9)]),
    ("nn.Conv2d(3, 4, (3, 2), padding=(1, 2), padding_mode='circular')", [_randn(2, 3, 6, 7)]),
    ("nn.Conv2d(3, 4, 3, padding='same', dilation=2, padding_mode='replicate')", [_randn(2, 3, 6, 7)]),
    ("nn.Conv2d(3, 4, 4, padding='same', bias=False)", [_randn(3, 6, 7)]),
    ("nn.Conv2d(4, 4, 3, stride=(2, 1), padding='valid', groups=4)", [_randn(1, 4, 7, 6)]),
    ("nn.Conv3d(2, 4, (2, 3, 3), padding=1, padding_mode='reflect')", [_randn(1, 2, 4, 5, 5)]),
    ("nn.ConvTranspose1d(4, 2, 3, stride=2, padding=1, output_padding=1)", [_randn(2, 4, 5)]),
    ("nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2, dilation=2)", [_randn(2, 4, 4, 5)]),
    ("nn.ConvTranspose3d(2, 3, 2, stride=2, bias=False)", [_randn(1, 2, 2, 3, 2)]),
    ("nn.MaxPool2d(3, 2, 1, return_indices=True, ceil_mode=True)", [_randn(2, 3, 7, 8)]),
    ("nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False)", [_randn(2, 3, 10)]),
    ("nn.AvgPool3d(2, divisor_override=3)", [_randn(1, 2, 4, 4, 4)]),
    ("nn.LPPool2d(2, 3, 2)", [_randn(1, 2, 7, 7)]), ("nn.AdaptiveMaxPool2d((3, None), True)", [_randn(2, 2, 7, 5)]),
    ("nn.AdaptiveAvgPool3d((2, 3, 1))", [_randn(1, 2, 5, 4, 3)]),
    ("nn.BatchNorm1d(3)", [_randn(6, 3)]), ("nn.BatchNorm1d(3, momentum=None)", [_randn(4, 3, 5)]),
    ("nn.BatchNorm2d(3, affine=False, eps=1e-3)", [_randn(4, 3, 2, 3)]),
    ("nn.BatchNorm3d(2, track_running_stats=False, bias=False)", [_randn(2, 2, 2, 2, 3)]),
    ("nn.SyncBatchNorm(3, momentum=0.3)", [_randn(4, 3, 2, 2)]),
    ("nn.InstanceNorm1d(3)", [_randn(2, 3, 5)]),
    ("nn.InstanceNorm2d(3, affine=True, track_running_stats=True)", [_randn(2, 3, 4, 3)]),
    ("nn.InstanceNorm3d(2, affine=True)", [_randn(2, 2, 2, 3, 2)]),
    ("nn.LayerNorm([3, 4])", [_randn(2, 3, 4)]), ("nn.LayerNorm(4, bias=False, eps=1e-3)", [_randn(2, 4)]),
    ("nn.GroupNorm(2, 6)", [_randn(2, 6, 5)]), ("nn.RMSNorm([4])", [_randn(3, 4)]),
    ("nn.RMSNorm(4, eps=1e-3)", [_randn(2, 3, 4)]), ("nn.LocalResponseNorm(3)", [_randn(2, 5, 3, 3)]),
    ("nn.CrossMapLRN2d(3, alpha=0.5, beta=0.75, k=1.5)", [_randn(2, 6, 2, 3)]),
    ("nn.CrossMapLRN2d(5, alpha=0.3, beta=0.5, k=2)", [_randn(1, 4, 2, 2)]),
    ("nn.Embedding(10, 3, padding_idx=2)", [_I([[1, 2, 3], [2, 1, 9]])]),
    ("nn.Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True)", [_I([1, 1, 4, 7])]),
    ("nn.EmbeddingBag(10, 3, mode='sum')", [_I([[1, 2, 4], [4, 3, 9]])]),
    ("nn.EmbeddingBag(10, 3, mode='max', padding_idx=1)", [_I([[1, 2, 4], [4, 1, 9]])]),
]


@pytest.mark.parametrize("expr,inputs", TORCH_CASES, ids=[f"{i}-{c[0]}" for i, c in enumerate(TORCH_CASES)])
def test_matches_torch(expr, inputs):
    steps = 2 if "Norm" in expr else 1
    _check_against_torch(expr, inputs, steps=steps)
    if "Norm" in expr and "LayerNorm" not in expr and "RMSNorm" not in expr and "GroupNorm" not in expr:
        _check_against_torch(expr, inputs, train=False)


def test_matches_torch_conv_transpose_output_size_and_embedding_bag_offsets():
    _check_against_torch("nn.ConvTranspose2d(2, 3, 3, stride=3, padding=1)", [_randn(1, 2, 4, 4)],
                         kwargs={"output_size": [11, 12]})
    _check_against_torch("nn.EmbeddingBag(10, 3, mode='sum', include_last_offset=True)",
                         [_I([1, 2, 4, 5, 4, 3, 2])],
                         kwargs={"offsets": _I([0, 2, 5, 7]), "per_sample_weights": _randn(7)})
    _check_against_torch("nn.EmbeddingBag(10, 3)", [_I([1, 2, 4, 5, 4, 3, 2])], kwargs={"offsets": _I([0, 3, 3])})


def test_matches_torch_lazy_and_messages():
    torch = _torch()
    x = _randn(2, 3, 5, 5)
    ours, theirs = nn.LazyConv2d(4, 3), torch.nn.LazyConv2d(4, 3)
    assert repr(ours) == repr(theirs)
    ours(tl.tensor(x))
    theirs(torch.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ and repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _load_torch_weights(ours, theirs)
    np.testing.assert_allclose(_np(ours(tl.tensor(x))), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-4,
                               atol=1e-5)

    def message(ns, code):
        try:
            exec(code, {"nn": ns.nn, "torch": ns})
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e).replace("torchlite.", "torch.")
        return None

    for code in ["nn.Conv2d(3, 4, 3, groups=2)", "nn.Conv2d(2, 2, 3, stride=2, padding='same')",
                 "nn.ConvTranspose1d(2, 2, 3, padding_mode='zeros')(torch.randn(1, 2, 4), output_size=[9])",
                 "nn.ConvTranspose1d(2, 2, 3)(torch.randn(1, 2, 4), output_size=[1, 1, 1, 6])",
                 "nn.BatchNorm2d(2)(torch.randn(2, 2))", "nn.InstanceNorm3d(2)(torch.randn(2, 2))",
                 "nn.GroupNorm(4, 6)", "nn.Embedding(3, 2, padding_idx=3)", "nn.Bilinear(0, 1, 1)",
                 "nn.FractionalMaxPool2d(2, output_ratio=(0.5, 1.0))", "nn.CrossMapLRN2d(3)(torch.randn(2, 2))",
                 "nn.InstanceNorm1d(3, affine=True)(torch.randn(2, 4, 3))",
                 "nn.SyncBatchNorm(2)(torch.randn(2))"]:
        ours_msg, theirs_msg = message(tl, code), message(torch, code)
        assert ours_msg is not None and ours_msg == theirs_msg, code


def test_matches_torch_signatures():
    torch = _torch()
    import inspect

    names = ["Identity", "Linear", "Bilinear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
             "ConvTranspose2d", "ConvTranspose3d", "LazyConv2d", "LazyConvTranspose3d", "MaxPool2d", "AvgPool1d",
             "AvgPool2d", "MaxUnpool3d", "LPPool1d", "AdaptiveMaxPool2d", "AdaptiveAvgPool1d", "FractionalMaxPool2d",
             "FractionalMaxPool3d", "BatchNorm1d", "SyncBatchNorm", "LazyBatchNorm3d", "InstanceNorm2d",
             "LazyInstanceNorm1d", "LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d",
             "Embedding", "EmbeddingBag"]
    for name in names:
        ours = inspect.signature(getattr(nn, name))
        theirs = inspect.signature(getattr(torch.nn, name))
        if name == "Identity":
            continue
        assert [(p.name, p.default, p.kind) for p in ours.parameters.values()] == \
            [(p.name, p.default, p.kind) for p in theirs.parameters.values()], name
    for cls in ("Embedding", "EmbeddingBag"):
        ours = inspect.signature(getattr(nn, cls).from_pretrained)
        theirs = inspect.signature(getattr(torch.nn, cls).from_pretrained)
        assert [(p.name, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.default) for p in theirs.parameters.values()]


def test_matches_torch_batch_norm_old_state_dict():
    torch = _torch()
    src = torch.nn.BatchNorm1d(3)
    src(torch.randn(4, 3))
    sd = src.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1
    theirs = torch.nn.BatchNorm1d(3)
    theirs.load_state_dict(sd)
    ours_sd = OrderedDict((k, tl.tensor(v.numpy())) for k, v in sd.items())
    ours_sd._metadata = sd._metadata
    ours = nn.BatchNorm1d(3)
    ours.load_state_dict(ours_sd)
    for (k, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_allclose(_np(a), b.numpy(), err_msg=k)


def test_no_warnings_on_construction():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.Conv2d(1, 1, 1)
        nn.LazyLinear(2)
        nn.BatchNorm1d(2)
