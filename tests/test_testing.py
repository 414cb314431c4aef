"""torchlite.testing: assert_close, assert_allclose and make_tensor, against the examples, messages and tables of
PyTorch's torch.testing documentation (and, when PyTorch is installed, against torch.testing itself)."""
import functools
import math
import os
import subprocess
import sys
import tempfile
import textwrap
from collections import OrderedDict

import numpy as np
import pytest

import torchlite as tl
import torchlite.testing
from torchlite.testing import assert_allclose, assert_close, make_tensor


def failure(exc_type, actual, expected, **kwargs):
    """The message of the exc_type exception that assert_close(actual, expected, **kwargs) raises."""
    with pytest.raises(exc_type) as info:
        assert_close(actual, expected, **kwargs)
    return str(info.value)


def run_on_emulated_cuda(script):
    """Runs a Python script with one emulated CUDA device (tests/test_cuda_emulated.py); returns its stdout."""
    env = dict(os.environ, TORCHLITE_EMULATE_CUDA="1")
    env.pop("TORCHLITE_GPU_KERNELS_ON_HOST", None)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=tempfile.gettempdir(), env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout


def test_public_names():
    assert {"assert_close", "assert_allclose", "make_tensor"} <= set(torchlite.testing.__all__)
    assert torchlite.testing.__doc__


# ------------------------------------------------------------------------------------------ the doc's examples
def test_doc_assert_equal_partial():
    assert_equal = functools.partial(torchlite.testing.assert_close, rtol=0, atol=0)
    with pytest.raises(AssertionError) as info:
        assert_equal(1e-9, 1e-10)
    assert str(info.value) == ("Scalars are not equal!\n\nExpected 1e-10 but got 1e-09.\n"
                               "Absolute difference: 9.000000000000001e-10\nRelative difference: 9.0")


def test_doc_tensor_to_tensor():
    expected = tl.tensor([1e0, 1e-1, 1e-2])
    actual = tl.acos(tl.cos(expected))
    assert_close(actual, expected)


def test_doc_scalar_to_scalar():
    expected = math.sqrt(2.0)
    actual = 2.0 / math.sqrt(2.0)
    assert_close(actual, expected)


def test_doc_numpy_to_numpy():
    expected = np.array([1e0, 1e-1, 1e-2])
    actual = np.arccos(np.cos(expected))
    assert_close(actual, expected)


def test_doc_sequence_to_sequence():
    expected = [tl.tensor([1.0]), 2.0, np.array(3.0)]
    actual = tuple(expected)
    assert_close(actual, expected)


def test_doc_mapping_to_mapping():
    foo, bar, baz = tl.tensor(1.0), 2.0, np.array(3.0)
    expected = OrderedDict([("foo", foo), ("bar", bar), ("baz", baz)])
    actual = {"baz": baz, "bar": bar, "foo": foo}
    assert_close(actual, expected)


class SubTensor(tl.Tensor):
    """A Tensor subclass: the doc's example uses torch.nn.Parameter, which torchlite does not have yet."""


def test_doc_directly_related_types():
    expected = tl.tensor([1.0, 2.0, 3.0])
    actual = expected.clone()
    sub = tl.Tensor._make_subclass(SubTensor, actual)
    assert type(sub) is SubTensor
    assert_close(sub, expected)
    assert failure(TypeError, sub, expected, allow_subclasses=False) == (
        f"No comparison pair was able to handle inputs of type {SubTensor} and {tl.Tensor}.")
    assert failure(TypeError, actual.numpy(), expected) == (
        f"No comparison pair was able to handle inputs of type {np.ndarray} and {tl.Tensor}.")
    assert_close(1.0, 1, check_dtype=False)


def test_doc_nan():
    expected = tl.tensor(float("nan"))
    actual = expected.clone()
    assert failure(AssertionError, actual, expected) == (
        "Scalars are not close!\n\nExpected nan but got nan.\n"
        "Absolute difference: nan (up to 1e-05 allowed)\nRelative difference: nan (up to 1.3e-06 allowed)")
    assert_close(actual, expected, equal_nan=True)


DOC_TENSOR_MESSAGE = ("Tensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\n"
                      "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
                      "Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)")


