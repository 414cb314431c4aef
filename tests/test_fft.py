"""torch.fft (issue 18): every function against NumPy's FFT over lengths that take each path of the planner
(powers of 2 and 4, radices 3 and 5, the plain prime butterflies up to 61, Bluestein beyond), dims, norms,
dtypes, cut and padded inputs; gradients against finite differences; out=; the CUDA round trip on the emulated
device; PyTorch's own results where it is installed. The op database checks one sample per function too
(torchlite/testing/_samples/fft.py)."""
import numpy as np
import pytest
from test_cuda_emulated import run_emulated

import torchlite as tl

FFT = tl.fft
# Lengths: 1, powers of two (radix 4 and 2), 3^k, 5^k, mixed, primes up to 61 (plain DFT butterflies), primes
# and products with a factor over 61 (Bluestein), and both parities for the real transforms.
LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 25, 27, 30, 32, 49, 60, 61, 64, 67, 100, 127, 128, 210, 243,
           256, 262, 625, 1000, 1009, 1024, 2 * 1009, 4096]


def rng(seed=0):
    return np.random.default_rng(seed)


def crandn(shape, seed=0, dtype=np.complex128):
    g = rng(seed)
    return (g.standard_normal(shape) + 1j * g.standard_normal(shape)).astype(dtype)


def rrandn(shape, seed=0, dtype=np.float64):
    return rng(seed).standard_normal(shape).astype(dtype)


def close(got, want, tol):
    got = got.resolve_conj().numpy() if isinstance(got, tl.Tensor) else got  # ihfft's is a conj() view, as PyTorch's
    scale = max(1.0, float(np.abs(want).max())) if np.size(want) else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * scale)


# ------------------------------------------------------------------------------------------ lengths
@pytest.mark.parametrize("n", LENGTHS)
def test_one_dimensional_transforms_of_every_length(n):
    a = crandn((n,), n)
    r = rrandn((n,), n + 1)
    x, xr = tl.tensor(a), tl.tensor(r)
    tol = 1e-13 * max(1, np.log2(n))
    close(FFT.fft(x), np.fft.fft(a), tol)
    close(FFT.ifft(x), np.fft.ifft(a), tol)
    close(FFT.rfft(xr), np.fft.rfft(r), tol)
    close(FFT.ihfft(xr), np.fft.ihfft(r), tol)
    close(FFT.fft(xr), np.fft.fft(r), tol)  # a real input of fft: the full two-sided spectrum
    close(FFT.ifft(xr), np.fft.ifft(r), tol)
    h = np.fft.rfft(r)
    if n > 1:
        close(FFT.irfft(tl.tensor(h), n), np.fft.irfft(h, n), tol)
        close(FFT.hfft(tl.tensor(h), n), np.fft.hfft(h, n), tol)


@pytest.mark.parametrize("n", [7, 64, 97, 1000])
def test_single_precision(n):
    a = crandn((3, n), n, np.complex64)
    r = rrandn((3, n), n, np.float32)
    got = FFT.fft(tl.tensor(a))
    assert got.dtype is tl.complex64
    close(got, np.fft.fft(a.astype(np.complex128)), 3e-6 * np.log2(n))
    got = FFT.rfft(tl.tensor(r))
    assert got.dtype is tl.complex64
    close(got, np.fft.rfft(r.astype(np.float64)), 3e-6 * np.log2(n))
    back = FFT.irfft(got, n)
    assert back.dtype is tl.float32
    close(back, r, 3e-6 * np.log2(n))


def test_long_transforms_spread_over_threads():
    """One long line (its butterflies split between the threads) and many short ones give NumPy's values."""
    old = tl.get_num_threads()
    try:
        for threads in (1, 2):
            tl.set_num_threads(threads)
            a = crandn((1 << 17,), 3)
            close(FFT.fft(tl.tensor(a)), np.fft.fft(a), 1e-12)
            r = rrandn((3 * 5 * 7 * 1009,), 4)  # Bluestein inside the real transform's half length
            close(FFT.rfft(tl.tensor(r)), np.fft.rfft(r), 1e-12)
            b = crandn((300, 64), 5)
            close(FFT.fft(tl.tensor(b), dim=0), np.fft.fft(b, axis=0), 1e-13)
    finally:
        tl.set_num_threads(old)


