"""Samples, NumPy references and bad-input cases of torch.fft (the transforms _fft_c2c/_fft_r2c/_fft_c2r and
the functions of torchlite.fft); part of torchlite.testing's op database. More lengths, dims and dtypes:
tests/test_fft.py."""
import numpy as np

import torchlite as tl

from .._helpers import make, rng_for


def _real(shape, noncontiguous=False):
    return make(shape, "float32", rng_for("fft", shape, noncontiguous), noncontiguous=noncontiguous)


def _hann(n):
    return tl.hann_window(n)


def _cplx(shape, noncontiguous=False):
    return make(shape, "complex64", rng_for("fft", shape, noncontiguous), noncontiguous=noncontiguous)


def samples():
    return {}


def _stft_ref(self, n_fft, hop_length, window, return_complex):
    """Frames of the reflect-padded signal, times the window, one-sided DFTs: (freq, frames)."""
    x = np.pad(self, n_fft // 2, mode="reflect")
    n_frames = 1 + (len(x) - n_fft) // hop_length
    frames = np.stack([x[i * hop_length:i * hop_length + n_fft] for i in range(n_frames)]) * window
    return np.fft.rfft(frames, axis=1).T


def _istft_ref(self, n_fft, hop_length, window, return_complex):
    """Inverse DFTs of the (two-sided) frames times the window, overlapped and added, over the squared window's
    sum; the n_fft/2 padding on each side cut off."""
    frames = np.fft.ifft(self.T, n_fft, axis=1) * window
    n_frames = frames.shape[0]
    length = n_fft + hop_length * (n_frames - 1)
    y, env = np.zeros(length, complex), np.zeros(length)
    for i in range(n_frames):
        y[i * hop_length:i * hop_length + n_fft] += frames[i]
        env[i * hop_length:i * hop_length + n_fft] += np.abs(window) ** 2
    keep = slice(n_fft // 2, length - n_fft // 2)
    return y[keep] / env[keep]


def numpy_cases():
    """Full name -> (sample, reference of the float64/complex128 arguments by name). Odd, even, prime and
    padded or cut lengths; every norm; non-contiguous inputs."""
    fft = np.fft
    return {
        "_fft_c2c": (lambda: {"self": _cplx((4, 6), True), "dim": [0, 1], "normalization": 1, "forward": False},
                     lambda self, dim, normalization, forward: fft.ifftn(self, axes=dim, norm="ortho")),
        "_fft_r2c": (lambda: {"self": _real((3, 8)), "dim": [0, 1], "normalization": 2, "onesided": True},
                     lambda self, dim, normalization, onesided: fft.rfftn(self, axes=dim, norm="forward")),
        "_fft_c2r": (lambda: {"self": _cplx((4, 5)), "dim": [1], "normalization": 0, "last_dim_size": 8},
                     lambda self, dim, normalization, last_dim_size: fft.irfft(self, 8, axis=1) * 8),
        "fft_fft": (lambda: {"self": _cplx((3, 7)), "n": 9, "dim": 0, "norm": "ortho"},
                    lambda self, n, dim, norm: fft.fft(self, n, dim, norm)),
        "fft_ifft": (lambda: {"self": _cplx((5,)), "n": 3},
                     lambda self, n: fft.ifft(self, n)),
        "fft_rfft": (lambda: {"self": _real((2, 10)), "norm": "forward"},
                     lambda self, norm: fft.rfft(self, norm=norm)),
        "fft_irfft": (lambda: {"self": _cplx((2, 6)), "n": 11},
                      lambda self, n: fft.irfft(self, n)),
        "fft_hfft": (lambda: {"self": _cplx((6,)), "n": 9},
                     lambda self, n: fft.hfft(self, n)),
        "fft_ihfft": (lambda: {"self": _real((9,))},
                      lambda self: fft.ihfft(self)),
        "fft_fft2": (lambda: {"self": _cplx((2, 3, 4))},
                     lambda self: fft.fft2(self)),
        "fft_ifft2": (lambda: {"self": _cplx((3, 5)), "s": (4, 4), "norm": "forward"},
                      lambda self, s, norm: fft.ifft2(self, s, norm=norm)),
        "fft_rfft2": (lambda: {"self": _real((4, 6), True)},
                      lambda self: fft.rfft2(self)),
        "fft_irfft2": (lambda: {"self": _cplx((4, 4)), "s": (4, 6)},
                       lambda self, s: fft.irfft2(self, s)),
        # hfftn is the forward transform of the Hermitian signal (real), N irfftn(conj(x)); ihfftn conj(rfftn) / N
        "fft_hfft2": (lambda: {"self": _cplx((3, 4)), "s": (3, 6)},
                      lambda self, s: fft.irfft2(np.conj(self), s) * 18),
        "fft_ihfft2": (lambda: {"self": _real((4, 6))},
                       lambda self: np.conj(fft.rfft2(self)) / 24),
        "fft_fftn": (lambda: {"self": _cplx((2, 3, 4)), "dim": (0, 2)},
                     lambda self, dim: fft.fftn(self, axes=dim)),
        "fft_ifftn": (lambda: {"self": _cplx((2, 3, 4)), "s": (5, 2)},
                      lambda self, s: fft.ifftn(self, s, axes=(1, 2))),
        "fft_rfftn": (lambda: {"self": _real((3, 4, 5)), "s": (-1, 6)},
                      lambda self, s: fft.rfftn(self, (4, 6), axes=(1, 2))),
        "fft_irfftn": (lambda: {"self": _cplx((3, 4, 3)), "dim": (0, 2), "norm": "ortho"},
                       lambda self, dim, norm: fft.irfftn(self, axes=dim, norm=norm)),
        "fft_hfftn": (lambda: {"self": _cplx((3, 4))},
                      lambda self: fft.irfftn(np.conj(self)) * 18),
        "fft_ihfftn": (lambda: {"self": _real((3, 5))},
                       lambda self: np.conj(fft.rfftn(self)) / 15),
        "fft_fftfreq": (lambda: {"n": 7, "d": 0.5},
                        lambda n, d: fft.fftfreq(n, d)),
        "fft_rfftfreq": (lambda: {"n": 8},
                         lambda n: fft.rfftfreq(n)),
        "fft_fftshift": (lambda: {"self": _real((3, 4)), "dim": (1,)},
                         lambda self, dim: fft.fftshift(self, dim)),
        "fft_ifftshift": (lambda: {"self": _real((5, 4))},
                          lambda self: fft.ifftshift(self)),
        "stft": (lambda: {"self": _real((40,)), "n_fft": 8, "hop_length": 3, "window": _hann(8),
                          "return_complex": True}, _stft_ref),
        # two-sided frames and a complex result: a complex window (the complex gradient checks) is allowed
        "istft": (lambda: {"self": _cplx((8, 9)), "n_fft": 8, "hop_length": 2, "window": _hann(8),
                           "return_complex": True}, _istft_ref),
    }


_TOL = {"float32": (1e-5, 1e-5), "complex64": (1e-5, 1e-5)}
TOLERANCES = {name: _TOL for name in numpy_cases() if name not in ("fft_fftshift", "fft_ifftshift")}

STRING_ARGS = {name: {"norm": "Invalid normalization mode"} for name in numpy_cases() if name.startswith("fft_")
               and "freq" not in name and "shift" not in name}

# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]), b = tensor([True, False]).
ERRORS = [
    ("tl.fft.fft(a, norm='bad')", "RuntimeError", ['Invalid normalization mode: "bad"']),
    ("tl.fft.fft(a, n=0)", "RuntimeError", ["Invalid number of data points (0) specified"]),
    ("tl.fft.irfft(tl.ones(1, dtype=tl.complex64))", "RuntimeError", ["Invalid number of data points (0) specified"]),
    ("tl.fft.rfft(a * 1j)", "RuntimeError", ["rfft expects a real input tensor, but got ComplexFloat"]),
    ("tl.fft.ihfft(a * 1j)", "RuntimeError", ["ihfft expects a real input tensor, but got ComplexFloat"]),
    ("tl.fft.fftn(a, dim=(0, 0))", "RuntimeError", ["FFT dims must be unique"]),
    ("tl.fft.fftn(a, s=(2, 2), dim=(0,))", "RuntimeError",
     ["When given, dim and shape arguments must have the same length"]),
    ("tl.fft.fftn(a, s=(2, 2, 2))", "RuntimeError",
     ["Got shape with 3 values but input tensor only has 2 dimensions."]),
    ("tl.fft.rfftn(a, dim=())", "RuntimeError", ["rfftn must transform at least one axis"]),
    ("tl.fft.fft(tl.tensor(1.0))", "IndexError", ["Dimension specified as -1 but tensor has no dimensions"]),
    ("tl.fft.fft(a, dim=2)", "IndexError", ["Dimension out of range"]),
    ("tl.fft.fft(a.half())", "RuntimeError", ["Unsupported dtype Half"]),
    ("tl.fft.fft(a.bfloat16())", "RuntimeError", ["Unsupported dtype BFloat16"]),
    ("tl._fft_c2c(a, [0], 0, True)", "RuntimeError", ["Only supports complex dtypes, but found: Float"]),
    ("tl._fft_r2c(a * 1j, [0], 0, True)", "RuntimeError",
     ["Only supports floating-point dtypes, but found: ComplexFloat"]),
    ("tl.fft.fftfreq(4, dtype=tl.int64)", "RuntimeError", ["fftfreq requires a floating point or complex dtype"]),
    # PyTorch takes any normalization code here; torchlite names the three it has
    ("tl._fft_c2c(a * 1j, [0], 3, True)", "RuntimeError", ["normalization must be 0 (none), 1 (by 1/sqrt(n)) or 2"]),
]