def test_doc_msg():
    expected = tl.tensor([1.0, 2.0, 3.0])
    actual = tl.tensor([1.0, 4.0, 5.0])
    assert failure(AssertionError, actual, expected, msg="Argh, the tensors are not close!") == (
        "Argh, the tensors are not close!")
    assert failure(AssertionError, actual, expected, msg=lambda msg: f"Header\n\n{msg}\n\nFooter") == (
        f"Header\n\n{DOC_TENSOR_MESSAGE}\n\nFooter")
    assert failure(AssertionError, actual, expected) == DOC_TENSOR_MESSAGE


def test_doc_make_tensor():
    t = make_tensor((3,), device="cpu", dtype=tl.float32, low=-1, high=1)
    assert t.shape == (3,) and t.dtype is tl.float32 and t.device == tl.device("cpu")
    assert all(-1 <= v < 1 for v in t.tolist())


def test_doc_make_tensor_cuda_and_device_checks_on_emulated_cuda():
    """The doc's bool tensor on CUDA, and assert_close's device check (a GPU of torchlite's emulation)."""
    out = run_on_emulated_cuda("""
        import torchlite as tl
        from torchlite.testing import assert_close, make_tensor
        t = make_tensor((2, 2), device="cuda", dtype=tl.bool)
        assert t.device == tl.device("cuda", 0) and t.dtype is tl.bool and t.shape == (2, 2)
        a, b = tl.tensor([1.0, 2.0], device="cuda"), tl.tensor([1.0, 2.0])
        try:
            assert_close(a, b)
            raise SystemExit("devices not checked")
        except AssertionError as e:
            print(e)
        assert_close(a, b, check_device=False)
        try:
            assert_close(a, b + 1, check_device=False)
            raise SystemExit("values not compared")
        except AssertionError as e:
            assert str(e).startswith("Tensor-likes are not close!"), e
        print("ok")
    """)
    assert out.splitlines() == ["The values for attribute 'device' do not match: cuda:0 != cpu.", "ok"]


# ------------------------------------------------------------------------------------------ tolerances
@pytest.mark.parametrize("dtype,rtol,atol", [
    (tl.float16, 1e-3, 1e-5), (tl.bfloat16, 1.6e-2, 1e-5), (tl.float32, 1.3e-6, 1e-5), (tl.float64, 1e-7, 1e-7),
])
def test_default_tolerances_of_floating_dtypes(dtype, rtol, atol):
    message = failure(AssertionError, tl.tensor([1.0, 2.0], dtype=dtype), tl.tensor([1.0, 4.0], dtype=dtype))
    assert message.startswith("Tensor-likes are not close!")
    assert f"(up to {atol} allowed)\n" in message and message.endswith(f"(up to {rtol} allowed)")


def test_default_tolerances_are_applied():
    """|actual - expected| <= atol + rtol * |expected|, for float64: 1e-7 + 1e-7 * 1."""
    expected = tl.tensor([1.0], dtype=tl.float64)
    assert_close(expected + 1.9e-7, expected)
    failure(AssertionError, expected + 2.1e-7, expected)
    assert_close(1.0 + 1.9e-7, 1.0)  # a Python float stands for float64
    failure(AssertionError, 1.0 + 2.1e-7, 1.0)


@pytest.mark.parametrize("dtype", [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64])
def test_other_dtypes_compare_exactly(dtype):
    message = failure(AssertionError, tl.tensor([0, 1], dtype=dtype), tl.tensor([1, 1], dtype=dtype))
    assert message.startswith("Tensor-likes are not equal!") and "allowed" not in message


def test_mixed_dtypes_take_the_larger_tolerances():
    message = failure(AssertionError, tl.tensor([1.0, 2.0], dtype=tl.float16), tl.tensor([1.0, 4.0], dtype=tl.float64),
                      check_dtype=False)
    assert "(up to 1e-05 allowed)" in message and message.endswith("(up to 0.001 allowed)")
    assert_close(1, 1.0 + 1e-8, check_dtype=False)  # int (0, 0) and float (1e-7, 1e-7)


def test_given_tolerances_replace_the_defaults():
    assert_close(tl.tensor([1.0]), tl.tensor([1.5]), rtol=0.5, atol=0)
    message = failure(AssertionError, tl.tensor([1, 2]), tl.tensor([1, 5]), rtol=0.5, atol=0)
    assert message == ("Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                       "Greatest absolute difference: 3 at index (1,) (up to 0 allowed)\n"
                       "Greatest relative difference: 0.6000000238418579 at index (1,) (up to 0.5 allowed)")


