"""Samples and error cases for linear algebra (matmul family, einsum, tensordot, kron, trace, tril/triu, diag); part of torchlite.testing's op database."""

import numpy as np

import torchlite as tl


def _ints(shape, seed, noncontiguous=False, dtype=np.float32):
    """float32 tensor of small integers: products and sums of them are exact, so the NumPy float64 reference
    matches exactly. Transposed (a non-contiguous layout) when asked."""
    rng = np.random.default_rng(seed)
    if noncontiguous:
        data = rng.integers(-4, 5, size=tuple(reversed(shape))).astype(dtype)
        return tl.tensor(data).permute(*reversed(range(len(shape))))
    return tl.tensor(rng.integers(-4, 5, size=shape).astype(dtype))


def _matmul_ref(self, other):
    return np.matmul(self, other)


def _diag_embed_ref(self, offset, dim1, dim2):
    """Zeros with self's last dim on the offset diagonal of the new dims (dim1, dim2), as PyTorch lays it out."""
    n = abs(offset) + self.shape[-1]
    out = np.zeros(self.shape[:-1] + (n, n))
    idx = np.arange(self.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., rows, cols] = self
    nd = self.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    return np.moveaxis(out, (-2, -1), (d1, d2))


def samples():
    """Full overload name -> a function returning a sample call's arguments by name."""
    return {}


def numpy_cases():
    """Full overload name -> (sample as in samples(), reference computing the result from the sample's
    arguments as float64 NumPy arrays); the sample also serves the variant tests."""
    return {
        "linear": (lambda: {"input": _ints((3, 4), 40), "weight": _ints((5, 4), 41, True), "bias": _ints((5,), 42)},
                   lambda input, weight, bias: input @ weight.T + bias),
        "bmm": (lambda: {"self": _ints((3, 2, 4), 1), "mat2": _ints((3, 4, 5), 2, True)},
                lambda self, mat2: self @ mat2),
        "addmm": (lambda: {"self": _ints((2, 4), 3), "mat1": _ints((2, 3), 4, True), "mat2": _ints((3, 4), 5),
                           "beta": 2, "alpha": -1.5},
                  lambda self, mat1, mat2, beta, alpha: beta * self + alpha * (mat1 @ mat2)),
        "baddbmm": (lambda: {"self": _ints((2, 3, 4), 6), "batch1": _ints((2, 3, 5), 7),
                             "batch2": _ints((2, 5, 4), 8, True), "beta": 0.5, "alpha": 2},
                    lambda self, batch1, batch2, beta, alpha: beta * self + alpha * (batch1 @ batch2)),
        "addbmm": (lambda: {"self": _ints((3, 5), 9), "batch1": _ints((4, 3, 2), 10, True),
                            "batch2": _ints((4, 2, 5), 11), "beta": -1, "alpha": 3},
                   lambda self, batch1, batch2, beta, alpha: beta * self + alpha * (batch1 @ batch2).sum(0)),
        "addmv": (lambda: {"self": _ints((3,), 12), "mat": _ints((3, 4), 13, True), "vec": _ints((4,), 14),
                           "beta": 2, "alpha": 0.5},
                  lambda self, mat, vec, beta, alpha: beta * self + alpha * (mat @ vec)),
        "mv": (lambda: {"self": _ints((3, 4), 15), "vec": _ints((4,), 16)}, lambda self, vec: self @ vec),
        "dot": (lambda: {"self": _ints((5,), 17), "tensor": _ints((5,), 18)},
                lambda self, tensor: np.dot(self, tensor)),
        "vdot": (lambda: {"self": _ints((5,), 19), "other": _ints((5,), 20)},
                 lambda self, other: np.vdot(self, other)),
        "outer": (lambda: {"self": _ints((3,), 21), "vec2": _ints((4,), 22)},
                  lambda self, vec2: np.outer(self, vec2)),
        "ger": (lambda: {"self": _ints((2,), 23), "vec2": _ints((3,), 24)}, lambda self, vec2: np.outer(self, vec2)),
        "matmul": (lambda: {"self": _ints((2, 1, 3, 4), 25), "other": _ints((3, 4, 2), 26, True)}, _matmul_ref),
        "tril": (lambda: {"self": _ints((2, 3, 4), 27, True), "diagonal": -1},
                 lambda self, diagonal: np.tril(self, diagonal)),
        "triu": (lambda: {"self": _ints((4, 3), 28), "diagonal": 1}, lambda self, diagonal: np.triu(self, diagonal)),
        "diag_embed": (lambda: {"self": _ints((2, 3), 29), "offset": -1, "dim1": 0, "dim2": 2}, _diag_embed_ref),
        "diag": (lambda: {"self": _ints((3,), 30), "diagonal": 2}, lambda self, diagonal: np.diag(self, diagonal)),
        "trace": (lambda: {"self": _ints((3, 4), 31, True)}, lambda self: np.trace(self)),
        "kron": (lambda: {"self": _ints((2, 3), 32, True), "other": _ints((3, 1, 2), 33, dtype=np.int32)},
                 lambda self, other: np.kron(self, other)),
        "tensordot": (lambda: {"self": _ints((2, 3, 4), 34), "other": _ints((4, 5, 3), 35, True),
                               "dims_self": (1, -1), "dims_other": (2, 0)},
                      lambda self, other, dims_self, dims_other: np.tensordot(self, other, (dims_self, dims_other))),
        "einsum": (lambda: {"equation": "bij,jk,bkk->bik",
                            "tensors": (_ints((2, 3, 4), 36), _ints((4, 5), 37, True), _ints((2, 5, 5), 38))},
                   lambda equation, tensors: np.einsum(equation, *tensors)),
    }


