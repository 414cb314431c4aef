"""Fixtures shared by every test module."""
import os

import pytest

import torchlite as tl

# tests/test_cuda_kernels_on_host.py runs whole modules with the hand-written CUDA kernels compiled for the
# host in place of the CPU kernels (dispatch/KernelTable.h).
if os.environ.get("TORCHLITE_GPU_KERNELS_ON_HOST") == "1":
    tl._C._set_gpu_kernels_on_host(True)


# The user-story test builds a copy of the project (minutes on a fresh clone): collected first, so that under
# pytest-xdist (README command 2) one worker starts it while the other runs the rest, rather than it running
# alone at the end, as its module's name would have it.
def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: not item.nodeid.startswith("tests/test_user_story.py::"))  # stable otherwise


@pytest.fixture(autouse=True)
def _default_dtype_is_float32():
    """Every test starts and ends with the default dtype float32: a test that changes it must restore it."""
    assert tl.get_default_dtype() is tl.float32
    yield
    assert tl.get_default_dtype() is tl.float32, "a test left the default dtype changed"


@pytest.fixture
def restore_threads():
    """For a test that changes the thread count: puts the count it found back afterwards."""
    saved = tl.get_num_threads()
    yield
    tl.set_num_threads(saved)