@pytest.mark.parametrize("kwargs,missing", [({"rtol": 1e-3}, "atol"), ({"atol": 1e-3}, "rtol")])
def test_only_one_tolerance_is_a_value_error(kwargs, missing):
    expected = f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}."
    assert failure(ValueError, tl.tensor([1.0]), tl.tensor([1.0]), **kwargs) == expected
    assert failure(ValueError, 1.0, 1.0, **kwargs) == expected


# ------------------------------------------------------------------------------------------ messages
def test_attribute_messages():
    assert failure(AssertionError, tl.zeros(2), tl.zeros(3)) == (
        "The values for attribute 'shape' do not match: torchlite.Size([2]) != torchlite.Size([3]).")
    assert failure(AssertionError, tl.zeros(2), tl.zeros(2, dtype=tl.float64)) == (
        "The values for attribute 'dtype' do not match: torchlite.float32 != torchlite.float64.")
    assert failure(AssertionError, tl.zeros(2, 3), tl.zeros(3, 2).t(), check_stride=True) == (
        "The values for attribute 'stride()' do not match: (3, 1) != (1, 2).")
    assert_close(tl.zeros(2, 3), tl.zeros(3, 2).t())  # strides are not checked by default
    assert failure(AssertionError, tl.tensor(1.0), tl.tensor([1.0])) == (
        "The values for attribute 'shape' do not match: torchlite.Size([]) != torchlite.Size([1]).")


def test_integer_and_bool_messages():
    assert failure(AssertionError, tl.tensor([1, 2, 3]), tl.tensor([1, 5, 9])) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 6 at index (2,)\nGreatest relative difference: 0.6666666865348816 at index (2,)")
    assert failure(AssertionError, tl.tensor([[True]]), tl.tensor([[False]])) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 1 (100.0%)\n"
        "Greatest absolute difference: 1 at index (0, 0)\nGreatest relative difference: inf at index (0, 0)")
    assert failure(AssertionError, tl.tensor([1], dtype=tl.int8), tl.tensor([-128], dtype=tl.int8)) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 1 (100.0%)\n"
        "Greatest absolute difference: 129 at index (0,)\nGreatest relative difference: 1.0078125 at index (0,)")


def test_zero_dim_tensors_are_scalars():
    assert failure(AssertionError, tl.tensor(3), tl.tensor(5)) == (
        "Scalars are not equal!\n\nExpected 5 but got 3.\nAbsolute difference: 2\nRelative difference: 0.4")
    assert failure(AssertionError, tl.tensor(True), tl.tensor(False)) == (
        "Scalars are not equal!\n\nExpected False but got True.\nAbsolute difference: 1\nRelative difference: inf")


def test_float_messages_report_differences_in_the_compared_dtype():
    assert failure(AssertionError, tl.tensor([0.1, 0.2]), tl.tensor([0.1, 0.3])) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 0.10000000894069672 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)")
    # 1 - 1e-8 is 1.0 in float32 (PyTorch subtracts in the tensors' dtype)
    message = failure(AssertionError, tl.tensor([1e-8, 2.0]), tl.tensor([1.0, 2.0]))
    assert "Greatest absolute difference: 1.0 at index (0,)" in message
    bf16 = functools.partial(tl.tensor, dtype=tl.bfloat16)
    message = failure(AssertionError, bf16([1.0, 2.0]), bf16([1.0, 2.5]))
    assert "Greatest relative difference: 0.2001953125 at index (1,) (up to 0.016 allowed)" in message
    assert failure(AssertionError, bf16(1.0), bf16(1.1)) == (
        "Scalars are not close!\n\nExpected 1.1015625 but got 1.0.\nAbsolute difference: 0.1015625 (up to 1e-05 "
        "allowed)\nRelative difference: 0.09219858156028368 (up to 0.016 allowed)")


def test_greatest_difference_counts_only_mismatches_and_nan_wins():
    message = failure(AssertionError, tl.zeros(3, 4), tl.zeros(3, 4) + tl.eye(3, 4) * 1e-3)
    assert "Mismatched elements: 3 / 12 (25.0%)" in message and "at index (0, 0)" in message
    message = failure(AssertionError, tl.tensor([1.0, float("nan"), 5.0]), tl.tensor([2.0, 2.0, 1.0]))
    assert "Greatest absolute difference: nan at index (1,)" in message
    message = failure(AssertionError, tl.tensor([2.0]), tl.tensor([0.0]))
    assert "Greatest relative difference: inf at index (0,)" in message


