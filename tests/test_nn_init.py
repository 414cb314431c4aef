"""torchlite.nn.init: gains, fans, every initialiser's distribution (statistics with tolerances), its
errors, in-place/no-grad behaviour and `generator=` reproducibility; compared with PyTorch where installed."""
import math

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn
import torchlite.nn.functional as F
from torchlite.nn import init


def _np(t):
    return t.detach().cpu().numpy()


# ---------------------------------------------------------------------------------------------- gain, fans
@pytest.mark.parametrize("name,param,expected", [
    ("linear", None, 1), ("conv1d", None, 1), ("conv2d", None, 1), ("conv3d", None, 1),
    ("conv_transpose1d", None, 1), ("conv_transpose2d", None, 1), ("conv_transpose3d", None, 1),
    ("sigmoid", None, 1), ("tanh", None, 5.0 / 3), ("relu", None, math.sqrt(2.0)),
    ("leaky_relu", None, math.sqrt(2.0 / (1 + 0.01 ** 2))), ("leaky_relu", 0.2, math.sqrt(2.0 / 1.04)),
    ("leaky_relu", 1, 1.0), ("selu", None, 0.75),
])
def test_calculate_gain(name, param, expected):
    assert init.calculate_gain(name, param) == pytest.approx(expected, rel=1e-15)


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="^Unsupported nonlinearity gelu$"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="^negative_slope True not a valid number$"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="negative_slope abc not a valid number"):
        init.calculate_gain("leaky_relu", "abc")


@pytest.mark.parametrize("shape,fans", [((3, 5), (5, 3)), ((4, 2, 3), (6, 12)), ((6, 3, 2, 5), (30, 60)),
                                        ((2, 7, 1, 2, 3), (42, 12)), ((0, 4), (4, 0))])
def test_fan_in_and_fan_out(shape, fans):
    assert init._calculate_fan_in_and_fan_out(tl.empty(shape)) == fans
    assert init._calculate_correct_fan(tl.empty(shape), "fan_in") == fans[0]
    assert init._calculate_correct_fan(tl.empty(shape), "FAN_OUT") == fans[1]


def test_fan_errors():
    msg = "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
    for shape in [(), (5,)]:
        with pytest.raises(ValueError, match=msg):
            init._calculate_fan_in_and_fan_out(tl.empty(shape))
        with pytest.raises(ValueError, match=msg):
            init.xavier_uniform_(tl.empty(shape))
        with pytest.raises(ValueError, match=msg):
            init.kaiming_normal_(tl.empty(shape))
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(tl.empty(3, 4), mode="fan_avg")
    with pytest.raises(ValueError, match="Unsupported nonlinearity softplus"):
        init.kaiming_normal_(tl.empty(3, 4), nonlinearity="softplus")


# ------------------------------------------------------------------------------------ distributions
N = 40000


def test_uniform_and_normal():
    t = tl.empty(200, 200)
    assert init.uniform_(t, -2.0, 3.0) is t
    a = _np(t)
    assert a.min() >= -2.0 and a.max() < 3.0
    assert a.mean() == pytest.approx(0.5, abs=0.03) and a.std() == pytest.approx(5 / math.sqrt(12), rel=0.02)
    a = _np(init.uniform_(t))
    assert a.min() >= 0 and a.max() < 1 and a.mean() == pytest.approx(0.5, abs=0.01)
    a = _np(init.normal_(t, 1.5, 0.5))
    assert a.mean() == pytest.approx(1.5, abs=0.01) and a.std() == pytest.approx(0.5, rel=0.02)


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, 0.0, 1.5), (0.0, 1.0, 1.5, 3.0)])
def test_trunc_normal(mean, std, a, b):
    t = init.trunc_normal_(tl.empty(N), mean, std, a, b)
    x = _np(t).astype(np.float64)
    assert x.min() >= a and x.max() <= b
    # Closed form of the truncated normal's mean and variance.
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: (1 + math.erf(z / math.sqrt(2))) / 2  # noqa: E731
    Z = cdf(beta) - cdf(alpha)
    mu = mean + std * (pdf(alpha) - pdf(beta)) / Z
    var = std ** 2 * (1 + (alpha * pdf(alpha) - beta * pdf(beta)) / Z - ((pdf(alpha) - pdf(beta)) / Z) ** 2)
    assert x.mean() == pytest.approx(mu, abs=0.02 * std)
    assert x.std() == pytest.approx(math.sqrt(var), rel=0.03)


