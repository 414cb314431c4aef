"""Reductions accumulate accurately: a float32 sum of 10M copies of 0.1 lands within 1.0 of 1e6 (a naive
running float32 sum is off by thousands), contiguous and transposed, on 1 and 2 threads."""
import pytest

import torchlite as tl


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_float32_sum_of_ten_million_tenths(layout, threads):
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        x = tl.full((10_000_000,), 0.1) if layout == "contiguous" else tl.full((2500, 4000), 0.1).t()
        assert x.is_contiguous() == (layout == "contiguous")
        total = x.sum()
        assert total.dtype == tl.float32
        assert abs(total.item() - 1e6) <= 1.0, total.item()
        if layout == "transposed":
            rows = x.sum(1)  # 4000 sums of 2500 tenths, over the strided dim
            assert max(abs(v - 250.0) for v in rows.tolist()) <= 1e-3
    finally:
        tl.set_num_threads(before)