def test_python_scalar_messages():
    assert failure(AssertionError, 1.0, 1.5) == (
        "Scalars are not close!\n\nExpected 1.5 but got 1.0.\nAbsolute difference: 0.5 (up to 1e-07 allowed)\n"
        "Relative difference: 0.3333333333333333 (up to 1e-07 allowed)")
    assert failure(AssertionError, 1, 1.0) == "The (d)types do not match: <class 'int'> != <class 'float'>."
    assert failure(AssertionError, True, False) == "Booleans mismatch: True is not False"
    assert failure(AssertionError, None, 1) == "None mismatch: None is not 1"
    assert_close(None, None)
    assert_close(np.float32(0.5), 0.5)
    assert_close(np.int64(3), 3)
    assert_close(np.bool_(True), True)


@pytest.mark.parametrize("actual,expected", [
    ("a", "a"), (True, 1), ({1, 2}, {1, 2}), (1.0, tl.tensor(1.0)), (np.array(1.0), 1.0),
])
def test_unhandled_inputs_are_a_type_error(actual, expected):
    """Strings, sets, unrelated types; bool against int (PyTorch fails there with an internal RuntimeError)."""
    assert failure(TypeError, actual, expected) == (
        f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


# ------------------------------------------------------------------------------------------ nesting
def test_sequences():
    assert_close([1, (2.0, [tl.tensor([3])])], ((1, [2.0, (tl.tensor([3]),)])))
    assert failure(AssertionError, [1, 2], [1, 2, 3]) == "The length of the sequences mismatch: 2 != 3"
    assert failure(AssertionError, (1, 2), [1, 3]) == (
        "Scalars are not equal!\n\nExpected 3 but got 2.\nAbsolute difference: 1\nRelative difference: "
        "0.3333333333333333\n\nThe failure occurred for item [1]")
    assert_close([], ())


def test_mappings():
    assert failure(AssertionError, {"a": 1, "b": 2}, {"a": 1, "c": 2}) == (
        "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['c']\n"
        "Additional keys in the actual mapping: ['b']")
    message = failure(AssertionError, [1.0, {"x": tl.tensor([1.0, 2.0])}], [1.0, {"x": tl.tensor([1.0, 3.0])}])
    assert message.startswith("Tensor-likes are not close!")
    assert message.endswith("\n\nThe failure occurred for item [1]['x']")


def test_msg_replaces_comparison_failures_only():
    assert failure(AssertionError, [1.0, {"x": 2}], [1.0, {"x": 3}], msg="custom") == "custom"
    assert failure(AssertionError, [1, 2], [1, 2, 3], msg="custom") == "The length of the sequences mismatch: 2 != 3"
    assert failure(TypeError, ["a"], ["a"], msg="custom").startswith("No comparison pair")
    assert failure(AssertionError, [1, 2], [1, 3], msg=lambda m: m.upper()).endswith("ITEM [1]")


def test_type_errors_anywhere_come_before_mismatches():
    """Every pair is made before any is compared."""
    assert failure(TypeError, [1, "a"], [2, "a"]).startswith("No comparison pair")


# ------------------------------------------------------------------------------------------ values
def test_equal_nan():
    nan = float("nan")
    failure(AssertionError, tl.tensor([1.0, nan]), tl.tensor([1.0, nan]))
    assert_close(tl.tensor([1.0, nan]), tl.tensor([1.0, nan]), equal_nan=True)
    failure(AssertionError, tl.tensor([nan, 0.0]), tl.tensor([nan, 1.0]), equal_nan=True)
    failure(AssertionError, nan, nan)
    assert_close(nan, nan, equal_nan=True)
    failure(AssertionError, tl.tensor([nan]), tl.tensor([1.0]), equal_nan=True)


def test_infinities_are_only_close_to_the_same_infinity():
    inf = float("inf")
    assert_close(tl.tensor([inf, -inf]), tl.tensor([inf, -inf]))
    assert_close(inf, inf)
    message = failure(AssertionError, tl.tensor([1.0, inf]), tl.tensor([1.0, -inf]))
    assert "Greatest absolute difference: inf at index (1,)" in message
    failure(AssertionError, tl.tensor([inf]), tl.tensor([3e38]), rtol=1.0, atol=1e38)
    failure(AssertionError, tl.tensor([3e38]), tl.tensor([inf]), rtol=1.0, atol=1e38)  # inf <= inf allowed: no
    assert failure(AssertionError, inf, -inf) == (
        "Scalars are not close!\n\nExpected -inf but got inf.\nAbsolute difference: inf (up to 1e-07 allowed)\n"
        "Relative difference: nan (up to 1e-07 allowed)")


def test_int64_values_compare_exactly():
    """2**62 and 2**62 + 1 are the same float64: the comparison must stay in integers."""
    message = failure(AssertionError, tl.tensor([7, 2 ** 62]), tl.tensor([7, 2 ** 62 + 1]))
    assert "Greatest absolute difference: 1 at index (1,)" in message
    failure(AssertionError, 2 ** 62, 2 ** 62 + 1)


def test_bool_tensors_compare_exactly():
    assert_close(tl.tensor([True, False]), tl.tensor([True, False]))
    failure(AssertionError, tl.tensor([True, False]), tl.tensor([True, True]))


def test_check_dtype_false_promotes():
    assert_close(tl.tensor([1, 2]), tl.tensor([1.0, 2.0]), check_dtype=False)
    assert failure(AssertionError, tl.tensor([1, 2]), tl.tensor([1.0, 4.0]), check_dtype=False) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.5 at index (1,) (up to 1.3e-06 allowed)")
    assert_close(np.array([1, 2], dtype=np.int32), np.array([1, 2], dtype=np.int64), check_dtype=False)
    assert failure(AssertionError, np.array([1], dtype=np.int32), np.array([1], dtype=np.int64)) == (
        "The values for attribute 'dtype' do not match: torchlite.int32 != torchlite.int64.")


def test_numpy_arrays():
    assert failure(AssertionError, np.array([1.0, 2.0]), np.array([1.0, 2.5])) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-07 allowed)\n"
        "Greatest relative difference: 0.2 at index (1,) (up to 1e-07 allowed)")
    assert failure(AssertionError, np.array(1.0), np.array(2.0)).startswith("Scalars are not close!")


