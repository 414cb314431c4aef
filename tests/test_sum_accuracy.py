"""Reductions accumulate accurately: a float32 sum of 10M copies of 0.1 lands within 1.0 of 1e6 (a naive
running float32 sum is off by thousands), contiguous and transposed, on 1 and 2 threads."""
import pytest

import torchlite as tl


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_float32_sum_of_ten_million_tenths(layout, threads, restore_threads):
    tl.set_num_threads(threads)
    x = tl.full((10_000_000,), 0.1) if layout == "contiguous" else tl.full((2500, 4000), 0.1).t()
    assert x.is_contiguous() == (layout == "contiguous")
    total = x.sum()
    assert total.dtype == tl.float32
    assert abs(total.item() - 1e6) <= 1.0, total.item()
    if layout == "transposed":
        rows = x.sum(1)  # 4000 sums of 2500 tenths, over the strided dim
        assert max(abs(v - 250.0) for v in rows.tolist()) <= 1e-3


@pytest.mark.parametrize("shape,dims", [((2_000_000, 3), 0), ((1000, 7, 37), (0, 1)), ((9, 513), 0),
                                        ((3, 1), 0), ((5, 4, 3), 0)])
def test_sum_over_leading_dims(shape, dims, restore_threads):
    """x.sum(0) of a contiguous tensor (a bias gradient) adds rows down the columns: as accurate as the
    cascade (2M rows of 0.1 in float32 land within 1e-3 relative), equal to NumPy on random data, and the
    same bits on 1 and 2 threads."""
    import numpy as np

    if shape[0] == 2_000_000:
        x = tl.full(shape, 0.1)
        tl.set_num_threads(1)
        got = x.sum(dims)
        assert np.allclose(np.asarray(got), 2e5, rtol=1e-3), got
        return
    a = np.random.default_rng(3).standard_normal(shape)
    for dtype in (tl.float32, tl.float64):
        x = tl.tensor(a, dtype=dtype)
        tl.set_num_threads(1)
        one = np.asarray(x.sum(dims))
        tl.set_num_threads(2)
        two = np.asarray(x.sum(dims, keepdim=True)).reshape(one.shape)
        assert np.array_equal(one, two)
        np.testing.assert_allclose(one, a.sum(axis=dims), rtol=1e-5 if dtype == tl.float32 else 1e-12,
                                   atol=1e-5 if dtype == tl.float32 else 1e-12)
