"""The README's demo (examples/demo.py) runs to the end, and the small convnet it trains with
torchlite.nn.functional learns its task."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_demo_runs_and_its_convnet_learns():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "demo.py")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    first, last = (float(v) for v in re.findall(r"convnet step \d+: loss ([0-9.]+)", r.stdout))
    assert last < first / 4, r.stdout[-500:]
    accuracy = float(re.search(r"convnet training accuracy: ([0-9.]+)", r.stdout).group(1))
    assert accuracy >= 0.9, r.stdout[-500:]