def test_tensors_requiring_grad_noncontiguous_and_empty():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    assert_close(a * 1, tl.tensor([1.0, 2.0]))
    assert failure(AssertionError, a, tl.tensor([1.0, 3.0])).startswith("Tensor-likes are not close!")
    x = tl.arange(12.0).view(3, 4)
    assert_close(x.t(), x.t().contiguous())
    failure(AssertionError, x.t(), x.contiguous().view(4, 3))
    assert_close(tl.empty(0, 3), tl.empty(0, 3))


# ------------------------------------------------------------------------------------------ assert_allclose
def test_assert_allclose_is_deprecated():
    with pytest.warns(FutureWarning, match="assert_allclose.*deprecated"):
        assert_allclose(tl.tensor([1.0]), tl.tensor([1.0]))


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_assert_allclose():
    assert_allclose(tl.tensor([1.0, 2.0]), [1.0, 2.0001])  # its float32 rtol is 1e-4; assert_close's 1.3e-6
    failure(AssertionError, tl.tensor([1.0, 2.0]), tl.tensor([1.0, 2.0001]))
    assert_allclose([1.0, float("nan")], [1.0, float("nan")])  # equal_nan=True by default
    with pytest.raises(AssertionError, match="^boo$"):
        assert_allclose(tl.tensor([1.0, 2.0]), [1.0, 2.1], msg="boo")
    with pytest.raises(AssertionError, match=r"up to 0\.0001 allowed"):
        assert_allclose([1.0, 2.0], [1.0, 2.1])
    assert_allclose(tl.tensor([1, 2]), tl.tensor([1.0, 2.0]))  # dtypes are not checked
    with pytest.raises(ValueError, match="got no atol"):
        assert_allclose(tl.tensor([1.0]), [1.0], rtol=0.1)


# ------------------------------------------------------------------------------------------ make_tensor
def values(t):
    return np.array(t.tolist(), dtype=np.float64)


@pytest.mark.parametrize("dtype,low,high", [
    (tl.bool, 0, 2), (tl.uint8, 0, 10), (tl.int8, -9, 10), (tl.int16, -9, 10), (tl.int32, -9, 10),
    (tl.int64, -9, 10), (tl.float16, -9, 9), (tl.bfloat16, -9, 9), (tl.float32, -9, 9), (tl.float64, -9, 9),
])
def test_make_tensor_default_ranges(dtype, low, high):
    t = make_tensor(4000, dtype=dtype, device="cpu")
    assert t.dtype is dtype and t.shape == (4000,) and t.device == tl.device("cpu") and not t.requires_grad
    v = values(t)
    assert low <= v.min() and v.max() < high
    if dtype.is_floating_point:
        assert v.min() < low + 0.5 and v.max() > high - 0.5  # the whole range is used
    else:
        assert (v == np.round(v)).all()
        assert v.min() == low and v.max() == high - 1


