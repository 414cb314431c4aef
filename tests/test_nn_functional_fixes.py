"""Fixes to torchlite.nn.functional checked against PyTorch's behaviour: F.prelu's channel rule (an input of
fewer than 2 dims has one channel), and the channel dropouts (dropout1d/2d/3d, feature_alpha_dropout) with
every input rank: which ranks are errors, which warn, which dims are the batch and channel dims, and the
"Feature dropout requires at least 2 dimensions in the input" error; compared with PyTorch where installed."""
import warnings

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn.functional as F


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")


def _np(t):
    return t.detach().numpy()


# ------------------------------------------------------------------ prelu
def _np_prelu(x, w):
    w = np.asarray(w, dtype=np.float64)
    if x.ndim >= 2 and w.size > 1:
        w = w.reshape([1, -1] + [1] * (x.ndim - 2))
    else:
        w = w.reshape(())
    return np.where(x > 0, x, w * x)


def test_prelu_one_dim_input_is_one_channel():
    x = tl.tensor([-2.0, -1.0, 0.5, 3.0], dtype=tl.float64)
    with pytest.raises(RuntimeError, match=r"^Mismatch of parameter numbers and input channel size. Found parameter "
                                           r"numbers = 4 and channel size = 1.$"):
        F.prelu(x, tl.full((4,), 0.25, dtype=tl.float64))
    for w in (tl.tensor([0.25], dtype=tl.float64), tl.tensor(0.25, dtype=tl.float64)):
        out = F.prelu(x, w)
        assert tuple(out.shape) == (4,)
        np.testing.assert_allclose(_np(out), _np_prelu(_np(x), 0.25))


def test_prelu_zero_dim_input():
    x = tl.tensor(-2.0, dtype=tl.float64)
    out = F.prelu(x, tl.tensor([0.5], dtype=tl.float64))
    assert out.dim() == 0 and out.item() == -1.0
    assert F.prelu(x, tl.tensor(0.5, dtype=tl.float64)).dim() == 0
    with pytest.raises(RuntimeError, match=r"^Not allow zero-dim input tensor.$"):
        F.prelu(x, tl.tensor([0.5, 0.1], dtype=tl.float64))


