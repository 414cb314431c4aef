"""torchlite.set_num_threads / get_num_threads: OpenMP follows it (and BLAS calls share its threads),
results do not depend on it, and a forked child runs on one thread without
hanging."""
import ctypes
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import torchlite as tl


def blas_threads():
    # scipy-openblas32's library is loaded globally by `import torchlite`.
    return ctypes.CDLL(None).scipy_openblas_get_num_threads()


@pytest.mark.parametrize("m,n,a_transposed", [(96, 300, False), (300, 96, False), (300, 96, True)])
def test_round_trip_keeps_blas_single_threaded(restore_threads, m, n, a_transposed):
    """BLAS keeps one thread of its own: torchlite's threads share a product's columns, or its rows when A is
    the larger operand (kernels/cpu/Gemm.cpp; a transposed A is read column-major), and the result is right
    for every count."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, 200)).astype(np.float32), rng.standard_normal((200, n)).astype(np.float32)
    results = []
    for threads in (1, 2, 3, 1):
        tl.set_num_threads(threads)
        assert tl.get_num_threads() == threads
        assert blas_threads() == 1
        ta = tl.tensor(a.T.copy()).t() if a_transposed else tl.tensor(a)
        results.append(tl.mm(ta, tl.tensor(b)).numpy())
    for r in results:
        np.testing.assert_allclose(r, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    tl.set_num_threads(np.int64(2))  # anything with __index__
    assert tl.get_num_threads() == 2


@pytest.mark.parametrize("bad", [0, -1, -(2**70)])
def test_non_positive_count_raises(bad, restore_threads):
    before = tl.get_num_threads()
    with pytest.raises(RuntimeError, match="^set_num_threads expects a positive integer$"):
        tl.set_num_threads(bad)
    assert tl.get_num_threads() == before
    with pytest.raises(RuntimeError, match="^set_num_interop_threads expects a positive integer$"):
        tl.set_num_interop_threads(bad)


@pytest.mark.parametrize("bad, name", [(1.5, "float"), (True, "bool"), ("2", "str"), (None, "NoneType")])
def test_non_int_count_raises(bad, name):
    with pytest.raises(RuntimeError, match=f"^set_num_threads expects an int, but got {name}$"):
        tl.set_num_threads(bad)


def test_interop_threads_are_recorded():
    assert tl.get_num_interop_threads() >= 1
    saved = tl.get_num_interop_threads()
    tl.set_num_interop_threads(3)
    assert tl.get_num_interop_threads() == 3
    tl.set_num_interop_threads(saved)


def test_results_do_not_depend_on_thread_count(restore_threads):
    rng = np.random.default_rng(0)
    n = 3_000_017  # odd, so chunk boundaries differ between thread counts
    x = tl.tensor(rng.standard_normal(n, dtype=np.float32))
    y = tl.tensor(rng.standard_normal(n, dtype=np.float32))
    m = tl.tensor(rng.standard_normal((999, 1001)))  # float64
    results = {}
    for threads in (1, 2, 3):
        tl.set_num_threads(threads)
        results[threads] = [
            (x + y).numpy().copy(),
            (x * 2.5).numpy().copy(),
            x.exp().numpy().copy(),
            x.sum().item(),
            (x * y).sum().item(),
            m.sum(1).numpy().copy(),
            m.sum(0).numpy().copy(),
            m.sum().item(),
        ]
    for threads in (2, 3):
        for a, b in zip(results[1], results[threads]):
            np.testing.assert_array_equal(a, b)
    xs = x.numpy().astype(np.float64)
    np.testing.assert_allclose(results[1][3], xs.sum(), rtol=1e-5)


FORK_CHILD = textwrap.dedent("""
    import os, sys
    import torchlite as tl
    x = tl.ones(1 << 21)
    tl.set_num_threads(2)
    assert (x + x).sum().item() == 2 * (1 << 21)  # the parent's OpenMP pool now exists
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            if tl.get_num_threads() != 1:
                code = 2
            elif (x * 3).sum().item() != 3 * (1 << 21):
                code = 3
            else:
                # Raising the count again must not hang on the parent's dead pool.
                tl.set_num_threads(2)
                if (x + 1).sum().item() != 2 * (1 << 21):
                    code = 4
        except BaseException:
            code = 5
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert tl.get_num_threads() == 2, "the parent keeps its thread count"
    sys.exit(os.waitstatus_to_exitcode(status))
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_runs_parallel_ops_without_hanging(tmp_path):
    proc = subprocess.run([sys.executable, "-c", FORK_CHILD], cwd=tmp_path, timeout=60,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_long_kernel_loops_release_the_gil():
    import threading

    import torchlite as tl

    a, b, big = tl.ones(256, 256), tl.ones(256, 256), tl.ones(1 << 20)
    tl._C._last_loop_released_gil()  # clear
    tl.exp(big)
    assert tl._C._last_loop_released_gil()
    tl.mm(a, b)  # BLAS
    assert tl._C._last_loop_released_gil()
    tl.exp(tl.ones(10))  # too short to bother
    assert not tl._C._last_loop_released_gil()
    # Another thread runs while one computes: both finish, with the right results.
    results = {}

    def work(k):
        results[k] = tl.sum(tl.full((1 << 21,), float(k))).item()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {k: float(k * (1 << 21)) for k in range(1, 5)}


SPIN_CHECK = textwrap.dedent("""
    import os, sys
    before = dict(os.environ)
    import torchlite
    after = dict(os.environ)
    assert after == before, sorted(set(after.items()) ^ set(before.items()))
    print("same")
""")


@pytest.mark.parametrize("env", [{}, {"GOMP_SPINCOUNT": "77"}, {"OMP_WAIT_POLICY": "PASSIVE"},
                                 {"OPENBLAS_THREAD_TIMEOUT": "10"}])
def test_import_leaves_the_environment_as_it_was(env, tmp_path):
    """import torchlite sets short spin-waits for its own OpenMP and OpenBLAS threads only while _C loads
    (a user's own settings win), and leaves os.environ as it found it."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT")}
    proc = subprocess.run([sys.executable, "-c", SPIN_CHECK], cwd=tmp_path, timeout=60, capture_output=True,
                          text=True, env={**base, **env})
    assert proc.returncode == 0 and proc.stdout.strip() == "same", proc.stdout + proc.stderr


@pytest.mark.parametrize("n", [1, 15, 16, 17, 255, 256, 257, 1000, 70_001])
def test_scalar_operands_in_dense_loops(n):
    """A stride-0 operand (a Python number, a broadcast 1-element or 0-dim tensor) takes the buffered
    dense loop from 16 elements on: every chunk boundary gives the same as NumPy."""
    a = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    x = tl.from_numpy(a)
    np.testing.assert_array_equal(np.asarray(x * 2), a * np.float32(2))
    np.testing.assert_array_equal(np.asarray(3 - x), np.float32(3) - a)
    np.testing.assert_array_equal(np.asarray(x + tl.tensor([1.5])), a + np.float32(1.5))
    w = tl.where(x > 0, x, tl.zeros(()))
    np.testing.assert_array_equal(np.asarray(w), np.where(a > 0, a, np.float32(0)))
    np.testing.assert_allclose(np.asarray(tl.lerp(x, tl.ones(()), 0.25)), a + np.float32(0.25) * (1 - a), rtol=1e-6)
