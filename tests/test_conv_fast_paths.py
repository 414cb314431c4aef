"""The CPU's fast convolution paths for float32 (kernels/cpu/Winograd.cpp for 3x3 convolutions with stride 1 and
at least 16 channels each side; kernels/cpu/DirectConv.cpp for stride 1 into at most 16 channels), checked against
the same convolution in float64, which runs the general im2col + BLAS path. Each case is chosen to land on one
path: forward, input gradient, weight gradient, and the transposed convolution (whose forward is the rotated
correlation)."""
import numpy as np
import pytest

import torchlite as tl
import torchlite.nn.functional as F

# (batch, in channels, out channels, height, width, kernel, padding, path)
CASES = [
    # Winograd F(2x2, 3x3): even and odd output sizes, paddings 0..2 and unequal ones, images sharing a block
    (2, 16, 16, 9, 11, (3, 3), (1, 1), "winograd"),
    (1, 16, 24, 10, 10, (3, 3), (0, 0), "winograd"),
    (3, 20, 16, 8, 9, (3, 3), (2, 2), "winograd"),
    (2, 16, 17, 12, 8, (3, 3), (0, 2), "winograd"),
    (40, 16, 16, 8, 8, (3, 3), (1, 1), "winograd"),
    # direct kernels (at most 16 output channels): 4-, 6- and 8-channel blocks, rectangular and large kernels
    (2, 3, 6, 32, 32, (5, 5), (0, 0), "direct"),
    (3, 6, 16, 14, 14, (5, 5), (0, 0), "direct"),
    (1, 2, 3, 7, 9, (3, 3), (1, 1), "direct"),
    (2, 5, 7, 6, 11, (3, 2), (1, 0), "direct"),
    (2, 4, 9, 5, 5, (5, 5), (2, 2), "direct"),
    (1, 3, 16, 9, 8, (7, 7), (3, 3), "direct"),
    (2, 40, 5, 8, 8, (3, 3), (1, 1), "direct"),
    (4, 24, 8, 6, 5, (1, 1), (0, 0), "direct"),
    (1, 2, 4, 3, 3, (3, 3), (2, 2), "direct"),  # padding past k - 1: the input gradient takes im2col
]


def _t(rng, shape):
    return rng.standard_normal(shape).astype(np.float32)


def _relative_error(ours, reference):
    ours, reference = ours.double().numpy(), reference.numpy()
    return np.abs(ours - reference).max() / (1.0 + np.abs(reference).max())


@pytest.mark.parametrize("case", CASES, ids=[f"{c[7]}-{i}" for i, c in enumerate(CASES)])
def test_fast_paths_match_float64(case):
    n, cin, cout, h, w, k, pad, _ = case
    rng = np.random.default_rng(n * 100 + cin * 10 + cout)
    x, wt, b = _t(rng, (n, cin, h, w)), _t(rng, (cout, cin) + k), _t(rng, (cout,))
    ours = [tl.tensor(a, requires_grad=True) for a in (x, wt, b)]
    ref = [tl.tensor(a.astype(np.float64), requires_grad=True) for a in (x, wt, b)]
    y, y64 = F.conv2d(*ours, padding=pad), F.conv2d(*ref, padding=pad)
    assert y.dtype == tl.float32 and tuple(y.shape) == tuple(y64.shape)
    g = _t(rng, tuple(y.shape))
    grads = tl.autograd.grad(y, ours, tl.tensor(g))
    grads64 = tl.autograd.grad(y64, ref, tl.tensor(g.astype(np.float64)))
    assert _relative_error(y.detach(), y64.detach()) < 2e-6
    for ours_g, ref_g in zip(grads, grads64):
        assert _relative_error(ours_g, ref_g) < 2e-6

    # the transposed convolution with a (cin, cout) weight: forward is the rotated correlation, the input
    # gradient the plain one
    wt_t = _t(rng, (cin, cout) + k)
    xt = tl.tensor(x, requires_grad=True)
    xt64 = tl.tensor(x.astype(np.float64), requires_grad=True)
    yt = F.conv_transpose2d(xt, tl.tensor(wt_t), tl.tensor(b), padding=pad)
    yt64 = F.conv_transpose2d(xt64, tl.tensor(wt_t.astype(np.float64)), tl.tensor(b.astype(np.float64)), padding=pad)
    assert _relative_error(yt.detach(), yt64.detach()) < 2e-6
    gt = _t(rng, tuple(yt.shape))
    (gx,), (gx64,) = tl.autograd.grad(yt, [xt], tl.tensor(gt)), tl.autograd.grad(yt64, [xt64], tl.tensor(gt.astype(np.float64)))
    assert _relative_error(gx, gx64) < 2e-6


def test_fast_paths_do_not_depend_on_the_thread_count(restore_threads):
    """Each output and each weight-gradient element is summed by one thread in a fixed order."""
    cases = [((4, 16, 12, 12), (16, 16, 3, 3)), ((4, 6, 14, 14), (16, 6, 5, 5))]
    results = []
    for threads in (1, 2):
        tl.set_num_threads(threads)
        run = []
        for xs, ws in cases:
            rng = np.random.default_rng(xs[1])
            x = tl.tensor(_t(rng, xs), requires_grad=True)
            w = tl.tensor(_t(rng, ws), requires_grad=True)
            y = F.conv2d(x, w, padding=1)
            run += [y.detach().numpy()] + [t.numpy() for t in tl.autograd.grad(y.sum(), [x, w])]
        results.append(run)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_fast_paths_take_channels_last_and_strided_inputs():
    rng = np.random.default_rng(3)
    x = tl.tensor(_t(rng, (2, 12, 12, 16))).permute(0, 3, 1, 2)  # channels last
    w = tl.tensor(_t(rng, (16, 16, 3, 3)))
    w_small = tl.tensor(_t(rng, (4, 16, 3, 3)))[::2]  # a strided weight for the direct path
    for weight in (w, w_small):
        y = F.conv2d(x, weight, padding=1)
        y64 = F.conv2d(x.double(), weight.double(), padding=1)
        assert _relative_error(y, y64) < 2e-6
