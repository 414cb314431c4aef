"""The index checks of the CUDA indexing kernels (csrc/kernels/gpu/indexing.inc).

On the device the index values are wrapped and checked in one pass that raises a device-side flag, read
once; only a raised flag sends them through the CPU's host check, for the CPU's error. These tests hold the
CUDA kernels to the CPU kernels: the same exception type and message (the same offending value: the first
bad one in row-major order, of the first indexed dim), the same results for valid indices (negative ones
wrapped where the op wraps them), and nothing written by an in-place op whose index is out of range.

They run the CUDA kernels compiled for the host on CPU tensors ("on_host"), and on a CUDA device ("on_cuda")
where there is one: a GPU, or the emulated device, which test_on_the_emulated_device runs them on.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import torchlite as tl
from torchlite import _C
from torchlite.testing._samples import kernels as K

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAS_CUDA = tl.cuda.is_available()


gpu_kernels_on_host = K.gpu_kernels_on_host


def x_of(device, shape=(4, 6)):
    n = int(np.prod(shape))
    return tl.arange(n, dtype=tl.float32).view(*shape).to(device)


def ix(values, dtype, device, strided=False):
    """An index tensor; strided: the same values at every other element of a longer tensor."""
    a = np.asarray(values, dtype=np.int64)
    if strided:
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=np.int64)
        wide[..., ::2] = a
        t = tl.tensor(wide).to(dtype).to(device)[..., ::2]
        assert not t.is_contiguous()
        return t
    return tl.tensor(a).to(dtype).to(device)


# Each case: fn(device, dtype, strided, values) -> the tensors to compare (results, or the tensor written in
# place).
CASES = {
    # a[idx]: wraps negatives; the error names the value and the dim
    "index": lambda dev, dt, s, v: (x_of(dev)[ix(v, dt, dev, s)],),
    "index_two_dims": lambda dev, dt, s, v: (x_of(dev)[ix([[0], [1]], dt, dev), ix(v, dt, dev, s)],),
    "index_second_dim": lambda dev, dt, s, v: (x_of(dev)[:, ix(v, dt, dev, s)],),
    "index_select": lambda dev, dt, s, v: (tl.index_select(x_of(dev), 1, ix(v, dt, dev, s)),),
    "gather": lambda dev, dt, s, v: (tl.gather(x_of(dev), 1, ix([v, v[::-1]], dt, dev, s)),),
    "take": lambda dev, dt, s, v: (tl.take(x_of(dev), ix(v, dt, dev, s)),),
    "index_put": lambda dev, dt, s, v: (tl.index_put(x_of(dev), (ix(v, dt, dev, s),), tl.tensor(-1.0).to(dev)),),
    "index_put_": lambda dev, dt, s, v: index_put_inplace(dev, dt, s, v),
    "setitem": lambda dev, dt, s, v: setitem(dev, dt, s, v),
    "scatter": lambda dev, dt, s, v: (tl.scatter(x_of(dev), 1, ix([v], dt, dev, s), x_of(dev) * 10),),
    "scatter_value": lambda dev, dt, s, v: (tl.scatter(x_of(dev), 1, ix([v], dt, dev, s), 5.0),),
    "scatter_add": lambda dev, dt, s, v: (tl.scatter_add(x_of(dev), 1, ix([v], dt, dev, s), x_of(dev)),),
    "index_add": lambda dev, dt, s, v: (tl.index_add(x_of(dev), 1, ix(v, dt, dev, s),
                                                     tl.ones(4, len(v)).to(dev)),),
    "index_copy": lambda dev, dt, s, v: (tl.index_copy(x_of(dev), 1, ix(v, dt, dev, s),
                                                       tl.ones(4, len(v)).to(dev)),),
    "index_fill": lambda dev, dt, s, v: (tl.index_fill(x_of(dev), 1, ix(v, dt, dev, s), 7.0),),
}


def index_put_inplace(dev, dt, s, v):
    x = x_of(dev)
    try:
        x.index_put_((ix(v, dt, dev, s),), tl.tensor(-1.0).to(dev), accumulate=True)
    except Exception as e:  # the caller compares x too: nothing may be written before the check
        raise IndexCheckError(e, x) from None
    return (x,)


def setitem(dev, dt, s, v):
    x = x_of(dev)
    try:
        x[ix(v, dt, dev, s)] = -1.0
    except Exception as e:
        raise IndexCheckError(e, x) from None
    return (x,)


class IndexCheckError(Exception):
    """An in-place op's error, with the tensor it was given (to check that nothing was written)."""

    def __init__(self, error, written):
        super().__init__(str(error))
        self.error, self.written = error, written