@pytest.mark.parametrize("n", [2, 7, 8, 12, 61, 64, 67])
def test_batches_of_lines(n):
    """Many rows (37: two groups of 16 lines transformed together and a partial one) and strided lines, as the
    kernels batch them, against NumPy, for the complex and both real transforms; 67 takes Bluestein one line
    at a time."""
    a = crandn((37, n), 60 + n)
    r = rrandn((37, n), 61 + n)
    h = np.fft.rfft(r, axis=1)
    for d, t in ((-1, lambda v: v), (0, lambda v: v.T)):  # rows of a batch, or strided columns
        x, xr, xh = tl.tensor(t(a).copy()), tl.tensor(t(r).copy()), tl.tensor(t(h).copy())
        close(FFT.fft(x, dim=d), np.fft.fft(t(a), axis=d), 1e-13)
        close(FFT.ifft(x, dim=d), np.fft.ifft(t(a), axis=d), 1e-13)
        close(FFT.fft(x, dim=1 + d), np.fft.fft(t(a), axis=1 + d), 1e-13)  # the other dim: 37 points
        close(FFT.rfft(xr, dim=d), np.fft.rfft(t(r), axis=d), 1e-13)
        close(FFT.irfft(xh, n, dim=d), np.fft.irfft(t(h), n, axis=d), 1e-13)
        close(FFT.fft(xr, dim=d), np.fft.fft(t(r), axis=d), 1e-13)
    f32 = tl.tensor(r.astype(np.float32))
    close(FFT.irfft(FFT.rfft(f32), n), r, 1e-5)


# ------------------------------------------------------------------------------------------ arguments
@pytest.mark.parametrize("norm", [None, "backward", "forward", "ortho"])
def test_norms(norm):
    a = crandn((4, 9), 1)
    r = rrandn((4, 10), 2)
    x, xr = tl.tensor(a), tl.tensor(r)
    h = np.fft.rfft(r)
    for name, arg, ref in [("fft", x, a), ("ifft", x, a), ("rfft", xr, r), ("ihfft", xr, r), ("fft2", x, a),
                           ("ifft2", x, a), ("fftn", x, a), ("ifftn", x, a), ("rfft2", xr, r), ("rfftn", xr, r),
                           ("irfft", tl.tensor(h), h), ("hfft", tl.tensor(h), h), ("irfft2", tl.tensor(h), h),
                           ("irfftn", tl.tensor(h), h)]:
        close(getattr(FFT, name)(arg, norm=norm), getattr(np.fft, name)(ref, norm=norm), 1e-13)


