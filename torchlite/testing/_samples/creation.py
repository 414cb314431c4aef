"""Samples and error cases for creation ops (arange, linspace, logspace, eye, empty_strided, *_like,
new_*); part of torchlite.testing's op database. Values are checked in tests/test_creation.py."""

from .. import _helpers as h  # make, rng_for, f32, NP_DTYPES, tl


def samples():
    """Full overload name -> a function returning a sample call's arguments by name."""
    tl = h.tl
    return {
        "empty_strided": lambda: {"size": (2, 3), "stride": (1, 2)},
        "empty_like": lambda: {"self": h.f32((2, 3))},
        "zeros_like": lambda: {"self": h.f32((2, 3), True)},
        "ones_like": lambda: {"self": h.f32((2, 3)), "dtype": tl.int16},
        "full_like": lambda: {"self": h.make((2, 3), "int32", h.rng_for("full_like")), "fill_value": 2.5},
        "new_empty": lambda: {"self": h.f32((2, 3)), "size": (4,)},
        "new_empty_strided": lambda: {"self": h.f32((2, 3)), "size": (2, 2), "stride": (1, 2)},
        "new_zeros": lambda: {"self": h.f32((2, 3)), "size": (3, 1)},
        "new_ones": lambda: {"self": h.f32((2, 3)), "size": (2,), "dtype": tl.float64},
        "new_full": lambda: {"self": h.make((2, 3), "int64", h.rng_for("new_full")), "size": (2, 2),
                             "fill_value": 7},
        "arange": lambda: {"end": 7},
        "arange.start_step": lambda: {"start": -1.5, "end": 4, "step": 0.5},
        "linspace": lambda: {"start": -2, "end": 3.5, "steps": 12},
        "logspace": lambda: {"start": -1, "end": 2, "steps": 7, "base": 2.0},
        "eye": lambda: {"n": 3, "m": 4},
        "nan_to_num": lambda: {"self": tl.tensor([float("nan"), float("inf"), -float("inf"), 1.5, -2.0]),
                               "nan": 1.0, "neginf": -7.0},
        "positive": lambda: {"self": h.f32((2, 3))},
    }


def numpy_cases():
    """Full overload name -> (sample as in samples(), reference computing the result from the sample's
    arguments as float64 NumPy arrays); the sample also serves the variant tests."""
    return {}


# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]), b = tensor([True, False]).
ERRORS = [
    ("tl.arange(0, 10, 0)", "RuntimeError", ["arange", "step must be nonzero"]),
    ("tl.arange(0, 10, -1)", "RuntimeError", ["arange", "upper bound and lower bound inconsistent with step sign"]),
    ("tl.arange(0, float('inf'))", "RuntimeError", ["arange", "unsupported range: 0 -> inf"]),
    ("tl.arange(float('nan'))", "RuntimeError", ["arange", "unsupported range: 0 -> nan"]),
    ("tl.arange(0, 10, dtype=tl.bool)", "NotImplementedError", ["arange_cpu", "'Bool'"]),
    ("tl.arange('a')", "TypeError", ["arange()", "str"]),
    ("tl.arange(0, 3, 0.7, dtype=tl.int64)", "RuntimeError", ["step must be nonzero"]),
    ("tl.linspace(0, 1, -1)", "RuntimeError", ["linspace", "number of steps must be non-negative"]),
    ("tl.linspace(0, 1, 2.5)", "TypeError", ["linspace()", "float"]),
    ("tl.linspace(0, 300, 4, dtype=tl.uint8)", "RuntimeError", ["linspace", "300", "without overflow"]),
    ("tl.linspace(0, 1, 3, dtype=tl.bool)", "NotImplementedError", ["linspace_cpu", "'Bool'"]),
    ("tl.logspace(0, 1, -2)", "RuntimeError", ["logspace", "number of steps must be non-negative"]),
    ("tl.eye(-1)", "RuntimeError", ["eye", "n must be greater or equal to 0, got -1"]),
    ("tl.eye(2, -1)", "RuntimeError", ["eye", "m must be greater or equal to 0, got -1"]),
    ("tl.empty_strided((2, 3), (1,))", "RuntimeError",
     ["empty_strided", "dimensionality of sizes (2) must match dimensionality of strides (1)"]),
    ("tl.empty_strided((2, 3), (-1, 1))", "RuntimeError", ["Storage size calculation overflowed", "[-1, 1]"]),
    ("tl.empty_strided((2**40, 2**40), (2**40, 1))", "RuntimeError", ["Storage size calculation overflowed"]),
    ("tl.empty_strided((-2, 3), (3, 1))", "RuntimeError", ["empty_strided", "-2"]),
    ("a.new_zeros((-1,))", "RuntimeError", ["-1"]),
    ("tl.zeros_like(a, dtype='x')", "TypeError", ["zeros_like()", "dtype"]),
    ("b.positive()", "RuntimeError", ["positive", "on a bool tensor is not supported"]),
    ("+b", "RuntimeError", ["bool tensor is not supported"]),
]
