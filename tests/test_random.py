"""Random numbers: the Philox generator, seeding and state, and the random ops' values, dtypes and errors.

The variant consistency and wrong-argument fuzz of every random op come from the schema (test_ops.py);
here: reproducibility (same seed, same numbers; independent of the thread count and of how the stream is
split between calls), statistics of 1M samples, PyTorch's dtype rules and error messages.
"""
from __future__ import annotations

import copy
import json
import os
import pickle
import subprocess
import sys
import tempfile
import threading

import numpy as np
import pytest

import torchlite as tl

FLOATING = [tl.float32, tl.float64, tl.float16, tl.bfloat16]


def values(t):
    """A tensor's values as a float64 NumPy array (bfloat16 has no NumPy dtype)."""
    return np.array(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


# Each draws from the generator it is given; names for test ids.
DRAWS = {
    "rand": lambda g: tl.rand(3, 5, generator=g),
    "rand_f64": lambda g: tl.rand((4, 3), generator=g, dtype=tl.float64),
    "rand_f16": lambda g: tl.rand(7, generator=g, dtype=tl.float16),
    "randn": lambda g: tl.randn(11, generator=g),
    "randn_f64": lambda g: tl.randn(2, 5, generator=g, dtype=tl.float64),
    "randint": lambda g: tl.randint(-50, 50, (9,), generator=g),
    "randint_wide": lambda g: tl.randint(-2**62, 2**62, (9,), generator=g),
    "randperm": lambda g: tl.randperm(20, generator=g),
    "normal_tensors": lambda g: tl.normal(tl.zeros(2, 3), tl.ones(3), generator=g),
    "normal_sizes": lambda g: tl.normal(1.0, 2.0, (5,), generator=g),
    "bernoulli": lambda g: tl.bernoulli(tl.full((16,), 0.5), generator=g),
    "bernoulli_p": lambda g: tl.zeros(16).bernoulli_(0.5, generator=g),
    "uniform_": lambda g: tl.empty(6).uniform_(-1, 1, generator=g),
    "normal_": lambda g: tl.empty(6, dtype=tl.float64).normal_(2, 3, generator=g),
    "random_": lambda g: tl.empty(8, dtype=tl.int32).random_(generator=g),
    "exponential_": lambda g: tl.empty(6).exponential_(generator=g),
    "rand_like": lambda g: tl.rand_like(tl.zeros(2, 2), generator=g),
    "randint_like": lambda g: tl.randint_like(tl.zeros(5), 3, 100, generator=g),
}


# ------------------------------------------------------------------------------------------ Philox
def test_philox_known_answers():
    # Random123's known-answer vectors for Philox4x32-10: (counter, key) -> output.
    cases = [
        ((0, 0, 0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 6, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0),
         (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    ]
    for args, expected in cases:
        assert tl._C._philox4x32(*args) == expected


def test_uniform_floats_come_from_the_stream():
    # rand's element i is the top 24 bits of word i of the stream: block i // 4 = Philox(counter=i // 4,
    # key=seed), lane i % 4.
    seed = 0x1234_5678_9ABC
    x = tl.rand(8, generator=tl.Generator().manual_seed(seed))
    words = [w for b in range(2) for w in tl._C._philox4x32(b, 0, 0, 0, seed & 0xFFFFFFFF, seed >> 32)]
    assert x.tolist() == [(w >> 8) / 2**24 for w in words]


def _stream_words(seed, blocks):
    """The stream's words, block by block (rows), from the Philox known-answer binding."""
    return np.array([tl._C._philox4x32(b & 0xFFFFFFFF, b >> 32, 0, 0, seed & 0xFFFFFFFF, seed >> 32)
                     for b in range(blocks)], dtype=np.uint64)


@pytest.mark.parametrize("threads", [1, 2])
def test_draws_follow_the_stream_across_host_batches(threads, restore_threads):
    # The host draws Philox blocks in batches of 256 (kernels/gpu/random.inc): values past the first batches,
    # on every thread count, are still word i of the stream (rand) and the Box-Muller pair of block k
    # (randn: r cos(2 pi u2), r sin(2 pi u2), r = sqrt(-2 log(1 - u1)), its float math within 3 ulp of r).
    tl.set_num_threads(threads)
    seed, n = 0x1234_5678_9ABC, 3 * 1024 + 7
    words = _stream_words(seed, (n + 1) // 2)
    x = tl.rand(n, generator=tl.Generator().manual_seed(seed)).numpy()
    np.testing.assert_array_equal(x, (words.reshape(-1)[:n] >> 8) / 2**24)
    z = tl.randn(n, generator=tl.Generator().manual_seed(seed)).numpy().astype(np.float64)
    u1, u2 = (words[:, 0] >> 8) / 2**24, (words[:, 1] >> 8) / 2**24
    r = np.sqrt(-2 * np.log1p(-u1))
    want = np.stack([r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)], axis=1).reshape(-1)[:n]
    assert np.all(np.abs(z - want) <= 3 * 2.0**-24 * np.maximum(np.repeat(r, 2)[:n], 1))
    half = tl.randn(n, dtype=tl.float16, generator=tl.Generator().manual_seed(seed)).numpy().astype(np.float64)
    np.testing.assert_allclose(half, want, rtol=2**-10, atol=2**-14)


# ------------------------------------------------------------------------------------------ reproducibility
@pytest.mark.parametrize("name", DRAWS)
def test_same_seed_same_numbers(name):
    draw = DRAWS[name]
    a = draw(tl.Generator().manual_seed(42))
    b = draw(tl.Generator().manual_seed(42))
    np.testing.assert_array_equal(values(a), values(b))
    tl.manual_seed(42)
    c = draw(None)  # the default generator, seeded the same way
    np.testing.assert_array_equal(values(a), values(c))


@pytest.mark.parametrize("name", DRAWS)
def test_different_seeds_differ(name):
    draw = DRAWS[name]
    a = draw(tl.Generator().manual_seed(1))
    b = draw(tl.Generator().manual_seed(2))
    assert not np.array_equal(values(a), values(b))


def test_consecutive_draws_differ_and_advance_the_offset():
    g = tl.Generator().manual_seed(3)
    assert g.get_offset() == 0
    a = tl.rand(10, generator=g)
    assert g.get_offset() == 3  # 10 floats: one word each, 4 words per block
    b = tl.rand(10, generator=g)
    assert g.get_offset() == 6
    assert not np.array_equal(a.numpy(), b.numpy())
    tl.randn(5, generator=g)
    assert g.get_offset() == 9  # normals come in pairs, one block per pair
    tl.rand(5, dtype=tl.float64, generator=g)
    assert g.get_offset() == 12  # doubles take two words
    tl.rand(0, generator=g)
    assert g.get_offset() == 12


def test_one_call_equals_the_stream_split_across_calls():
    # A value depends on (seed, offset, element index) only: drawing 4 + 8 floats (whole blocks) from a
    # generator gives the 12 floats of one call, and so does jumping to the offset.
    whole = tl.rand(12, generator=tl.Generator().manual_seed(9)).numpy()
    g = tl.Generator().manual_seed(9)
    parts = np.concatenate([tl.rand(4, generator=g).numpy(), tl.rand(8, generator=g).numpy()])
    np.testing.assert_array_equal(parts, whole)
    g = tl.Generator().manual_seed(9).set_offset(1)
    np.testing.assert_array_equal(tl.rand(8, generator=g).numpy(), whole[4:])
    # Normals: element pairs share a block, so 2 + 6 normals are the 8 of one call.
    whole = tl.randn(8, generator=tl.Generator().manual_seed(9)).numpy()
    g = tl.Generator().manual_seed(9)
    parts = np.concatenate([tl.randn(2, generator=g).numpy(), tl.randn(6, generator=g).numpy()])
    np.testing.assert_array_equal(parts, whole)


def test_strided_output_gets_row_major_values():
    expected = tl.empty(3, 4).uniform_(generator=tl.Generator().manual_seed(5)).numpy()
    t = tl.empty(4, 3).transpose(0, 1)  # (3, 4), not contiguous
    assert not t.is_contiguous()
    t.normal_(generator=tl.Generator().manual_seed(5)).uniform_(generator=tl.Generator().manual_seed(5))
    np.testing.assert_array_equal(t.numpy(), expected)
    odd = tl.empty(5, 3).transpose(0, 1).normal_(generator=tl.Generator().manual_seed(5))
    np.testing.assert_array_equal(odd.numpy(), tl.randn(3, 5, generator=tl.Generator().manual_seed(5)).numpy())


_THREADS_SCRIPT = r"""
import hashlib, json
import torchlite as tl
g = tl.Generator().manual_seed(2024)
draws = {
    "rand": tl.rand(100_003, generator=g),
    "rand_f64": tl.rand(100_003, dtype=tl.float64, generator=g),
    "randn": tl.randn(100_003, generator=g),
    "randn_f16": tl.randn(70_001, dtype=tl.float16, generator=g),
    "randint": tl.randint(-7, 1000, (100_003,), generator=g),
    "bernoulli": tl.bernoulli(tl.full((100_003,), 0.3, dtype=tl.float64), generator=g),
    "normal": tl.normal(tl.zeros(50_001), tl.ones(50_001), generator=g),
    "exponential": tl.empty(100_003).exponential_(3.0, generator=g),
    "strided": tl.empty(300, 401).transpose(0, 1).uniform_(generator=g),
}
print("RESULT" + json.dumps({k: hashlib.sha256(bytes(memoryview(v.numpy()))).hexdigest() if v.dtype != tl.bfloat16
                             else None for k, v in draws.items()}))
"""


def _hashes_with_threads(n):
    env = dict(os.environ, OMP_NUM_THREADS=str(n))
    p = subprocess.run([sys.executable, "-c", _THREADS_SCRIPT], capture_output=True, text=True, env=env,
                       cwd=tempfile.gettempdir(), timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("RESULT"))
    return json.loads(line[len("RESULT"):])


def test_results_do_not_depend_on_the_thread_count():
    one, two = _hashes_with_threads(1), _hashes_with_threads(2)
    assert one == two


def test_concurrent_draws_take_disjoint_ranges():
    g = tl.Generator().manual_seed(0)
    results = []

    def work():
        for _ in range(50):
            results.append(tl.rand(40, generator=g).numpy())  # 10 blocks each

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert g.get_offset() == 4 * 50 * 10
    everything = np.concatenate(results)
    assert len(np.unique(everything)) > 0.99 * everything.size  # no range was handed out twice


# ------------------------------------------------------------------------------------------ generators and state
def test_manual_seed_and_initial_seed():
    g = tl.manual_seed(7)
    assert g is tl.default_generator and isinstance(g, tl.Generator)
    assert tl.initial_seed() == 7 and g.initial_seed() == 7
    assert tl.manual_seed(-1).initial_seed() == 2**64 - 1  # negative seeds wrap, as in PyTorch
    assert tl.manual_seed(2**64 - 1).initial_seed() == 2**64 - 1
    assert tl.manual_seed(True).initial_seed() == 1  # torch.manual_seed takes int(seed)
    assert tl.Generator().initial_seed() == 67280421310721  # PyTorch's default seed


def test_seed_is_nondeterministic_and_sets_the_initial_seed():
    s1 = tl.seed()
    assert isinstance(s1, int) and tl.initial_seed() == s1
    s2 = tl.Generator().seed()
    assert s1 != s2


def test_generator_object():
    g = tl.Generator()
    assert g.device == tl.device("cpu") and tl.Generator("cpu").device.type == "cpu"
    assert tl.Generator(device=tl.device("cpu")).device == tl.device("cpu")
    assert g.manual_seed(5) is g
    assert g.set_state(g.get_state()) is g
    assert g.set_offset(3) is g and g.get_offset() == 3
    assert g.manual_seed(5).get_offset() == 0  # seeding restarts the stream


def test_generator_copies_are_independent():
    g = tl.Generator().manual_seed(21)
    tl.rand(3, generator=g)
    for h in (copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
        assert h is not g and h.initial_seed() == 21 and h.get_offset() == g.get_offset()
        np.testing.assert_array_equal(tl.rand(4, generator=h).numpy(), tl.rand(4, generator=copy.copy(g)).numpy())
    offset = g.get_offset()
    tl.rand(4, generator=copy.deepcopy(g))
    assert g.get_offset() == offset


def test_generator_argument_leaves_the_default_generator_alone():
    tl.manual_seed(11)
    expected = tl.rand(5).numpy()
    tl.manual_seed(11)
    g = tl.Generator().manual_seed(11)
    np.testing.assert_array_equal(tl.rand(5, generator=g).numpy(), expected)
    assert tl.default_generator.get_offset() == 0
    np.testing.assert_array_equal(tl.rand(5).numpy(), expected)
    np.testing.assert_array_equal(tl.rand(5, generator=None).numpy(), tl.rand(5, generator=g).numpy())


def test_state_round_trip():
    g = tl.Generator().manual_seed(123)
    tl.rand(10, generator=g)
    state = g.get_state()
    assert state.dtype == tl.uint8 and tuple(state.shape) == (16,)
    a = tl.randn(6, generator=g).numpy()
    g.set_state(state)
    np.testing.assert_array_equal(tl.randn(6, generator=g).numpy(), a)
    other = tl.Generator().set_state(state)  # a state carries the seed too
    np.testing.assert_array_equal(tl.randn(6, generator=other).numpy(), a)
    # The global functions
    tl.manual_seed(5)
    s = tl.get_rng_state()
    b = tl.randint(0, 1000, (8,)).numpy()
    tl.rand(3)
    assert tl.set_rng_state(s) is None
    np.testing.assert_array_equal(tl.randint(0, 1000, (8,)).numpy(), b)
    assert tl.initial_seed() == 5


# ------------------------------------------------------------------------------------------ statistics
N = 1_000_000


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_rand_statistics(dtype):
    x = tl.rand(N, dtype=dtype, generator=tl.Generator().manual_seed(1))
    assert x.dtype == dtype
    v = values(x) if dtype == tl.bfloat16 else x.numpy().astype(np.float64)
    assert v.min() >= 0 and v.max() < 1
    # 1M samples: the mean's standard error is 0.29e-3, the variance's 0.075e-3.
    assert abs(v.mean() - 0.5) < 0.002
    assert abs(v.var() - 1 / 12) < (0.002 if dtype != tl.bfloat16 else 0.004)
    assert np.all(np.abs(np.histogram(v, bins=10, range=(0, 1))[0] / N - 0.1) < 0.003)


@pytest.mark.parametrize("dtype", FLOATING, ids=str)
def test_randn_statistics(dtype):
    x = tl.randn(N, dtype=dtype, generator=tl.Generator().manual_seed(2))
    v = values(x) if dtype == tl.bfloat16 else x.numpy().astype(np.float64)
    assert abs(v.mean()) < 0.005 and abs(v.std() - 1) < 0.005
    assert abs(np.mean(np.abs(v) > 1) - 0.3173) < 0.003  # P(|z| > 1)
    assert abs(np.mean(np.abs(v) > 2) - 0.0455) < 0.002  # P(|z| > 2)
    assert abs(np.mean(v ** 3)) < 0.02 and abs(np.mean(v ** 4) - 3) < 0.05  # skewness 0, kurtosis 3


def test_normal_mean_std_and_exponential_statistics():
    g = tl.Generator().manual_seed(3)
    x = tl.normal(3.0, 2.0, (N,), generator=g, dtype=tl.float64).numpy()
    assert abs(x.mean() - 3) < 0.01 and abs(x.std() - 2) < 0.01
    means, stds = tl.tensor([-5.0, 0.0, 10.0]), tl.tensor([[0.5], [4.0]])
    y = tl.normal(means, stds, generator=g)  # broadcast to (2, 3)
    assert tuple(y.shape) == (2, 3)
    big = tl.normal(tl.full((N,), -2.0), 0.5, generator=g).numpy()
    assert abs(big.mean() + 2) < 0.003 and abs(big.std() - 0.5) < 0.003
    e = tl.empty(N).exponential_(4.0, generator=g).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.002 and abs(e.std() - 0.25) < 0.002


def test_uniform_range():
    g = tl.Generator().manual_seed(4)
    x = tl.empty(N, dtype=tl.float64).uniform_(-3, 5, generator=g).numpy()
    assert x.min() >= -3 and x.max() < 5 and abs(x.mean() - 1) < 0.01
    for dtype in FLOATING:  # rounding may reach `to`: the kernel keeps it out
        t = values(tl.empty(100_000, dtype=dtype).uniform_(0.5, 0.50390625, generator=g))
        assert t.min() >= 0.5 and t.max() < 0.50390625
    assert np.all(tl.empty(10).uniform_(2, 2).numpy() == 2)


def test_randint_is_uniform_on_its_range():
    x = tl.randint(-3, 7, (N,), generator=tl.Generator().manual_seed(5)).numpy()
    assert x.min() == -3 and x.max() == 6
    counts = np.bincount(x + 3)
    assert len(counts) == 10 and np.all(np.abs(counts / N - 0.1) < 0.003)
    wide = tl.randint(-2**62, 2**62, (N,), generator=tl.Generator().manual_seed(5)).numpy()  # 64-bit draws
    assert wide.min() >= -2**62 and wide.max() < 2**62
    assert abs(np.mean(wide > 0) - 0.5) < 0.003 and abs(np.mean(np.abs(wide) < 2**61) - 0.5) < 0.003
    full = tl.empty(N, dtype=tl.int64).random_(-2**63, None, generator=tl.Generator()).numpy()  # all 2^64 values
    assert abs(np.mean(full < 0) - 0.5) < 0.003


def test_random_defaults_per_dtype():
    g = tl.Generator().manual_seed(6)
    assert set(tl.empty(1000, dtype=tl.bool).random_(generator=g).tolist()) == {False, True}
    u8 = tl.empty(100_000, dtype=tl.uint8).random_(generator=g).numpy()
    assert u8.min() == 0 and u8.max() == 255
    f16 = values(tl.empty(100_000, dtype=tl.float16).random_(generator=g))  # [0, 2^11]
    assert f16.min() == 0 and f16.max() == 2048 and np.all(f16 == np.round(f16))
    i64 = tl.empty(1000, dtype=tl.int64).random_(generator=g).numpy()
    assert i64.min() >= 0 and i64.max() > 2**60
    assert set(tl.empty(1000).random_(3, generator=g).tolist()) == {0.0, 1.0, 2.0}
    assert set(tl.empty(1000, dtype=tl.int8).random_(120, None, generator=g).tolist()) == set(range(120, 128))


def test_randperm_is_a_permutation():
    g = tl.Generator().manual_seed(7)
    for n in (0, 1, 2, 10, 1000, 100_001):
        p = tl.randperm(n, generator=g)
        assert p.dtype == tl.int64 and tuple(p.shape) == (n,)
        np.testing.assert_array_equal(np.sort(p.numpy()), np.arange(n))
    # Each value lands in each position equally often.
    hits = np.zeros((4, 4))
    for _ in range(4000):
        hits[np.arange(4), tl.randperm(4, generator=g).numpy()] += 1
    assert np.all(np.abs(hits / 4000 - 0.25) < 0.03)
    f = tl.randperm(2049, dtype=tl.float16, generator=g)
    np.testing.assert_array_equal(np.sort(values(f)), np.arange(2049))
    assert tl.randperm(256, dtype=tl.uint8).numpy().max() == 255


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_bernoulli_frequency(p):
    g = tl.Generator().manual_seed(8)
    a = tl.bernoulli(tl.full((N,), p, dtype=tl.float64), generator=g).numpy()
    b = tl.empty(N, dtype=tl.int32).bernoulli_(p, generator=g).numpy()
    c = tl.empty(N, dtype=tl.bool).bernoulli_(tl.full((N,), p), generator=g).numpy()
    for x in (a, b, c.astype(np.float64)):
        assert set(np.unique(x)) <= {0, 1} and abs(x.mean() - p) < 0.002
    probs = tl.tensor([[0.0], [1.0]])
    assert tl.empty(2, 5).bernoulli_(probs, generator=g).tolist() == [[0.0] * 5, [1.0] * 5]  # p broadcasts


# ------------------------------------------------------------------------------------------ dtypes, shapes, defaults
DTYPE_CASES = [
    ("tl.rand(2, 3)", "float32", (2, 3)),
    ("tl.rand((2, 3))", "float32", (2, 3)),
    ("tl.rand([])", "float32", ()),
    ("tl.rand(())", "float32", ()),
    ("tl.rand(0, 4)", "float32", (0, 4)),
    ("tl.rand(3, dtype=tl.float16)", "float16", (3,)),
    ("tl.rand(3, dtype=tl.bfloat16)", "bfloat16", (3,)),
    ("tl.randn(2, dtype=tl.float64)", "float64", (2,)),
    ("tl.rand(2, out=tl.empty(5, dtype=tl.float64))", "float64", (2,)),
    ("tl.randn(2, 2, out=tl.empty(1, dtype=tl.float16))", "float16", (2, 2)),
    ("tl.randint(10, (3,))", "int64", (3,)),
    ("tl.randint(3, 10, (2, 2))", "int64", (2, 2)),
    ("tl.randint(low=0, high=10, size=(3,))", "int64", (3,)),
    ("tl.randint(high=10, size=(3,))", "int64", (3,)),
    ("tl.randint(0, 2, (3,), dtype=tl.bool)", "bool", (3,)),
    ("tl.randint(0, 256, (3,), dtype=tl.uint8)", "uint8", (3,)),
    ("tl.randint(0, 3, (3,), dtype=tl.float32)", "float32", (3,)),
    ("tl.randint(3, (2,), out=tl.empty(3, dtype=tl.float64))", "float64", (2,)),
    ("tl.randperm(5)", "int64", (5,)),
    ("tl.randperm(5, dtype=tl.float32)", "float32", (5,)),
    ("tl.randperm(4, out=tl.empty(3, dtype=tl.float64))", "float64", (4,)),
    ("tl.randperm(0)", "int64", (0,)),
    ("tl.normal(tl.zeros(3), tl.ones(3))", "float32", (3,)),
    ("tl.normal(tl.zeros(3, dtype=tl.float64), tl.ones(3))", "float64", (3,)),
    ("tl.normal(tl.zeros(3), tl.ones(3, dtype=tl.float64))", "float32", (3,)),
    ("tl.normal(tl.zeros(3), tl.ones(3, dtype=tl.int64))", "float32", (3,)),
    ("tl.normal(tl.zeros(2, 1), tl.ones(3))", "float32", (2, 3)),
    ("tl.normal(tl.zeros(3, dtype=tl.float16), 2.0)", "float16", (3,)),
    ("tl.normal(mean=tl.zeros(3))", "float32", (3,)),
    ("tl.normal(0.0, tl.ones(2, 2, dtype=tl.float64))", "float64", (2, 2)),
    ("tl.normal(0, 1, (2, 3))", "float32", (2, 3)),
    ("tl.normal(0, 1, size=(2, 3), dtype=tl.float64)", "float64", (2, 3)),
    ("tl.normal(tl.zeros(3), 1.0, out=tl.empty(3, dtype=tl.float64))", "float64", (3,)),
    ("tl.bernoulli(tl.full((3,), 0.5))", "float32", (3,)),
    ("tl.bernoulli(tl.full((3,), 0.5, dtype=tl.float16))", "float16", (3,)),
    ("tl.bernoulli(tl.zeros(3, dtype=tl.int64), 0.5)", "int64", (3,)),
    ("tl.bernoulli(tl.zeros(3), p=0.5)", "float32", (3,)),
    ("tl.bernoulli(tl.full((3,), 0.5), out=tl.empty(3, dtype=tl.float64))", "float64", (3,)),
    ("tl.zeros(3).bernoulli()", "float32", (3,)),
    ("tl.zeros(3).bernoulli(0.3)", "float32", (3,)),
    ("tl.zeros(3, dtype=tl.bool).bernoulli_()", "bool", (3,)),
    ("tl.zeros(2, 3, dtype=tl.int64).bernoulli_(tl.full((3,), 0.5))", "int64", (2, 3)),
    ("tl.zeros(3, dtype=tl.int8).random_(-5, 5)", "int8", (3,)),
    ("tl.zeros(3).random_(3, None)", "float32", (3,)),
    ("tl.rand_like(tl.zeros(2, 3))", "float32", (2, 3)),
    ("tl.rand_like(tl.zeros(2, 3, dtype=tl.int64), dtype=tl.float64)", "float64", (2, 3)),
    ("tl.randn_like(tl.zeros(2, dtype=tl.float16))", "float16", (2,)),
    ("tl.randint_like(tl.zeros(2, 3), 5)", "float32", (2, 3)),
    ("tl.randint_like(tl.zeros(2, 3, dtype=tl.int32), 3, 5)", "int32", (2, 3)),
    ("tl.randint_like(tl.zeros(2, 3), 5, dtype=tl.int64)", "int64", (2, 3)),
]


@pytest.mark.parametrize("expr,dtype,shape", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_dtypes_and_shapes(expr, dtype, shape):
    r = eval(expr, {"tl": tl})
    assert r.dtype == getattr(tl, dtype) and tuple(r.shape) == shape


def test_default_dtype_applies():
    old = tl.get_default_dtype()
    try:
        tl.set_default_dtype(tl.float64)
        assert tl.rand(2).dtype == tl.float64 and tl.randn(2).dtype == tl.float64
        assert tl.normal(0, 1, (2,)).dtype == tl.float64
        assert tl.randint(5, (2,)).dtype == tl.int64 and tl.randperm(3).dtype == tl.int64
    finally:
        tl.set_default_dtype(old)


def test_out_and_in_place_semantics():
    out = tl.empty(7)
    v0 = out._version
    r = tl.rand(2, 3, out=out, generator=tl.Generator().manual_seed(1))
    assert r is out and tuple(out.shape) == (2, 3) and out._version > v0
    np.testing.assert_array_equal(out.numpy(), tl.rand(2, 3, generator=tl.Generator().manual_seed(1)).numpy())
    t = tl.zeros(4)
    assert t.uniform_() is t and t.normal_() is t and t.exponential_() is t and t.random_(5) is t
    assert t.bernoulli_() is t and t.bernoulli_(tl.full((4,), 0.5)) is t
    assert tl.rand(3)._version == 0 and tl.randint(4, (3,))._version == 0


def test_integer_values_and_ranges():
    g = tl.Generator().manual_seed(9)
    x = tl.randint(0, 3, (1000,), dtype=tl.float16, generator=g)
    assert set(values(x).tolist()) == {0.0, 1.0, 2.0}
    assert set(tl.randint_like(tl.zeros(1000, dtype=tl.int16), -2, 2, generator=g).tolist()) == {-2, -1, 0, 1}
    assert set(tl.randint(0, 2, (100,), dtype=tl.bool, generator=g).tolist()) == {False, True}


# ------------------------------------------------------------------------------------------ errors
# (code, exception type, message): PyTorch's messages.
ERROR_CASES = [
    ("tl.randint(5, 3, (2,))", RuntimeError, "random_ expects 'from' to be less than 'to', but got from=5 >= to=3"),
    ("tl.randint(3, 3, (2,))", RuntimeError, "random_ expects 'from' to be less than 'to', but got from=3 >= to=3"),
    ("tl.randint(0, (2,))", RuntimeError, "random_ expects 'from' to be less than 'to', but got from=0 >= to=0"),
    ("tl.randint(0, 300, (2,), dtype=tl.uint8)", RuntimeError, "to - 1 is out of bounds for unsigned char"),
    ("tl.randint(-1, 3, (2,), dtype=tl.uint8)", RuntimeError, "from is out of bounds for unsigned char"),
    ("tl.randint(0, 3, (2,), dtype=tl.bool)", RuntimeError, "to - 1 is out of bounds for bool"),
    ("tl.zeros(2, dtype=tl.int16).random_(0, 2**20)", RuntimeError, "to - 1 is out of bounds for short int"),
    ("tl.zeros(2, dtype=tl.float16).random_(0, 2**20)", RuntimeError, "to - 1 is out of bounds for c10::Half"),
    ("tl.zeros(3).random_(0)", RuntimeError, "random_ expects 'from' to be less than 'to', but got from=0 >= to=0"),
    ("tl.zeros(3).random_(2**25, None)", RuntimeError, "random_ expects 'from' casted to dtype to be less than or "
     "equal to 'to_inc' casted to dtype, but got from=33554432 > to_inc=16777216"),
    ("tl.randint_like(tl.zeros(3), -5)", RuntimeError, "but got from=0 >= to=-5"),
    ("tl.randint(10, 3)", TypeError, "randint()"),
    ("tl.randint(3.5, (3,))", TypeError, "randint()"),
    ("tl.rand(-1)", RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    ("tl.randn((2, -3))", RuntimeError, "Trying to create tensor with negative dimension -3: [2, -3]"),
    ("tl.randint(5, (-1,))", RuntimeError, "negative dimension -1"),
    ("tl.randperm(-1)", RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    ("tl.normal(0, 1, (-2,))", RuntimeError, "negative dimension -2"),
    ("tl.rand(2, dtype=tl.int64)", NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'"),
    ("tl.rand(2, dtype=tl.bool)", NotImplementedError, "not implemented for 'Bool'"),
    ("tl.rand(2, out=tl.empty(3, dtype=tl.int64))", NotImplementedError, "not implemented for 'Long'"),
    ("tl.randn(2, dtype=tl.int32)", NotImplementedError, "\"normal_kernel_cpu\" not implemented for 'Int'"),
    ("tl.rand_like(tl.zeros(2, dtype=tl.int64))", NotImplementedError, "not implemented for 'Long'"),
    ("tl.randperm(5, dtype=tl.bool)", NotImplementedError, "\"randperm\" not implemented for 'Bool'"),
    ("tl.randperm(3000, dtype=tl.float16)", RuntimeError, "n cannot be greater than 2049 for Half type."),
    ("tl.randperm(2**25, dtype=tl.float32)", RuntimeError, "n cannot be greater than 2^24+1 for Float type."),
    ("tl.randperm(300, dtype=tl.uint8)", RuntimeError, "value cannot be converted to type uint8_t without overflow"),
    ("tl.normal(tl.zeros(3), -1.0)", RuntimeError, "normal expects std >= 0.0, but found std -1"),
    ("tl.normal(tl.zeros(3), -1)", RuntimeError, "normal expects std >= 0.0, but found std -1"),
    ("tl.normal(0, -1, (2, 3))", RuntimeError, "normal expects std >= 0.0, but found std -1"),
    ("tl.zeros(3).normal_(0, -1)", RuntimeError, "normal expects std >= 0.0, but found std -1"),
    ("tl.zeros(3).normal_(0, float('nan'))", RuntimeError, "normal expects std >= 0.0, but found std nan"),
    ("tl.normal(tl.zeros(3), -tl.ones(3))", RuntimeError, "normal expects all elements of std >= 0.0"),
    ("tl.normal(0.0, tl.tensor([1.0, float('nan')]))", RuntimeError, "normal expects all elements of std >= 0.0"),
    ("tl.normal(tl.zeros(3, dtype=tl.int64), tl.ones(3))", NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Long'"),
    ("tl.normal(0.0, tl.ones(3, dtype=tl.int64))", NotImplementedError, "not implemented for 'Long'"),
    ("tl.normal(tl.zeros(2, 3), tl.ones(6))", RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (6) at non-singleton dimension 1"),
    ("tl.normal(2, 3)", TypeError, "normal() received an invalid combination of arguments"),
    ("tl.zeros(3, dtype=tl.int64).uniform_()", NotImplementedError, "not implemented for 'Long'"),
    ("tl.zeros(3).uniform_(1, 0)", RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=1 > to=0"),
    ("tl.zeros(3).uniform_(0, float('inf'))", RuntimeError, "to is out of bounds for float"),
    ("tl.zeros(3).uniform_(float('nan'), 1)", RuntimeError, "from is out of bounds for float"),
    ("tl.zeros(3, dtype=tl.float16).uniform_(0, 70000)", RuntimeError, "to is out of bounds for c10::Half"),
    ("tl.zeros(3).uniform_(-3.4e38, 3.4e38)", RuntimeError, "uniform_ expects to-from <= "
     "std::numeric_limits<Float>::max(), but found to=3.4e+38 and from=-3.4e+38 which result in to-from to exceed "
     "the limit"),
    ("tl.zeros(3).exponential_(-1)", RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=-1"),
    ("tl.zeros(3).exponential_(0)", RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=0"),
    ("tl.zeros(3, dtype=tl.int64).exponential_()", RuntimeError, "Exponential distribution is a continuous "
     "probability distribution. dtype must be a floating point but you specified Long"),
    ("tl.bernoulli(tl.full((3,), 1.5))", RuntimeError, "Expected p_in >= 0 && p_in <= 1 to be true, but got false."),
    ("tl.bernoulli(tl.full((3,), -0.5))", RuntimeError, "Expected p_in >= 0 && p_in <= 1"),
    ("tl.bernoulli(tl.full((3,), float('nan')))", RuntimeError, "Expected p_in >= 0 && p_in <= 1"),
    ("tl.zeros(3).bernoulli_(tl.full((3,), 1.5))", RuntimeError, "Expected p_in >= 0 && p_in <= 1"),
    ("tl.bernoulli(tl.ones(3, dtype=tl.int64))", NotImplementedError,
     "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'"),
    ("tl.zeros(3).bernoulli_(tl.ones(3, dtype=tl.int64))", NotImplementedError, "not implemented for 'Long'"),
    ("tl.bernoulli(tl.zeros(3), 1.5)", RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    ("tl.zeros(3).bernoulli_(-0.5)", RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=-0.5"),
    ("tl.zeros(3).bernoulli_(float('nan'))", RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=nan"),
    ("tl.zeros(3).bernoulli_(tl.full((2, 3), 0.5))", RuntimeError, "must be broadcastable to the shape [3]"),
    ("tl.bernoulli(tl.zeros(3), tl.ones(3))", TypeError, "bernoulli() received an invalid combination"),
    ("tl.rand(2, generator=5)", TypeError, "argument 'generator' must be torchlite.Generator, not int"),
    ("tl.zeros(2).uniform_(generator='x')", TypeError, "generator"),
    ("tl.Generator().manual_seed(1.5)", RuntimeError, "manual_seed expected a long, but got float"),
    ("tl.Generator().manual_seed(True)", RuntimeError, "manual_seed expected a long, but got bool"),
    ("tl.Generator().manual_seed(2**64)", ValueError, "Overflow when unpacking long long"),
    ("tl.Generator().manual_seed(-2**63 - 1)", ValueError, "Overflow when unpacking long long"),
    ("tl.manual_seed('x')", ValueError, "invalid literal for int()"),
    ("tl.Generator(device='meta')", RuntimeError, "meta"),
    ("tl.Generator(device=True)", TypeError, "expected a torchlite.device, a string or a device index"),
    ("tl.Generator(device=-1)", RuntimeError, "Device index must not be negative"),
    ("tl.Generator().set_state(5)", TypeError, "expected a torchlite.uint8 tensor, but got int"),
    ("tl.Generator().set_state(tl.zeros(16))", TypeError, "RNG state must be a torchlite.uint8 tensor"),
    ("tl.Generator().set_state(tl.zeros(3, dtype=tl.uint8))", RuntimeError,
     "Expected a Generator state of size 16 but found the input RNG state size to be 3"),
    ("tl.set_rng_state(5)", TypeError, "expected a torchlite.uint8 tensor"),
]


@pytest.mark.parametrize("code,exc,message", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors(code, exc, message):
    g = tl.Generator().manual_seed(0)
    offset = tl.default_generator.get_offset()
    with pytest.raises(exc) as info:
        eval(code, {"tl": tl, "g": g})
    assert message in str(info.value)
    assert tl.default_generator.get_offset() == offset  # a refused call takes nothing from the stream


def test_cuda_device_without_cuda_raises():
    if tl.cuda.is_available():
        pytest.skip("a CUDA device is present")
    for code in ("tl.rand(2, device='cuda')", "tl.randperm(3, device='cuda')", "tl.Generator(device='cuda')",
                 "tl.randint(3, (2,), device='cuda')", "tl.normal(0, 1, (2,), device='cuda')"):
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            eval(code, {"tl": tl})


# Bad input in a subprocess: a crash (segfault, abort) fails the test instead of pytest.
_BAD_INPUTS = [
    "tl.rand(2**62)", "tl.randn(2**31, 2**31)", "tl.randperm(2**62)", "tl.randint(0, 5, (2**40, 2**40))",
    "tl.randint(-2**63, 2**63 - 1, (3,))", "tl.randint(2**63 - 1, (3,))", "tl.randint(0, 2**64, (3,))",
    "tl.zeros(3, dtype=tl.int64).random_(2**63 - 1, None)", "tl.zeros(3, dtype=tl.int64).random_(-2**63, None)",
    "tl.normal(tl.zeros(0), tl.ones(0))", "tl.normal(tl.zeros(()), 1.0)", "tl.rand(0)", "tl.randperm(0)",
    "tl.bernoulli(tl.zeros(0))", "tl.zeros(2, 0).bernoulli_(tl.zeros(0))", "tl.zeros(3).uniform_(1e308, 1e308)",
    "tl.zeros(3, dtype=tl.float64).uniform_(-1e308, 1e308)", "tl.zeros(3).exponential_(float('inf'))",
    "tl.zeros(3).normal_(float('inf'), 1)", "tl.zeros(3).normal_(0, float('inf'))",
    "tl.Generator().set_offset(2**64 - 1)", "tl.rand(9, generator=tl.Generator().set_offset(2**64 - 1))",
    "tl.rand(2, generator=tl.default_generator, out=tl.empty(0).transpose(0, 0))",
    "tl.zeros(3).random_(None)", "tl.zeros(3).bernoulli_(tl.zeros(3), generator=None)",
    "tl.normal(tl.zeros(3), tl.ones(3), out=tl.zeros(3))", "tl.zeros(3).bernoulli_(p=None)",
]

_BAD_RUNNER = r"""
import json, sys
import torchlite as tl
for code in json.loads(sys.argv[1]):
    try:
        r = eval(code)
        out = {"code": code, "type": None}
    except Exception as e:
        out = {"code": code, "type": type(e).__name__, "message": str(e)[:200]}
    print("RESULT" + json.dumps(out), flush=True)
"""


def test_bad_input_never_crashes():
    p = subprocess.run([sys.executable, "-c", _BAD_RUNNER, json.dumps(_BAD_INPUTS)], capture_output=True, text=True,
                       cwd=tempfile.gettempdir(), timeout=120)
    assert p.returncode == 0, f"crashed (exit code {p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}"
    results = [json.loads(ln[len("RESULT"):]) for ln in p.stdout.splitlines() if ln.startswith("RESULT")]
    assert [r["code"] for r in results] == _BAD_INPUTS
    for r in results:
        assert r["type"] in (None, "RuntimeError", "TypeError", "ValueError", "NotImplementedError",
                             "IndexError", "OverflowError"), r
