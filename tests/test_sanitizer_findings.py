"""Defects tools/sanitize.sh (AddressSanitizer + UndefinedBehaviorSanitizer, issue 19) found, one test each.

Without the sanitizers these read out of bounds silently (a wrong value or, now and then, a crash); each
test checks the clear error or the right value that replaced it. The size cases (arange) are in
test_checked_values.py."""
import pytest

import torchlite as tl


def test_max_pool_backward_checks_plane_dims():
    # kernel_size=() made every dim a plane dim: the kernel read grad_output and indices past their end.
    x = tl.ones(2, 3, 5, 4)
    _, idx = tl.nn.functional.max_pool2d(x, (2, 3), stride=1, padding=(1, 0), return_indices=True)
    go = tl.ones(idx.shape)
    with pytest.raises(RuntimeError, match="max_pool_backward: indices of size"):
        tl._max_pool_backward(go, x, idx, ())
    assert tl._max_pool_backward(go, x, idx, (2, 3)).shape == x.shape


def test_bincount_and_histc_refuse_huge_bin_counts_through_the_allocator():
    # Their bins were a std::vector sized by minlength/bins: under AddressSanitizer a huge size aborted in operator
    # new (the fuzz found it); now the sums live in a tensor and the allocator raises RuntimeError.
    with pytest.raises(RuntimeError, match="not enough memory"):
        tl.bincount(tl.tensor([1]), tl.tensor([1.0]), minlength=2 ** 40)
    with pytest.raises(RuntimeError, match="not enough memory"):
        tl.histc(tl.tensor([1.0]), bins=2 ** 40)
    assert tl.bincount(tl.tensor([1, 1, 3]), tl.tensor([0.5, 1.0, 2.0])).tolist() == [0.0, 1.5, 0.0, 2.0]
    assert tl.histc(tl.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist() == [0.0, 2.0, 1.0, 0.0]