@pytest.mark.parametrize("dtype", [tl.uint8, tl.int32, tl.int64, tl.float32, tl.bfloat16])
def test_make_tensor_given_range(dtype):
    v = values(make_tensor(2000, dtype=dtype, device="cpu", low=3, high=7))
    assert 3 <= v.min() and v.max() < 7


def test_make_tensor_integer_bounds_are_rounded_up():
    assert set(values(make_tensor(500, dtype=tl.int64, device="cpu", low=2.5, high=4.5))) == {3.0, 4.0}


@pytest.mark.parametrize("dtype,low,high,lowest,highest", [
    (tl.int8, -1000, 1000, -128, 127), (tl.uint8, -5, 1000, 0, 255), (tl.int64, -2 ** 70, 2 ** 70, -2 ** 63, 2 ** 63),
    (tl.float16, -1e6, 1e6, -65504, 65504), (tl.float64, -1e308, 1e308, -1e308, 1e308),
    (tl.float32, -math.inf, math.inf, -3.5e38, 3.5e38),
])
def test_make_tensor_clamps_bounds_to_the_dtype(dtype, low, high, lowest, highest):
    t = make_tensor(1000, dtype=dtype, device="cpu", low=low, high=high)
    v = np.array(t.tolist(), dtype=object if dtype is tl.int64 else np.float64)
    assert lowest <= v.min() and v.max() <= highest
    if dtype.is_floating_point:
        assert np.isfinite(v).all() and v.min() < lowest / 2 and v.max() > highest / 2  # the whole range is used


@pytest.mark.parametrize("shape_args,shape", [
    ((2, 3), (2, 3)), (((2, 3),), (2, 3)), (([4],), (4,)), ((tl.Size([1, 2]),), (1, 2)), ((), ()), (((),), ()),
    ((0, 3), (0, 3)),
])
def test_make_tensor_shapes(shape_args, shape):
    assert make_tensor(*shape_args, dtype=tl.float32, device=tl.device("cpu")).shape == shape


@pytest.mark.parametrize("dtype", [tl.bool, tl.int16, tl.float32, tl.float64])
def test_make_tensor_noncontiguous(dtype):
    t = make_tensor(3, 5, dtype=dtype, device="cpu", noncontiguous=True)
    assert t.shape == (3, 5) and not t.is_contiguous()
    low, high = (0, 2) if dtype is tl.bool else (-9, 10)
    v = values(t)
    assert low <= v.min() and v.max() < high
    assert make_tensor(1, dtype=dtype, device="cpu", noncontiguous=True).is_contiguous()  # fewer than 2 elements


def test_make_tensor_exclude_zero():
    tl.manual_seed(1)
    assert (values(make_tensor(200, dtype=tl.int32, device="cpu", low=0, high=2)) == 0).any()
    tl.manual_seed(1)
    assert set(values(make_tensor(200, dtype=tl.int32, device="cpu", low=0, high=2, exclude_zero=True))) == {1.0}
    assert values(make_tensor(200, dtype=tl.bool, device="cpu", exclude_zero=True)).all()
    tiny = tl.finfo(tl.float16).tiny
    tl.manual_seed(1)
    zeros = values(make_tensor(200, dtype=tl.float16, device="cpu", low=0, high=1e-7)) == 0
    assert zeros.any()
    tl.manual_seed(1)
    v = values(make_tensor(200, dtype=tl.float16, device="cpu", low=0, high=1e-7, exclude_zero=True))
    assert (v != 0).all() and (v[zeros] == tiny).all()
    t = make_tensor(4, 50, dtype=tl.int8, device="cpu", low=-1, high=2, exclude_zero=True, noncontiguous=True)
    assert not t.is_contiguous() and (values(t) != 0).all()