def test_prelu_channels_and_gradients():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4))
    w = rng.uniform(0.1, 0.3, 3)
    xt, wt = tl.tensor(x).requires_grad_(), tl.tensor(w).requires_grad_()
    out = F.prelu(xt, wt)
    np.testing.assert_allclose(_np(out), _np_prelu(x, w))
    out.sum().backward()
    np.testing.assert_allclose(_np(xt.grad), np.where(x > 0, 1.0, w.reshape(1, 3, 1)))
    np.testing.assert_allclose(_np(wt.grad), np.where(x > 0, 0.0, x).sum((0, 2)))
    with pytest.raises(RuntimeError, match=r"^Mismatch of parameter numbers and input channel size. Found parameter "
                                           r"numbers = 4 and channel size = 3.$"):
        F.prelu(xt, tl.ones(4, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"):
        F.prelu(xt, tl.ones(1, 3, dtype=tl.float64))
    # a 1-D input's gradient, through the reshape to one channel
    v = tl.tensor([-1.0, 2.0, -3.0], dtype=tl.float64).requires_grad_()
    a = tl.tensor([0.2], dtype=tl.float64).requires_grad_()
    F.prelu(v, a).sum().backward()
    np.testing.assert_allclose(_np(v.grad), [0.2, 1.0, 0.2])
    np.testing.assert_allclose(_np(a.grad), [-4.0])


def test_prelu_against_torch():
    torch = _torch()
    cases = [((4,), (4,)), ((4,), (1,)), ((4,), ()), ((), (1,)), ((), ()), ((), (2,)), ((2, 3), (3,)), ((2, 3), (2,)),
             ((2, 3, 4), (4,)), ((2, 3, 4), (1, 3)), ((2, 3, 4), (0,)), ((0, 3), (3,)), ((2, 3, 2, 2), (3,))]
    rng = np.random.default_rng(1)
    for xs, ws in cases:
        x, w = rng.standard_normal(xs), rng.uniform(0.1, 0.5, ws)

        def run(lib, f):
            try:
                xt, wt = lib.tensor(x).requires_grad_(), lib.tensor(w).requires_grad_()
                out = f(xt, wt)
                out.sum().backward()
                return out.detach().numpy(), xt.grad.numpy(), wt.grad.numpy()
            except RuntimeError as e:
                return str(e)

        ours, theirs = run(tl, F.prelu), run(torch, torch.nn.functional.prelu)
        if isinstance(theirs, str):
            assert ours == theirs, (xs, ws)
        else:
            assert not isinstance(ours, str), (xs, ws, ours)
            for a, b in zip(ours, theirs):
                assert a.shape == b.shape, (xs, ws)
                np.testing.assert_allclose(a, b, rtol=1e-12)


# ------------------------------------------------------------------ the channel dropouts
def _shape(nd):
    """Sizes that make a whole-channel mask recognizable: 12 along the first two dims, 2 after."""
    return [] if nd == 0 else [24] if nd == 1 else [12, 12] + [2] * (nd - 2)


def _varying_dims(kept):
    """The dims along which the kept/dropped pattern changes (the mask's own dims)."""
    return [d for d in range(kept.ndim) if not (kept == kept.take([0], axis=d)).all()]


def _run(lib, name, nd, p=0.5, training=True):
    """(result or error, warnings): result is the dims the mask varies along in training, 'ok' in eval."""
    f = getattr(lib.nn.functional, name)
    x = lib.ones(_shape(nd)) if nd else lib.tensor(1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            y = f(x, p, training)
            if training and 0 < p < 1 and nd:
                kept = y.numpy() > 0  # (alpha dropout: the kept elements stay positive here)
                result = _varying_dims(kept)
            else:
                result = ("ok", tuple(y.shape))
        except Exception as e:  # noqa: BLE001
            result = (type(e).__name__, str(e))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


_DEPRECATED = ("{name}: Received a {nd}-D input to {name}, which is deprecated and will result in an error in a "
               "future release. To retain the behavior and silence this warning, please use dropout instead. Note "
               "that {name} exists to provide channel-wise dropout on inputs with {s} spatial dimensions, a channel "
               "dimension, and an optional batch dimension (i.e. {a}D or {b}D inputs).")
_NCL = ("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - "
        "input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future "
        "release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
        "channel-wise dropout behavior, please switch to using dropout1d instead.")
_NEEDS_2 = ("RuntimeError", "Feature dropout requires at least 2 dimensions in the input")


def _dropout1d_error(nd):
    return ("RuntimeError", f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that dropout1d "
            "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
            "optional batch dimension (i.e. 2D or 3D inputs).")


def _expected(name, nd):
    """PyTorch 2.x: (result in training, warnings) for an nd-dim input."""
    warned = []
    if name == "dropout1d":
        return ([0] if nd == 2 else [0, 1]) if nd in (2, 3) else _dropout1d_error(nd), []
    if name == "dropout2d":
        if nd not in (3, 4):
            warned.append(("UserWarning", _DEPRECATED.format(name=name, nd=nd, s=2, a=3, b=4)))
        if nd == 3:
            warned.append(("UserWarning", _NCL))
        return ([0, 1] if nd >= 2 else _NEEDS_2), warned
    if name == "dropout3d":
        if nd not in (4, 5):
            warned.append(("UserWarning", _DEPRECATED.format(name=name, nd=nd, s=3, a=4, b=5)))
        return ([0, 1] if nd == 5 else [0] if nd >= 1 else _NEEDS_2), warned
    return ([0, 1] if nd >= 2 else _NEEDS_2), warned  # feature_alpha_dropout


NAMES = ["dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout"]


@pytest.mark.parametrize("name", NAMES)
def test_channel_dropout_every_rank(name):
    tl.manual_seed(0)
    for nd in range(7):
        want, want_warnings = _expected(name, nd)
        got, got_warnings = _run(tl, name, nd)
        assert got == want, (name, nd, got)
        assert got_warnings == want_warnings, (name, nd)
        # eval mode: the rank errors stay (dropout1d), the rest returns the input as it is, with the same warnings
        got, got_warnings = _run(tl, name, nd, training=False)
        if name == "dropout1d" and nd not in (2, 3):
            assert got == _dropout1d_error(nd)
        else:
            assert got == ("ok", tuple(_shape(nd)))
        assert got_warnings == want_warnings


@pytest.mark.parametrize("name", NAMES)
def test_channel_dropout_p_zero_one_and_empty_skip_the_rank_check(name):
    for nd in (0, 1):
        if name == "dropout1d":
            continue
        for p in (0.0, 1.0):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x = -tl.ones(_shape(nd)) if nd else tl.tensor(-1.0)
                y = getattr(F, name)(x, p, True)
            assert tuple(y.shape) == tuple(x.shape)
            assert y.tolist() == (x.tolist() if p == 0 else (x * 0).tolist())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert tuple(getattr(F, name)(tl.ones(0), 0.5, True).shape) == (0,)
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        tl.feature_dropout(tl.ones(4), 0.5, True)


def test_channel_dropout_values_and_inplace():
    tl.manual_seed(1)
    x = tl.ones(6, 40, 3)
    with pytest.warns(UserWarning, match=r"interpreted as shape \(N, C, L\)"):
        y = F.dropout2d(x, 0.25)
    assert set(np.unique(_np(y)).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    kept = _np(y)[..., 0] != 0
    assert 0.6 < kept.mean() < 0.9 and (_np(y) == _np(y)[..., :1]).all()
    # an unbatched (C, D, H, W) input to dropout3d, in place: one draw per channel, written into the input
    z = tl.ones(30, 2, 2, 2)
    r = F.dropout3d(z, 0.5, inplace=True)
    assert r is z
    per_channel = _np(z).reshape(30, -1)
    assert (per_channel == per_channel[:, :1]).all() and set(np.unique(per_channel).tolist()) == {0.0, 2.0}
    # not training: the input itself
    rows = x[0]
    assert F.dropout1d(rows, 0.5, training=False) is rows
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout3d(z, 1.5)


@pytest.mark.parametrize("name", NAMES)
def test_channel_dropout_every_rank_against_torch(name):
    torch = _torch()
    tl.manual_seed(0)
    torch.manual_seed(0)
    for nd in range(7):
        for training in (True, False):
            assert _run(tl, name, nd, training=training) == _run(torch, name, nd, training=training), (name, nd)