def outcome(fn):
    try:
        return ("ok", tuple(t.cpu().numpy() for t in fn()), None)
    except IndexCheckError as e:
        return ("error", (type(e.error).__name__, str(e.error)), e.written.cpu().numpy())
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return ("error", (type(e).__name__, str(e)), None)


def run(mode, case, dtype, strided, values):
    fn = CASES[case]
    expected = outcome(lambda: fn("cpu", dtype, strided, values))
    if mode == "on_host":
        with gpu_kernels_on_host():
            actual = outcome(lambda: fn("cpu", dtype, strided, values))
    else:
        actual = outcome(lambda: fn("cuda", dtype, strided, values))
    return expected, actual


def assert_same(expected, actual, what):
    assert expected[0] == actual[0], (what, expected, actual)
    if expected[0] == "error":
        assert expected[1] == actual[1], what
    else:
        for e, a in zip(expected[1], actual[1]):
            np.testing.assert_array_equal(a, e, err_msg=what)
    if expected[2] is not None:
        np.testing.assert_array_equal(actual[2], expected[2], err_msg=f"{what}: written before the check")


VALUES = {
    "valid": [0, 3, 2, 3],
    "negative": [-1, 2, -4, 0],         # wrapped by index/take/index_put/index_fill, refused by the others
    "too_large": [1, 7, 2, 9],          # the first bad value (7) is the one reported
    "too_negative": [1, -8, 9, -30],    # -8 first, though 9 also fails
}

