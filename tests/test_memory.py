"""Peak memory: an op needs at most a small factor of its inputs' and outputs' bytes (issue 19, class 6).

A 256 MB uint8 `flip` once peaked at 4.6 GB because it built an int64 index per element; a bool mask's
`sum()` copied the mask to int64 (8x). The sweep runs every op of the op database whose sample takes one
tensor, with that tensor repeated along dim 0 to about a million elements, and reads the CPU allocator's
peak (torchlite.cpu.memory_stats) above what was allocated before the call.

Known and within the limit: an elementwise op whose inputs differ in dtype casts the narrower input to the
common dtype as a whole first (at most the output's size again; `bool_tensor + 1` peaks at 2x its int64
output)."""
import gc

import pytest

import test_ops as T

tl = T.tl
N = 1 << 20
LIMIT = 4.0  # extra bytes / (input + output bytes)


def nbytes(v):
    if isinstance(v, tl.Tensor):
        return v.numel() * v.element_size()
    if isinstance(v, (tuple, list)):
        return sum(nbytes(x) for x in v)
    return 0


def extra_bytes(f):
    """(result, peak bytes allocated by f beyond those allocated before it)."""
    gc.collect()
    tl.cpu.empty_cache()
    base = tl.cpu.memory_allocated()
    tl.cpu.reset_memory_stats()
    r = f()
    return r, tl.cpu.memory_stats()["peak_allocated_bytes"] - base


def _one_tensor_ops():
    out = []
    for op in T.OPS:
        if not op.has_sample or op.primary_kind == "inplace":
            continue
        s = op.sample()
        if [k for k, v in s.items() if isinstance(v, tl.Tensor)] != ["self"]:
            continue
        if s["self"].dim() == 0 or s["self"].numel() == 0:
            continue
        out.append(op)
    return out


SWEPT = _one_tensor_ops()


def test_the_sweep_covers_many_ops():
    assert len(SWEPT) >= 150, len(SWEPT)


@pytest.mark.parametrize("op", SWEPT, ids=T.ids(SWEPT))
def test_peak_memory_is_a_small_factor_of_inputs_and_outputs(op):
    args = dict(op.sample())
    small = args["self"]
    args["self"] = small.repeat(max(1, N // small.numel()), *([1] * (small.dim() - 1))).contiguous()
    op.reseed()
    try:
        with tl.no_grad():
            r, extra = extra_bytes(lambda: op.call(op.primary_kind, args))
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        pytest.skip(f"the sample does not scale along dim 0 for this op: {e}")
    ratio = extra / max(1, nbytes(args["self"]) + nbytes(r))
    assert ratio <= LIMIT, f"{op.full_name}: peak {extra} bytes, {ratio:.1f}x its input and output"


M = 1 << 22


@pytest.mark.parametrize("case", ["sum", "sum_dim", "count_nonzero", "cumsum", "mask_assign", "flip"])
def test_narrow_inputs_are_not_widened_first(case):
    """The cases that used to copy a bool or uint8 input to int64 (or indices) before working."""
    mask = tl.arange(M) % 3 == 0
    u8 = (tl.arange(M) % 251).to(tl.uint8)
    calls = {
        "sum": (lambda: mask.sum(), mask),
        "sum_dim": (lambda: mask.reshape(1024, -1).sum(1), mask),
        "count_nonzero": (lambda: u8.count_nonzero(), u8),
        "cumsum": (lambda: u8.cumsum(0), u8),
        "mask_assign": (lambda: u8.__setitem__(mask, 7), u8),
        "flip": (lambda: u8.flip(0), u8),
    }
    f, inp = calls[case]
    r, extra = extra_bytes(f)
    out = nbytes(r)
    # At most the output plus a temporary of the input's own size (count_nonzero's mask of a uint8 input).
    assert extra <= out + nbytes(inp) + (1 << 16), (case, extra, out)


def test_mask_assignment_values():
    x = tl.arange(24.).reshape(2, 3, 4)
    m = x[0, :, 0] > 3
    y = x.clone()
    y[:, m] = -1
    assert y[:, 1:].eq(-1).all() and y[:, 0].eq(x[:, 0]).all()
    z = x.clone()
    z[1, m, 2] = tl.tensor(7, dtype=tl.int64)  # a 0-dim value of another dtype
    assert z[1, 1:, 2].eq(7).all() and int(z.ne(x).sum()) == 2
    u = x.to(tl.uint8)
    with pytest.raises(RuntimeError, match="cannot be converted to type uint8_t without overflow"):
        u[u > 3] = 300
    g = tl.zeros(3, requires_grad=True)
    val = tl.tensor(2., requires_grad=True)
    h = g.clone()
    h[tl.tensor([True, False, True])] = val
    (h * tl.tensor([1., 10., 100.])).sum().backward()
    assert val.grad.item() == 101.0 and g.grad.tolist() == [0.0, 10.0, 0.0]
