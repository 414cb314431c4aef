"""Samples and error cases for linear algebra (matmul family, einsum, tensordot, kron, trace, tril/triu, diag); merged into tests/test_ops.py."""


def samples(h):
    """Full overload name -> a function returning a sample call's arguments by name."""
    return {}


def numpy_cases(h):
    """Full overload name -> (sample as in samples(), reference computing the result from the sample's
    arguments as float64 NumPy arrays); the sample also serves the variant tests."""
    return {}


# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]), b = tensor([True, False]).
ERRORS = []