def test_make_tensor_requires_grad():
    t = make_tensor(3, dtype=tl.float32, device="cpu", requires_grad=True)
    assert t.requires_grad and t.is_leaf
    t = make_tensor(2, 3, dtype=tl.float64, device="cpu", requires_grad=True, noncontiguous=True)
    assert t.requires_grad and t.is_leaf and not t.is_contiguous()
    with pytest.raises(ValueError) as info:
        make_tensor(3, dtype=tl.int64, device="cpu", requires_grad=True)
    assert str(info.value) == (
        "`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype=torchlite.int64")
    with pytest.raises(ValueError, match="dtype=torchlite.bool"):
        make_tensor(3, dtype=tl.bool, device="cpu", requires_grad=True)


def test_make_tensor_is_reproducible_with_manual_seed():
    tl.manual_seed(123)
    a = make_tensor(5, 4, dtype=tl.float32, device="cpu")
    tl.manual_seed(123)
    assert make_tensor(5, 4, dtype=tl.float32, device="cpu").tolist() == a.tolist()


@pytest.mark.parametrize("dtype,kwargs,message", [
    (tl.uint8, {"low": 3, "high": 1}, "`low` must be less than `high`, but got 3 >= 1"),
    (tl.float32, {"low": 3, "high": 1}, "`low` must be less than `high`, but got 3 >= 1"),
    (tl.int32, {"low": 1, "high": 1}, "`low` must be less than `high`, but got 1 >= 1"),
    (tl.uint8, {"low": float("nan")}, "`low` and `high` cannot be NaN, but got low=nan and high=10"),
    (tl.float32, {"high": float("nan")}, "`low` and `high` cannot be NaN, but got low=-9 and high=nan"),
    (tl.uint8, {"low": -20, "high": -10},
     "The value interval specified by `low` and `high` is [-20, -10), but torchlite.uint8 only supports [0, 256)"),
    (tl.bool, {"low": 5, "high": 9},
     "The value interval specified by `low` and `high` is [5, 9), but torchlite.bool only supports [0, 2)"),
])
def test_make_tensor_bound_errors(dtype, kwargs, message):
    with pytest.raises(ValueError) as info:
        make_tensor(3, dtype=dtype, device="cpu", **kwargs)
    assert str(info.value) == message


def test_make_tensor_low_equal_high_for_floats_warns_and_fills():
    with pytest.warns(FutureWarning, match="low==high"):
        t = make_tensor(3, dtype=tl.float32, device="cpu", low=1, high=1)
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_make_tensor_memory_format():
    with pytest.raises(ValueError) as info:
        make_tensor(3, dtype=tl.float32, device="cpu", noncontiguous=True, memory_format="channels_last")
    assert str(info.value) == ("The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                               "but got noncontiguous=True and memory_format='channels_last'")
    with pytest.raises(NotImplementedError, match="memory_format='channels_last'.*no memory formats"):
        make_tensor(3, dtype=tl.float32, device="cpu", memory_format="channels_last")


@pytest.mark.parametrize("dtype", [float, "float32", None])
def test_make_tensor_unsupported_dtype(dtype):
    with pytest.raises(TypeError) as info:
        make_tensor(3, dtype=dtype, device="cpu")
    assert str(info.value) == f"The requested dtype '{dtype}' is not supported by torchlite.testing.make_tensor()."


@pytest.mark.skipif(tl.cuda.is_available(), reason="a CUDA device is available")
def test_make_tensor_on_cuda_without_a_device_is_torchlites_error():
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        make_tensor(2, dtype=tl.float32, device="cuda")


# ------------------------------------------------------------------------------------------ against PyTorch
@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the differential tests against it are "
                                               "optional (pip install torch==2.13.0)")


DIFFERENTIAL_CASES = {
    "floats": lambda L: (L.tensor([0.1, 0.2, 3.0]), L.tensor([0.1, 0.3, 1.0])),
    "rounded difference": lambda L: (L.tensor([1e-8, 2.0]), L.tensor([1.0, 2.0])),
    "ints": lambda L: (L.tensor([[1, 2], [3, 4]], dtype=L.uint8), L.tensor([[1, 2], [3, 9]], dtype=L.uint8)),
    "bools": lambda L: (L.tensor([True, False]), L.tensor([False, False])),
    "float16": lambda L: (L.tensor([1.0, 2.0], dtype=L.float16), L.tensor([1.0, 2.5], dtype=L.float16)),
    "bfloat16 scalar": lambda L: (L.tensor(1.0, dtype=L.bfloat16), L.tensor(1.1, dtype=L.bfloat16)),
    "nan and inf": lambda L: (L.tensor([1.0, float("nan"), float("inf")]), L.tensor([2.0, 2.0, -float("inf")])),
    "promoted": lambda L: ({"a": L.tensor([1.0, 2.0], dtype=L.float16)}, {"a": L.tensor([1.0, 2.1])}),
    "dtype": lambda L: ([1.0, L.tensor([1.0])], [1.0, L.tensor([1.0], dtype=L.float64)]),
    "shape": lambda L: (L.zeros(2, 3), L.zeros(3, 2)),
    "python scalars": lambda L: ((1, 2.0, True), (1, 2.5, True)),
}


