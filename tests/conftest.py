"""Fixtures shared by every test module."""
import pytest

import torchlite as tl


@pytest.fixture(autouse=True)
def _default_dtype_is_float32():
    """Every test starts and ends with the default dtype float32: a test that changes it must restore it."""
    assert tl.get_default_dtype() is tl.float32
    yield
    assert tl.get_default_dtype() is tl.float32, "a test left the default dtype changed"