def test_dims_cut_and_pad():
    a = crandn((3, 5, 6), 7)
    r = rrandn((3, 5, 6), 8)
    x, xr = tl.tensor(a), tl.tensor(r)
    close(FFT.fft(x, n=4, dim=1), np.fft.fft(a, 4, axis=1), 1e-13)     # cut
    close(FFT.fft(x, n=9, dim=-3), np.fft.fft(a, 9, axis=0), 1e-13)    # zero-padded
    close(FFT.ifft(x, 8, 0), np.fft.ifft(a, 8, axis=0), 1e-13)
    close(FFT.rfft(xr, n=7, dim=1), np.fft.rfft(r, 7, axis=1), 1e-13)
    close(FFT.irfft(x, n=5, dim=1), np.fft.irfft(a, 5, axis=1), 1e-13)
    close(FFT.irfft(x, n=13, dim=2), np.fft.irfft(a, 13, axis=2), 1e-13)  # more points than the input gives
    close(FFT.hfft(x, n=8, dim=0), np.fft.hfft(a, 8, axis=0), 1e-13)
    close(FFT.ihfft(xr, n=4, dim=0), np.fft.ihfft(r, 4, axis=0), 1e-13)
    close(FFT.fftn(x, s=(4, 8), dim=(2, 0)), np.fft.fftn(a, (4, 8), axes=(2, 0)), 1e-13)
    close(FFT.fftn(x, s=(4, 3)), np.fft.fftn(a, (4, 3), axes=(1, 2)), 1e-13)             # the last len(s) dims
    close(FFT.fftn(x, s=(-1, 3)), np.fft.fftn(a, (5, 3), axes=(1, 2)), 1e-13)            # -1 keeps the size
    close(FFT.fftn(x, dim=1), np.fft.fftn(a, axes=(1,)), 1e-13)              # one int dim
    close(FFT.ifftn(x, dim=(0, 2)), np.fft.ifftn(a, axes=(0, 2)), 1e-13)
    close(FFT.rfftn(xr, s=(4, 4), dim=(0, 1)), np.fft.rfftn(r, (4, 4), axes=(0, 1)), 1e-13)
    close(FFT.rfftn(xr), np.fft.rfftn(r), 1e-13)
    close(FFT.irfftn(x), np.fft.irfftn(a), 1e-13)
    close(FFT.irfftn(x, s=(4, 7), dim=(0, 2)), np.fft.irfftn(a, (4, 7), axes=(0, 2)), 1e-13)
    close(FFT.irfftn(x, s=(2, -1)), np.fft.irfftn(a, (2, 10), axes=(1, 2)), 1e-13)
    close(FFT.fft2(x, dim=(0, 1)), np.fft.fft2(a, axes=(0, 1)), 1e-13)
    close(FFT.rfft2(xr, s=(3, 3)), np.fft.rfft2(r, (3, 3)), 1e-13)
    close(FFT.irfft2(x, s=(5, 9)), np.fft.irfft2(a, (5, 9)), 1e-13)
    # hfftn: the forward transform of the Hermitian signal; ihfftn its inverse
    n = 5 * 10
    close(FFT.hfft2(x), np.fft.irfft2(np.conj(a)) * n, 1e-12)
    close(FFT.hfftn(x, dim=(0, 2)), np.fft.irfftn(np.conj(a), axes=(0, 2)) * 30, 1e-12)
    close(FFT.ihfft2(xr), np.conj(np.fft.rfft2(r)) / 30, 1e-13)
    close(FFT.ihfftn(xr, s=(4, 4)), np.conj(np.fft.rfftn(r, (4, 4), axes=(1, 2))) / 16, 1e-13)
    close(FFT.ihfftn(xr, dim=(1,)), np.fft.ihfft(r, axis=1), 1e-13)
    # the round trips
    close(FFT.irfftn(FFT.rfftn(xr), s=xr.shape), r, 1e-13)
    close(FFT.hfftn(FFT.ihfftn(xr), s=xr.shape), r, 1e-13)
    close(FFT.hfft(FFT.ihfft(xr), n=6), r, 1e-13)


def test_strided_and_batched_inputs():
    a = crandn((6, 40), 11)
    x = tl.tensor(a)
    close(FFT.fft(x.t(), dim=0), np.fft.fft(a.T, axis=0), 1e-13)
    close(FFT.fft(x[:, ::3]), np.fft.fft(a[:, ::3]), 1e-13)
    close(FFT.fft(x.t()), np.fft.fft(a.T), 1e-13)
    r = rrandn((5, 4, 33), 12)
    xr = tl.tensor(r)
    close(FFT.rfft(xr.permute(2, 0, 1), dim=0), np.fft.rfft(r.transpose(2, 0, 1), axis=0), 1e-13)
    close(FFT.rfftn(xr, dim=(2, 0)), np.fft.rfftn(r, axes=(2, 0)), 1e-13)
    # an empty batch gives an empty result (PyTorch's CPU build raises an MKL error here)
    empty = FFT.fft(tl.zeros(0, 4, dtype=tl.complex64))
    assert tuple(empty.shape) == (0, 4) and empty.dtype is tl.complex64
    assert tuple(FFT.rfft(tl.zeros(0, 6)).shape) == (0, 4)


def test_dtypes_promote_as_pytorch():
    i = tl.tensor([1, 2, 3, 4])
    assert FFT.fft(i).dtype is tl.complex64 and FFT.rfft(i).dtype is tl.complex64
    assert FFT.irfft(i).dtype is tl.float32 and FFT.hfft(i).dtype is tl.float32
    assert FFT.fft(tl.tensor([True, False])).dtype is tl.complex64
    close(FFT.fft(i), np.fft.fft([1, 2, 3, 4]), 1e-6)
    d = tl.tensor([1.0, 2.0], dtype=tl.float64)
    assert FFT.fft(d).dtype is tl.complex128 and FFT.ihfft(d).dtype is tl.complex128
    old = tl.get_default_dtype()
    try:
        tl.set_default_dtype(tl.float64)
        assert FFT.fft(i).dtype is tl.complex128
        assert FFT.fftfreq(4).dtype is tl.float64
    finally:
        tl.set_default_dtype(old)