@pytest.mark.parametrize("case", DIFFERENTIAL_CASES)
def test_messages_match_pytorch(torch, case):
    def message(lib, assert_close_fn):
        actual, expected = DIFFERENTIAL_CASES[case](lib)
        kwargs = {"check_dtype": False} if case == "promoted" else {}
        with pytest.raises(AssertionError) as info:
            assert_close_fn(actual, expected, **kwargs)
        return str(info.value)

    ours = message(tl, assert_close).replace("torchlite.", "torch.")
    assert ours == message(torch, torch.testing.assert_close)


# ------------------------------------------------------------------------------------------ complex
@pytest.mark.parametrize("actual,expected,message", [  # PyTorch 2.13's messages
    (tl.tensor([1 + 2j, 3j]), tl.tensor([1 + 2j, 3.5j]),
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at "
     "index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.1428571492433548 at index (1,) (up to "
     "1.3e-06 allowed)"),
    (tl.tensor(1 + 2j), tl.tensor(1 + 2.5j),
     "Scalars are not close!\n\nExpected (1+2.5j) but got (1+2j).\nAbsolute difference: 0.5 (up to 1e-05 "
     "allowed)\nRelative difference: 0.18569533817705186 (up to 1.3e-06 allowed)"),
    (1 + 2j, 1 + 2.1j,
     "Scalars are not close!\n\nExpected (1+2.1j) but got (1+2j).\nAbsolute difference: 0.10000000000000009 (up "
     "to 1e-07 allowed)\nRelative difference: 0.04299335803923481 (up to 1e-07 allowed)"),
    (1 + 0j, 1, "The (d)types do not match: <class 'complex'> != <class 'int'>."),
])
def test_complex_mismatches(actual, expected, message):
    assert failure(AssertionError, actual, expected) == message


def test_complex_matches():
    assert_close(tl.tensor([1 + 1e-7j]), tl.tensor([1 + 0j]))  # within complex64's tolerances
    assert_close(complex(float("nan"), 1), complex(float("nan"), 1), equal_nan=True)
    assert_close(tl.tensor([complex(1, float("nan"))]), tl.tensor([complex(1, float("nan"))]), equal_nan=True)
    assert_close(np.array([1 + 2j]), np.array([1 + 2j]))
    assert failure(AssertionError, complex(float("nan"), 1), complex(float("nan"), 1)).startswith(
        "Scalars are not close!")


def test_make_tensor_complex_and_unsigned():
    tl.manual_seed(3)
    c = make_tensor((50,), dtype=tl.complex64, device="cpu", low=-2, high=3)
    parts = tl.view_as_real(c).numpy()
    assert c.dtype is tl.complex64 and parts.min() >= -2 and parts.max() < 3 and parts.std() > 0.5
    assert (parts[:, 0] != parts[:, 1]).any()  # real and imaginary parts drawn separately
    nc = make_tensor((3, 4), dtype=tl.complex128, device="cpu", noncontiguous=True, exclude_zero=True)
    assert not nc.is_contiguous() and nc.shape == (3, 4) and (tl.view_as_real(nc) != 0).all().item()
    for dtype, hi in [(tl.uint16, 10), (tl.uint32, 10), (tl.uint64, 10)]:
        u = make_tensor((200,), dtype=dtype, device="cpu")
        values = u.numpy()
        assert u.dtype is dtype and values.min() >= 0 and values.max() < hi and len(set(values.tolist())) > 5
    assert make_tensor((4,), dtype=tl.uint64, device="cpu", low=2 ** 62, high=2 ** 70).numpy().min() >= 2 ** 62
    with pytest.raises(ValueError, match="requires_grad=True` is not supported for boolean and integral"):
        make_tensor((2,), dtype=tl.uint16, device="cpu", requires_grad=True)
    z = make_tensor((2,), dtype=tl.complex64, device="cpu", requires_grad=True)
    assert z.requires_grad and z.is_leaf and z.dtype is tl.complex64