# (code, exception type, substrings of the message), run in a subprocess with a = ones(2, 3),
# i = tensor([1, 2, 3]), b = tensor([True, False]).
ERRORS = [
    ("tl.nn.functional.linear(a, tl.ones(4, 2))", "RuntimeError",
     ["linear", "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)"]),
    ("tl.mm(a, tl.ones(4, 5))", "RuntimeError", ["mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"]),
    ("tl.matmul(tl.tensor(1.0), i)", "RuntimeError",
     ["both arguments to matmul need to be at least 1D, but they are 0D and 1D"]),
    ("tl.matmul(tl.ones(3), tl.ones(4))", "RuntimeError",
     ["inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and "
      "4 elements respectively"]),
    ("tl.matmul(a, tl.ones(4))", "RuntimeError", ["size mismatch, got input (2), mat (2x3), vec (4)"]),
    ("tl.matmul(tl.ones(3), tl.ones(4, 2))", "RuntimeError", ["mat1 and mat2 shapes cannot be multiplied (1x3 and 4x2)"]),
    ("tl.matmul(tl.ones(3, 2, 3), tl.ones(2, 3, 2))", "RuntimeError",
     ["The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"]),
    ("tl.matmul(tl.ones(4), tl.ones(2, 3, 2))", "RuntimeError",
     ["Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."]),
    ("tl.matmul(tl.ones(2, 2, 3), tl.ones(4))", "RuntimeError", ["size mismatch, got input (4), mat (4x3), vec (4)"]),
    ("tl.matmul(a, a.double().t())", "RuntimeError", ["expected m1 and m2 to have the same dtype, but got: float != double"]),
    ("tl.matmul(tl.ones(3), tl.ones(3, dtype=tl.float64))", "RuntimeError",
     ["dot : expected both vectors to have same dtype, but found Float and Double"]),
    ("tl.matmul(b, b)", "NotImplementedError", ["dot", "'Bool'"]),
    ("a @ 2", "TypeError", ["unsupported operand type(s) for @"]),
    ("2 @ a", "TypeError", ["unsupported operand type(s) for @"]),
    ("tl.bmm(a, a)", "RuntimeError", ["batch1 must be a 3D tensor"]),
    ("tl.bmm(tl.ones(2, 2, 3), tl.ones(3, 3, 2))", "RuntimeError",
     ["Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3]."]),
    ("tl.bmm(tl.ones(2, 2, 3), tl.ones(2, 3, 2, dtype=tl.int32))", "RuntimeError",
     ["expected scalar type Float but found Int"]),
    ("tl.bmm(tl.ones(1, 2, 2, dtype=tl.bool), tl.ones(1, 2, 2, dtype=tl.bool))", "NotImplementedError",
     ["bmm", "'Bool'"]),
    ("tl.addmm(tl.ones(3, 3), a, tl.ones(3, 2))", "RuntimeError",
     ["The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1"]),
    ("tl.addmm(tl.ones(2, 2), a, tl.ones(3, 2, dtype=tl.float64))", "RuntimeError",
     ["self and mat2 must have the same dtype, but got Float and Double"]),
    ("tl.addmm(tl.ones(2, 2), tl.ones(2, 3, dtype=tl.float64), tl.ones(3, 2))", "RuntimeError",
     ["mat1 and mat2 must have the same dtype, but got Double and Float"]),
    ("tl.addmm(tl.ones(2, 2), tl.ones(3), tl.ones(3, 2))", "RuntimeError", ["mat1 must be a matrix, got 1-D tensor"]),
    ("tl.addmv(tl.ones(3), a, i.float())", "RuntimeError", ["size mismatch, got input (3), mat (2x3), vec (3)"]),
    ("tl.addmv(tl.ones(2, 2), a, i.float())", "RuntimeError", ["vector + matrix @ vector expected, got 2, 2, 1"]),
    ("tl.addmv(tl.ones(2), a, tl.ones(3, dtype=tl.float64))", "RuntimeError",
     ["addmv input tensors must have the same dtype, but got Float, Float, and Double"]),
    ("tl.addbmm(tl.ones(2, 2), tl.ones(2, 2, 3), tl.ones(3, 3, 2))", "RuntimeError",
     ["batch1 and batch2 must have same number of batches, got 2 and 3"]),
    ("tl.addbmm(tl.ones(2, 2), tl.ones(2, 2, 3), tl.ones(2, 4, 2))", "RuntimeError",
     ["Incompatible matrix sizes for bmm (2x3 and 4x2)"]),
    ("tl.addbmm(tl.ones(2, 2), a, tl.ones(3, 2))", "IndexError", ["Dimension out of range"]),
    ("tl.baddbmm(tl.ones(2, 2, 2, dtype=tl.float64), tl.ones(2, 2, 3), tl.ones(2, 3, 2))", "RuntimeError",
     ["Input dtypes must be the same, got: input double, batch1: float, batch2: float"]),
    ("tl.baddbmm(tl.ones(2, 2, 3), tl.ones(2, 2, 3), tl.ones(2, 3, 2))", "RuntimeError",
     ["The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 2"]),
    ("tl.dot(a, i)", "RuntimeError", ["1D tensors expected, but got 2D and 1D tensors"]),
    ("tl.dot(i, i.float())", "RuntimeError", ["dot : expected both vectors to have same dtype, but found Long and Float"]),
    ("tl.vdot(tl.ones(3), tl.ones(4))", "RuntimeError", ["inconsistent tensor size, expected tensor [3] and src [4]"]),
    ("tl.dot(b, b)", "NotImplementedError", ["dot", "'Bool'"]),
    ("tl.mv(a, tl.ones(4))", "RuntimeError", ["size mismatch, got input (2), mat (2x3), vec (4)"]),
    ("tl.mv(a, tl.ones(3, 1))", "RuntimeError", ["vector + matrix @ vector expected, got 1, 2, 2"]),
    ("tl.mv(a, tl.ones(3, dtype=tl.float64))", "RuntimeError",
     ["addmv input tensors must have the same dtype, but got Double, Float, and Double"]),
    ("tl.outer(a, i)", "RuntimeError", ["outer: Expected 1-D argument self, but got 2-D"]),
    ("tl.ger(i, tl.tensor(1.0))", "RuntimeError", ["outer: Expected 1-D argument vec2, but got 0-D"]),
    ("tl.tril(i)", "RuntimeError", ["tril: input tensor must have at least 2 dimensions"]),
    ("tl.tensor(1.0).triu_()", "RuntimeError", ["triu: input tensor must have at least 2 dimensions"]),
    ("tl.diag(tl.ones(2, 2, 2))", "RuntimeError", ["diag(): Supports 1D or 2D tensors. Got 3D"]),
    ("tl.diag(tl.tensor(1.0))", "RuntimeError", ["diag(): Supports 1D or 2D tensors. Got 0D"]),
    ("tl.diag_embed(i, 0, 0, 0)", "RuntimeError", ["diagonal dimensions cannot be identical 0, 0"]),
    ("tl.diag_embed(i, 0, -2, 0)", "RuntimeError", ["diagonal dimensions cannot be identical -2, 0"]),
    ("tl.diag_embed(i, 0, 0, 3)", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], but got 3)"]),
    ("tl.diag_embed(tl.tensor(1.0))", "IndexError",
     ["Dimension out of range (expected to be in range of [-1, 0], but got -2)"]),
    ("tl.einsum('i', a)", "RuntimeError", ["einsum(): the number of subscripts in the equation (1) does not match the "
                                            "number of dimensions (2) for operand 0 and no ellipsis was given"]),
    ("tl.einsum('i,j', a)", "RuntimeError", ["einsum(): fewer operands were provided than specified in the equation"]),
    ("tl.einsum('ij', a, a)", "RuntimeError", ["einsum(): more operands were provided than specified in the equation"]),
    ("tl.einsum('i1', a)", "RuntimeError", ["einsum(): invalid subscript given at index 1 in the equation string, "
                                            "subscripts must be in [a-zA-Z]"]),
    ("tl.einsum('i..->', a)", "RuntimeError", ["einsum(): found '.' for operand 0 that is not part of any ellipsis"]),
    ("tl.einsum('i->ii', i)", "RuntimeError", ["einsum(): output subscript i appears more than once in the output"]),
    ("tl.einsum('i->j', i)", "RuntimeError",
     ["einsum(): output subscript j does not appear in the equation for any input operand"]),
    ("tl.einsum('ii', a)", "RuntimeError",
     ["einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"]),
    ("tl.einsum('ij,ij->ij', a, a.t())", "RuntimeError",
     ["einsum(): subscript i has size 3 for operand 1 which does not broadcast with previously seen size 2"]),
    ("tl.einsum('i,i', i.float(), i.double())", "RuntimeError", ["expected scalar type Float but found Double"]),
    ("tl.einsum('i,i->', b, b)", "NotImplementedError", ["bmm", "'Bool'"]),
    ("tl.einsum('ij')", "ValueError", ["einsum(): must specify the equation string and at least one operand"]),
    ("tl.tensordot(a, tl.ones(4, 2), 1)", "RuntimeError", ["contracted dimensions need to match, but first has size 3 "
                                                            "in dim -1 and second has size 4 in dim 0"]),
    ("tl.tensordot(a, a, -1)", "RuntimeError", ["tensordot expects dims >= 0, but got dims=-1"]),
    ("tl.tensordot(a, a, 3)", "RuntimeError", ["tensordot expects dims < ndim_a or ndim_b, but got dims=3"]),
    ("tl.tensordot(a, a, ([1], [0, 1]))", "RuntimeError", ["both dimension lists should have same length"]),
    ("tl.tensordot(a, a, ([1], [5]))", "IndexError", ["Dimension out of range (expected to be in range of [-2, 1], "
                                                      "but got 5)"]),
    ("tl.tensordot(a, a.double(), ([1], [1]))", "RuntimeError", ["both inputs should have same dtype"]),
    ("tl.tensordot(a, a, 1.5)", "RuntimeError", ["tensordot expects dims to be int or tuple[list[int], list[int]]"]),
    ("tl.trace(i)", "RuntimeError", ["trace: expected a matrix, but got tensor with dim 1"]),
    ("tl.trace(tl.ones(2, 2, dtype=tl.bool))", "NotImplementedError", ["trace", "'Bool'"]),
]