def test_frequencies_and_shifts():
    for n in (1, 2, 5, 8):
        for d in (1.0, 0.1):
            close(FFT.fftfreq(n, d), np.fft.fftfreq(n, d), 1e-6)
            close(FFT.rfftfreq(n, d), np.fft.rfftfreq(n, d), 1e-6)
    f = FFT.fftfreq(5, dtype=tl.float64)
    assert f.dtype is tl.float64 and f.tolist() == list(np.fft.fftfreq(5))
    assert FFT.fftfreq(4).dtype is tl.float32 and tuple(FFT.fftfreq(0).shape) == (0,)
    a = rrandn((3, 4, 5), 3)
    x = tl.tensor(a)
    for dim in (None, 0, (1, 2), (-1,)):
        np.testing.assert_array_equal(FFT.fftshift(x, dim).numpy(), np.fft.fftshift(a, dim))
        np.testing.assert_array_equal(FFT.ifftshift(x, dim).numpy(), np.fft.ifftshift(a, dim))
    np.testing.assert_array_equal(FFT.ifftshift(FFT.fftshift(x)).numpy(), a)
    # the documented use: the frequencies in order, and the spectrum with them
    assert FFT.fftshift(FFT.fftfreq(5)).tolist() == pytest.approx([-0.4, -0.2, 0.0, 0.2, 0.4])


def test_out_variants():
    a = crandn((4, 6), 21, np.complex64)
    x = tl.tensor(a)
    out = tl.empty(0, dtype=tl.complex64)
    r = FFT.fft(x, out=out)
    assert r is out and tuple(out.shape) == (4, 6)
    close(out, np.fft.fft(a.astype(np.complex128)), 1e-5)
    strided = tl.zeros(6, 4, dtype=tl.complex64).t()  # a non-contiguous out: computed aside and copied in
    FFT.fft2(x, out=strided)
    close(strided, np.fft.fft2(a.astype(np.complex128)), 1e-5)
    real_out = tl.empty(4, 10)
    FFT.irfft(x, out=real_out)
    close(real_out, np.fft.irfft(a.astype(np.complex128)), 1e-5)
    with pytest.raises(RuntimeError):
        FFT.rfft(tl.ones(4), out=tl.empty(3))  # a real out for a complex result
    freq = tl.empty(3)
    FFT.fftfreq(3, out=freq)
    close(freq, np.fft.fftfreq(3), 1e-7)


