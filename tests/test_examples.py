"""The training examples on scikit-learn's 8x8 digits (examples/digits_*.py) run end to end with tiny settings:
each exits 0, prints its `test accuracy: X.XXXX` line, writes a checkpoint that torchlite.load reads back as a
state_dict, and writes its loss-curve PNG when matplotlib is installed."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

import torchlite

pytest.importorskip("sklearn", reason="the digits examples need scikit-learn for their data set (optional dependency)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")


@pytest.mark.parametrize("name", ["digits_cnn", "digits_lstm", "digits_transformer"])
def test_digits_example_runs(name, tmp_path):
    env = dict(os.environ)
    env.pop("EXAMPLES_BACKEND", None)  # always torchlite here, whatever the caller's shell says
    cmd = [sys.executable, os.path.join(EXAMPLES, name + ".py"), "--epochs", "1", "--batch-size", "64",
           "--seed", "0", "--out-dir", str(tmp_path / "out")]
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]

    match = re.search(r"^test accuracy: ([01]\.\d{4})$", r.stdout, re.MULTILINE)
    assert match, r.stdout[-2000:]
    # One epoch is far from enough to converge, but it learns well beyond chance (0.1).
    assert float(match.group(1)) > 0.2, r.stdout[-2000:]

    checkpoint = tmp_path / "out" / (name + ".pt")
    assert checkpoint.is_file(), r.stdout[-2000:]
    state_dict = torchlite.load(str(checkpoint))
    assert state_dict and all(isinstance(v, torchlite.Tensor) for v in state_dict.values())

    if importlib.util.find_spec("matplotlib") is not None:
        png = tmp_path / "out" / (name + "_loss.png")
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_hogwild_example_trains_one_shared_model(method, tmp_path):
    """examples/digits_hogwild.py: the processes' training reaches the parent's model only through shared memory
    (without it the parent would test its untrained model, at about chance, 0.1)."""
    env = dict(os.environ)
    env.pop("EXAMPLES_BACKEND", None)
    cmd = [sys.executable, os.path.join(EXAMPLES, "digits_hogwild.py"), "--epochs", "2", "--start-method", method]
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    match = re.search(r"^test accuracy: ([01]\.\d{4})$", r.stdout, re.MULTILINE)
    assert match and float(match.group(1)) > 0.6, r.stdout[-2000:]