def test_trunc_normal_warns_far_mean():
    with pytest.warns(UserWarning, match="mean is more than 2 std from \\[a, b\\] in nn.init.trunc_normal_"):
        init.trunc_normal_(tl.empty(10), mean=10.0, std=1.0, a=-2.0, b=2.0)


def test_constant_ones_zeros():
    t = tl.empty(3, 4)
    assert init.constant_(t, 2.5) is t and (_np(t) == 2.5).all()
    assert (_np(init.ones_(t)) == 1).all()
    assert (_np(init.zeros_(t)) == 0).all()


def test_eye():
    t = init.eye_(tl.empty(3, 5))
    np.testing.assert_array_equal(_np(t), np.eye(3, 5))
    with pytest.raises(ValueError, match="^Only tensors with 2 dimensions are supported$"):
        init.eye_(tl.empty(2, 2, 2))


@pytest.mark.parametrize("shape,groups", [((4, 2, 3), 1), ((6, 3, 3, 3), 1), ((4, 2, 3, 3), 2), ((2, 4, 1, 3, 3), 1)])
def test_dirac(shape, groups):
    w = init.dirac_(tl.empty(shape), groups)
    nd = len(shape) - 2
    x = tl.randn(1, shape[1] * groups, *([5] * nd))
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[nd]
    out = conv(x, w, padding=tuple(k // 2 for k in shape[2:]), groups=groups)
    # The convolution copies the first min(out/groups, in/groups) channels of each group.
    per = shape[0] // groups
    n = min(per, shape[1])
    xo, oo = _np(x), _np(out)
    for g in range(groups):
        for d in range(per):
            if d < n:
                np.testing.assert_allclose(oo[0, g * per + d], xo[0, g * shape[1] + d], rtol=1e-6, atol=1e-6)
            else:
                assert (oo[0, g * per + d] == 0).all()
    assert _np(w).sum() == groups * n


def test_dirac_errors():
    with pytest.raises(ValueError, match="^Only tensors with 3, 4, or 5 dimensions are supported$"):
        init.dirac_(tl.empty(3, 3))
    with pytest.raises(ValueError, match="^dim 0 must be divisible by groups$"):
        init.dirac_(tl.empty(5, 2, 3), groups=2)


@pytest.mark.parametrize("shape", [(300, 200), (40, 10, 3, 3), (200, 30, 20)])
def test_xavier(shape):
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(tl.empty(shape))
    std = 2.0 * math.sqrt(2.0 / (fan_in + fan_out))
    a = _np(init.xavier_uniform_(tl.empty(shape), gain=2.0))
    bound = math.sqrt(3) * std
    assert np.abs(a).max() <= bound and np.abs(a).max() > 0.98 * bound
    assert a.std() == pytest.approx(std, rel=0.03)
    a = _np(init.xavier_normal_(tl.empty(shape), gain=2.0))
    assert a.std() == pytest.approx(std, rel=0.03) and abs(a.mean()) < 0.03 * std


@pytest.mark.parametrize("a_,mode,nonlin", [(0, "fan_in", "leaky_relu"), (math.sqrt(5), "fan_in", "leaky_relu"),
                                            (0, "fan_out", "relu"), (0.1, "fan_in", "tanh")])
def test_kaiming(a_, mode, nonlin):
    shape = (60, 50, 3, 3)
    fan = 50 * 9 if mode == "fan_in" else 60 * 9
    std = init.calculate_gain(nonlin, a_) / math.sqrt(fan)
    u = _np(init.kaiming_uniform_(tl.empty(shape), a=a_, mode=mode, nonlinearity=nonlin))
    bound = math.sqrt(3) * std
    assert np.abs(u).max() <= bound and np.abs(u).max() > 0.99 * bound
    assert u.std() == pytest.approx(std, rel=0.03)
    n = _np(init.kaiming_normal_(tl.empty(shape), a=a_, mode=mode, nonlinearity=nonlin))
    assert n.std() == pytest.approx(std, rel=0.03)


def test_kaiming_zero_element_is_a_no_op():
    t = tl.empty(0, 3)
    for fn in (init.kaiming_uniform_, init.kaiming_normal_):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            assert fn(t) is t


@pytest.mark.parametrize("shape,gain", [((20, 10), 1.0), ((10, 20), 2.0), ((6, 3, 2, 2), 0.5), ((7, 7), 1.0)])
def test_orthogonal(shape, gain):
    w = init.orthogonal_(tl.empty(shape), gain=gain)
    m = _np(w).reshape(shape[0], -1).astype(np.float64) / gain
    r, c = m.shape
    gram = m.T @ m if r >= c else m @ m.T
    np.testing.assert_allclose(gram, np.eye(min(r, c)), atol=1e-5)


def test_orthogonal_errors_and_empty():
    with pytest.raises(ValueError, match="^Only tensors with 2 or more dimensions are supported$"):
        init.orthogonal_(tl.empty(4))
    t = tl.empty(0, 3)
    assert init.orthogonal_(t) is t


def test_sparse():
    w = init.sparse_(tl.empty(20, 30), sparsity=0.3, std=0.5)
    a = _np(w)
    zeros_per_col = (a == 0).sum(axis=0)
    assert (zeros_per_col >= math.ceil(0.3 * 20)).all() and (zeros_per_col <= 7).all()
    nz = a[a != 0]
    assert nz.std() == pytest.approx(0.5, rel=0.15)
    with pytest.raises(ValueError, match="^Only tensors with 2 dimensions are supported$"):
        init.sparse_(tl.empty(2, 3, 4), 0.1)


# ------------------------------------------------------------------------ in place, no grad, generator
ALL_RANDOM = [
    lambda t, g: init.uniform_(t, -1, 1, generator=g),
    lambda t, g: init.normal_(t, 0, 2, generator=g),
    lambda t, g: init.trunc_normal_(t, generator=g),
    lambda t, g: init.trunc_normal_(t, 0.0, 1.0, 1.5, 3.0, generator=g),
    lambda t, g: init.xavier_uniform_(t, generator=g),
    lambda t, g: init.xavier_normal_(t, generator=g),
    lambda t, g: init.kaiming_uniform_(t, generator=g),
    lambda t, g: init.kaiming_normal_(t, generator=g),
    lambda t, g: init.orthogonal_(t, generator=g),
    lambda t, g: init.sparse_(t, 0.5, generator=g),
]


@pytest.mark.parametrize("i", range(len(ALL_RANDOM)))
def test_generator_reproducible(i):
    fn = ALL_RANDOM[i]
    outs = []
    for seed in (7, 7, 8):
        g = tl.Generator()
        g.manual_seed(seed)
        outs.append(_np(fn(tl.empty(6, 5), g)).copy())
    np.testing.assert_array_equal(outs[0], outs[1])
    assert not np.array_equal(outs[0], outs[2])
    # The global generator is not used when one is given.
    tl.manual_seed(0)
    before = tl.rand(3)
    tl.manual_seed(0)
    g = tl.Generator()
    g.manual_seed(1)
    fn(tl.empty(6, 5), g)
    np.testing.assert_array_equal(_np(tl.rand(3)), _np(before))


@pytest.mark.parametrize("fn", [
    lambda p: init.uniform_(p), lambda p: init.normal_(p), lambda p: init.trunc_normal_(p),
    lambda p: init.constant_(p, 3.0), lambda p: init.ones_(p), lambda p: init.zeros_(p), lambda p: init.eye_(p),
    lambda p: init.xavier_uniform_(p), lambda p: init.xavier_normal_(p), lambda p: init.kaiming_uniform_(p),
    lambda p: init.kaiming_normal_(p), lambda p: init.orthogonal_(p), lambda p: init.sparse_(p, 0.2),
])
def test_in_place_on_a_parameter_without_history(fn):
    p = nn.Parameter(tl.empty(4, 3))
    out = fn(p)
    assert out is p and p.requires_grad and p.grad_fn is None and p.is_leaf
    (p * 2).sum().backward()  # still a usable leaf
    np.testing.assert_array_equal(_np(p.grad), np.full((4, 3), 2.0, np.float32))


def test_dirac_on_a_parameter():
    p = nn.Parameter(tl.empty(2, 2, 3))
    assert init.dirac_(p) is p and p.grad_fn is None


def test_deprecated_aliases():
    for old, new in [("uniform", "uniform_"), ("normal", "normal_"), ("constant", "constant_"), ("eye", "eye_"),
                     ("dirac", "dirac_"), ("xavier_uniform", "xavier_uniform_"), ("xavier_normal", "xavier_normal_"),
                     ("kaiming_uniform", "kaiming_uniform_"), ("kaiming_normal", "kaiming_normal_"),
                     ("orthogonal", "orthogonal_"), ("sparse", "sparse_")]:
        fn = getattr(init, old)
        assert fn.__name__ == old
        args = {"constant": (1.0,), "sparse": (0.1,)}.get(old, ())
        shape = (2, 2, 3) if old == "dirac" else (3, 3)
        with pytest.warns(FutureWarning, match=f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new}`."):
            fn(tl.empty(shape), *args)


def test_float64_and_dtype_kept():
    t = tl.empty(30, 20, dtype=tl.float64)
    for fn in (init.orthogonal_, init.kaiming_uniform_, init.trunc_normal_, init.eye_):
        assert fn(t).dtype == tl.float64


# ---------------------------------------------------------------------------------- default module init
@pytest.mark.parametrize("make,fan_in", [(lambda: nn.Linear(400, 300), 400), (lambda: nn.Conv2d(16, 300, 5), 400),
                                         (lambda: nn.ConvTranspose1d(300, 40, 10), 400),
                                         (lambda: nn.Conv1d(8, 100, 3, groups=4), 6)])
def test_default_linear_conv_init(make, fan_in):
    m = make()
    bound = 1 / math.sqrt(fan_in)
    w, b = _np(m.weight), _np(m.bias)
    # kaiming_uniform_(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), the bias too.
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.05)
    assert np.abs(b).max() <= bound


def test_default_bilinear_embedding_norm_init():
    m = nn.Bilinear(25, 4, 500)
    assert np.abs(_np(m.weight)).max() <= 0.2 and np.abs(_np(m.weight)).max() > 0.19
    e = _np(nn.Embedding(1000, 50).weight)
    assert e.mean() == pytest.approx(0, abs=0.02) and e.std() == pytest.approx(1, rel=0.03)
    for norm in (nn.BatchNorm2d(5), nn.LayerNorm(5), nn.GroupNorm(5, 5), nn.InstanceNorm1d(5, affine=True)):
        assert (_np(norm.weight) == 1).all() and (_np(norm.bias) == 0).all()
    assert (_np(nn.RMSNorm(5).weight) == 1).all()


# --------------------------------------------------------------------------------------- vs PyTorch
def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")


def test_matches_torch_gains_fans_and_messages():
    torch = _torch()
    for name in ["linear", "conv1d", "conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]:
        for param in (None, 0.3, 2):
            assert init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)
    for shape in [(3, 5), (4, 2, 3), (2, 7, 1, 2, 3)]:
        assert init._calculate_fan_in_and_fan_out(tl.empty(shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))

    def message(fn, *args, **kwargs):
        try:
            fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001
            return type(e), str(e)
        return None

    cases = [("calculate_gain", ("gelu",), {}), ("calculate_gain", ("leaky_relu", "x"), {}),
             ("_calculate_fan_in_and_fan_out", ((4,),), {}), ("kaiming_uniform_", ((3, 4),), {"mode": "bad"}),
             ("eye_", ((2, 2, 2),), {}), ("dirac_", ((3, 3),), {}), ("dirac_", ((5, 2, 3),), {"groups": 2}),
             ("orthogonal_", ((3,),), {}), ("sparse_", ((3,), 0.1), {})]
    for name, args, kwargs in cases:
        def conv(mod, a):
            return mod.empty(a) if isinstance(a, tuple) else a
        ours = message(getattr(init, name), *[conv(tl, a) for a in args], **kwargs)
        theirs = message(getattr(torch.nn.init, name), *[conv(torch, a) for a in args], **kwargs)
        assert ours is not None and ours[0] is theirs[0] and ours[1] == theirs[1], name


def test_matches_torch_deterministic_inits():
    torch = _torch()
    for shape, groups in [((4, 2, 3), 1), ((6, 3, 3, 3), 3), ((2, 4, 1, 3, 3), 1)]:
        np.testing.assert_array_equal(_np(init.dirac_(tl.empty(shape), groups)),
                                      torch.nn.init.dirac_(torch.empty(shape), groups).numpy())
    np.testing.assert_array_equal(_np(init.eye_(tl.empty(3, 5))), torch.nn.init.eye_(torch.empty(3, 5)).numpy())


def test_matches_torch_default_module_init_statistics():
    torch = _torch()
    for args in [(64, 128), (300, 200)]:
        ours, theirs = nn.Linear(*args), torch.nn.Linear(*args)
        a, b = _np(ours.weight), theirs.weight.detach().numpy()
        assert np.abs(a).max() == pytest.approx(np.abs(b).max(), rel=0.02)
        assert a.std() == pytest.approx(b.std(), rel=0.05)
        bound = 1 / math.sqrt(args[0])
        assert np.abs(_np(ours.bias)).max() <= bound and np.abs(theirs.bias.detach().numpy()).max() <= bound
    ours, theirs = nn.Conv2d(8, 32, 3), torch.nn.Conv2d(8, 32, 3)
    assert _np(ours.weight).std() == pytest.approx(theirs.weight.detach().numpy().std(), rel=0.1)