def test_errors_name_the_problem():
    a = tl.ones(2, 3)
    with pytest.raises(RuntimeError, match='Invalid normalization mode: "bad"'):
        FFT.fft(a, norm="bad")
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        FFT.rfft(a, n=0)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(-2\) specified"):
        FFT.fftn(a, s=(-2, 2))
    with pytest.raises(RuntimeError, match="rfft expects a real input tensor, but got ComplexFloat"):
        FFT.rfft(a * 1j)
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        FFT.fft2(a, dim=(1, -1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        FFT.fft(a, dim=3)
    with pytest.raises(RuntimeError, match="Unsupported dtype Half"):
        FFT.rfft(a.half())
    with pytest.raises(TypeError):
        FFT.fft(a, n="4")


# ------------------------------------------------------------------------------------------ autograd
GRAD_CASES = [
    ("fft", lambda x: FFT.fft(x, n=7, norm="ortho"), "complex"),
    ("fft real", lambda x: FFT.fft(x, n=5), "real"),
    ("ifft", lambda x: FFT.ifft(x, dim=0), "complex"),
    ("ifft real", lambda x: FFT.ifft(x, norm="forward"), "real"),
    ("rfft", lambda x: FFT.rfft(x), "real"),
    ("rfft odd", lambda x: FFT.rfft(x, n=5, norm="ortho"), "real"),
    ("irfft", lambda x: FFT.irfft(x), "complex"),
    ("irfft odd", lambda x: FFT.irfft(x, n=7), "complex"),
    ("hfft", lambda x: FFT.hfft(x, n=9, norm="forward"), "complex"),
    ("ihfft", lambda x: FFT.ihfft(x), "real"),
    ("fft2", lambda x: FFT.fft2(x, s=(3, 5)), "complex"),
    ("rfftn", lambda x: FFT.rfftn(x), "real"),
    ("irfftn", lambda x: FFT.irfftn(x, s=(4, 5)), "complex"),
    ("hfftn", lambda x: FFT.hfftn(x), "complex"),
    ("ihfftn", lambda x: FFT.ihfftn(x, norm="ortho"), "real"),
    ("fftshift", lambda x: FFT.fftshift(FFT.fft(x)), "complex"),
]


@pytest.mark.parametrize("name,fn,kind", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck(name, fn, kind):
    x = tl.tensor(crandn((4, 6), 31) if kind == "complex" else rrandn((4, 6), 32), requires_grad=True)
    assert tl.autograd.gradcheck(fn, (x,), eps=1e-6, atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize("name,fn,kind", [GRAD_CASES[0], GRAD_CASES[4], GRAD_CASES[7]],
                         ids=["fft", "rfft", "irfft"])
def test_gradgradcheck(name, fn, kind):
    x = tl.tensor(crandn((3, 4), 33) if kind == "complex" else rrandn((3, 4), 34), requires_grad=True)
    assert tl.autograd.gradgradcheck(fn, (x,), eps=1e-6, atol=1e-6, rtol=1e-4)


def test_known_gradient():
    """Parseval: |fft(x)|^2 summed over the spectrum of a real x is n |x|^2, whose gradient is 2 n x (through
    _fft_r2c with onesided=False)."""
    r = rrandn((16,), 35)
    x = tl.tensor(r, requires_grad=True)
    (FFT.fft(x).abs() ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 16 * r, rtol=1e-12)


# ------------------------------------------------------------------------------------------ devices
def test_on_the_emulated_cuda_device():
    """A CUDA tensor is transformed on the host and copied back (no cuFFT yet): results, dtypes and devices."""
    script = (
        "import numpy as np\nimport torchlite as tl\n"
        "a = np.arange(12.0).reshape(3, 4) + 1j\n"
        "x = tl.tensor(a).cuda()\n"
        "y = tl.fft.fft(x)\n"
        "assert y.device.type == 'cuda' and np.allclose(y.cpu().numpy(), np.fft.fft(a))\n"
        "r = tl.fft.irfft(tl.fft.rfft(x.real), 4)\n"
        "assert r.device.type == 'cuda' and r.dtype is tl.float64 and np.allclose(r.cpu().numpy(), a.real)\n"
        "g = tl.fft.fftn(x, s=(4, 4), norm='ortho')\n"
        "assert np.allclose(g.cpu().numpy(), np.fft.fftn(a, (4, 4), norm='ortho'))\n"
        "z = x.clone().requires_grad_()\n"
        "tl.fft.fft(z).abs().sum().backward()\n"
        "assert z.grad.device.type == 'cuda'\n"
        "print('ok')\n")
    r = run_emulated(["-c", script], timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_matches_torch():
    torch = pytest.importorskip("torch")
    a = crandn((4, 6), 41, np.complex64)
    r = rrandn((4, 7), 42, np.float32)
    for name, arg_np, kwargs in [("fft", a, {}), ("ifft", a, {"n": 5}), ("rfft", r, {"norm": "ortho"}),
                                 ("irfft", a, {"n": 9}), ("hfft", a, {}), ("ihfft", r, {}),
                                 ("fft2", a, {"s": (3, 8)}), ("rfftn", r, {}), ("irfftn", a, {"dim": (0, 1)}),
                                 ("hfftn", a, {}), ("ihfftn", r, {"s": (2, 4)}), ("fftshift", r, {"dim": 1})]:
        got = getattr(tl.fft, name)(tl.tensor(arg_np), **kwargs)
        want = getattr(torch.fft, name)(torch.tensor(arg_np), **kwargs)
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], name
        assert tuple(got.shape) == tuple(want.shape) and got.is_conj() == want.is_conj(), name
        np.testing.assert_allclose(got.resolve_conj().numpy(), want.resolve_conj().numpy(), rtol=1e-4, atol=1e-4,
                                   err_msg=name)
    # gradients of a real loss through rfft and irfft
    for fn in (lambda m, x: m.fft.rfft(x, n=9).abs().sum(), lambda m, x: m.fft.irfft(m.fft.rfft(x) * 1j).sum()):
        x = tl.tensor(r.astype(np.float64), requires_grad=True)
        t = torch.tensor(r.astype(np.float64), requires_grad=True)
        fn(tl, x).backward()
        fn(torch, t).backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------------------------------ stft / istft
def test_stft_against_torch_and_round_trip():
    r = rrandn((2, 300), 51)
    x = tl.tensor(r)
    w = tl.hann_window(64, dtype=tl.float64)
    s = tl.stft(x, 64, hop_length=16, window=w, return_complex=True)
    assert tuple(s.shape) == (2, 33, 1 + 300 // 16) and s.dtype is tl.complex128
    back = tl.istft(s, 64, hop_length=16, window=w, length=300)
    close(back, r, 1e-12)
    assert tl.stft(x[0], 32, return_complex=False).shape == (17, 1 + 300 // 8, 2)  # view_as_real of the result
    assert tuple(x.stft(32, center=False, onesided=False, return_complex=True).shape) == (2, 32, 1 + (300 - 32) // 8)
    short = tl.stft(x, 64, win_length=40, hop_length=10, return_complex=True)  # a window shorter than n_fft
    close(tl.istft(short, 64, win_length=40, hop_length=10, length=300), r, 1e-12)
    torch = pytest.importorskip("torch")
    for kwargs in [{"hop_length": 16, "window": "hann"}, {"center": False}, {"pad_mode": "constant"},
                   {"normalized": True, "win_length": 48}, {"onesided": False}]:
        kw_tl, kw_t = dict(kwargs), dict(kwargs)
        if kwargs.get("window") == "hann":
            kw_tl["window"] = tl.hann_window(64, dtype=tl.float64)
            kw_t["window"] = torch.hann_window(64, dtype=torch.float64)
        got = tl.stft(x, 64, return_complex=True, **kw_tl)
        want = torch.stft(torch.tensor(r), 64, return_complex=True, **kw_t)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10, err_msg=str(kwargs))
        inv = tl.istft(got, 64, **{k: v for k, v in kw_tl.items() if k != "pad_mode"})
        want_inv = torch.istft(want, 64, **{k: v for k, v in kw_t.items() if k != "pad_mode"})
        np.testing.assert_allclose(inv.numpy(), want_inv.numpy(), rtol=1e-10, atol=1e-10, err_msg=str(kwargs))
    c = crandn((200,), 52)
    got = tl.stft(tl.tensor(c), 32, return_complex=True)  # complex input: two-sided
    np.testing.assert_allclose(got.numpy(), torch.stft(torch.tensor(c), 32, return_complex=True).numpy(), rtol=1e-10,
                               atol=1e-10)


def test_stft_errors():
    x = tl.ones(100)
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter be given for real inputs"):
        tl.stft(x, 16)
    with pytest.raises(RuntimeError, match="expected hop_length > 0, but got hop_length=0"):
        tl.stft(x, 16, hop_length=0, return_complex=True)
    with pytest.raises(RuntimeError, match="expected 0 < win_length <= n_fft, but got win_length=20"):
        tl.stft(x, 16, win_length=20, return_complex=True)
    with pytest.raises(RuntimeError, match="expected a 1D window tensor of size equal to win_length=16"):
        tl.stft(x, 16, window=tl.ones(5), return_complex=True)
    with pytest.raises(RuntimeError, match="expected a 1D or 2D tensor"):
        tl.stft(tl.ones(2, 3, 4), 2, return_complex=True)
    with pytest.raises(RuntimeError, match="Cannot have onesided output if window or input is complex"):
        tl.stft(x * 1j, 16, onesided=True, return_complex=True)
    s = tl.stft(x, 16, return_complex=True)
    with pytest.raises(RuntimeError, match="istft requires a complex-valued input tensor"):
        tl.istft(s.real, 16)
    with pytest.raises(RuntimeError, match="to match n_fft / 2 \\+ 1 when onesided=True, but got 9"):
        tl.istft(s, 15)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        tl.istft(s, 16, window=tl.zeros(16))


def test_stft_gradients():
    x = tl.tensor(rrandn((40,), 53), requires_grad=True)
    w = tl.hann_window(8, dtype=tl.float64)
    assert tl.autograd.gradcheck(lambda v: tl.stft(v, 8, hop_length=3, window=w, return_complex=True), (x,))
    s = tl.tensor(crandn((5, 9), 54), requires_grad=True)
    assert tl.autograd.gradcheck(lambda v: tl.istft(v, 8, hop_length=2, window=w), (s,))