MODES = ["on_host", pytest.param("on_cuda", marks=pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device"))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "strided"])
@pytest.mark.parametrize("dtype", [tl.int64, tl.int32, tl.int16], ids=lambda d: str(d).split(".")[-1])
@pytest.mark.parametrize("values", sorted(VALUES))
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_cpu(mode, case, dtype, strided, values):
    expected, actual = run(mode, case, dtype, strided, VALUES[values])
    assert_same(expected, actual, f"{case} {dtype} {values} strided={strided} ({mode})")


# The messages themselves (PyTorch's), with the offending value.
MESSAGES = [
    ("index", "too_large", IndexError, "index 7 is out of bounds for dimension 0 with size 4"),
    ("index", "too_negative", IndexError, "index -8 is out of bounds for dimension 0 with size 4"),
    ("index_second_dim", "too_large", IndexError, "index 7 is out of bounds for dimension 1 with size 6"),
    ("index_select", "negative", IndexError, "index out of range in self"),
    ("gather", "too_large", RuntimeError, "index 7 is out of bounds for dimension 1 with size 6"),
    ("gather", "negative", RuntimeError, "index -1 is out of bounds for dimension 1 with size 6"),
    ("take", "too_negative", IndexError, "out of range: tried to access index -30 on a tensor of 24 elements."),
    ("index_put", "too_negative", IndexError, "index -8 is out of bounds for dimension 0 with size 4"),
    ("scatter", "too_large", RuntimeError, "index 7 is out of bounds for dimension 1 with size 6"),
    ("scatter", "negative", RuntimeError, "index -1 is out of bounds for dimension 1 with size 6"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [tl.int64, tl.int32], ids=["int64", "int32"])
@pytest.mark.parametrize("case,values,kind,message", MESSAGES, ids=[f"{c}-{v}" for c, v, _, _ in MESSAGES])
def test_messages(mode, dtype, case, values, kind, message):
    if case == "take" and dtype == tl.int32:
        pytest.skip("take takes int64 indices only")
    expected, actual = run(mode, case, dtype, False, VALUES[values])
    assert actual[0] == "error" and actual[1][0] == kind.__name__ and actual[1][1].endswith(message), actual
    assert_same(expected, actual, case)  # the whole message, as the CPU's ("<op>: " first for some ops)


@pytest.mark.parametrize("mode", MODES)
def test_negative_indices_wrap(mode):
    """Valid negative indices give the elements they name from the end, in every wrapping op."""
    for case, want in [("index", [[18, 19, 20, 21, 22, 23], [12, 13, 14, 15, 16, 17], [0, 1, 2, 3, 4, 5],
                                  [0, 1, 2, 3, 4, 5]]),
                       ("take", [23, 2, 20, 0])]:
        expected, actual = run(mode, case, tl.int64, False, VALUES["negative"])
        assert actual[0] == "ok" and actual[1][0].tolist() == want, (case, actual)
        assert_same(expected, actual, case)


@pytest.mark.parametrize("mode", MODES)
def test_broadcast_indices_report_the_first_bad_dim(mode):
    """x[i, j]: the first indexed dim with a bad value is reported, over the broadcast shape."""
    def fn(dev, bad_dim):
        i = ix([[0], [9 if bad_dim == 0 else 1]], tl.int64, dev)
        j = ix([1, -9 if bad_dim == 1 else 2, 30], tl.int64, dev)
        return (x_of(dev)[i, j],)

    for bad_dim, message in [(0, "index 9 is out of bounds for dimension 0 with size 4"),
                             (1, "index -9 is out of bounds for dimension 1 with size 6")]:
        expected = outcome(lambda: fn("cpu", bad_dim))
        if mode == "on_host":
            with gpu_kernels_on_host():
                actual = outcome(lambda: fn("cpu", bad_dim))
        else:
            actual = outcome(lambda: fn("cuda", bad_dim))
        assert actual[1] == ("IndexError", message), actual
        assert_same(expected, actual, f"bad dim {bad_dim}")


@pytest.mark.parametrize("mode", MODES)
def test_empty_and_zero_dim_indices(mode):
    for fn in [lambda dev: (x_of(dev)[ix(np.zeros((0,), np.int64), tl.int64, dev)],),
               lambda dev: (tl.index_select(x_of(dev), 0, tl.tensor(3).to(dev)),),
               lambda dev: (tl.index_select(x_of(dev), 0, tl.tensor(4).to(dev)),),
               lambda dev: (tl.take(x_of(dev), tl.tensor(-24).to(dev)),),
               lambda dev: (tl._index(x_of(dev), [tl.tensor(-4).to(dev)]),),
               lambda dev: (tl._index(x_of(dev), [None, tl.tensor(6).to(dev)]),),
               lambda dev: (x_of(dev)[ix([[1, -1], [0, 2]], tl.int32, dev).t()],)]:
        expected = outcome(lambda: fn("cpu"))
        if mode == "on_host":
            with gpu_kernels_on_host():
                actual = outcome(lambda: fn("cpu"))
        else:
            actual = outcome(lambda: fn("cuda"))
        assert_same(expected, actual, "empty / 0-dim")


@pytest.mark.skipif(HAS_CUDA, reason="the cuda mode runs here already")
def test_on_the_emulated_device():
    """The same tests with the tensors and indices on the emulated CUDA device: the device path of the
    checks (index and target on one device), through the same host compilation."""
    env = dict(os.environ, TORCHLITE_EMULATE_CUDA="1")
    env.pop("TORCHLITE_GPU_KERNELS_ON_HOST", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-rs", "-p", "no:cacheprovider", __file__,
                        "-k", "on_cuda"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "needs a CUDA device" not in r.stdout, r.stdout[-2000:]
