"""Smoke tests of the benchmark suite (benchmarks/): its code paths on tiny sizes, never its timings.

They need no PyTorch: the suite runs torchlite against NumPy only, and the one test
that compares with PyTorch is skipped without it.
"""
import json
import os
import sys

import numpy as np
import pytest

import torchlite as tl

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository root

from benchmarks import cases, suite  # noqa: E402
from benchmarks.libs import load  # noqa: E402
from benchmarks.timing import Bench, Timer, interleaved_trials  # noqa: E402

FAST = ["--tiny", "--quick", "--trials", "2", "--min-time", "0.001", "--threads", "1"]


def run_suite(tmp_path, capsys, *args):
    path = tmp_path / "suite.json"
    assert suite.main([*FAST, *args, "--json", str(path)]) == 0
    return json.loads(path.read_text()), capsys.readouterr().out


def check_times(entry, trials=2):
    assert entry["median_s"] > 0 and entry["min_s"] > 0
    assert len(entry["trials_s"]) == trials and all(t > 0 for t in entry["trials_s"])
    assert len(entry["calls_per_trial"]) == trials and all(n >= 1 for n in entry["calls_per_trial"])
    assert entry["min_s"] <= entry["median_s"] <= entry["max_s"]


def test_suite_against_numpy_writes_json_and_table(tmp_path, capsys):
    data, out = run_suite(tmp_path, capsys, "--against", "numpy",
                          "--cases", "overhead.add,elementwise.relu,sum_dim1,matmul.256,mlp.step")
    assert data["schema_version"] == suite.SCHEMA_VERSION
    assert data["settings"]["tiny"] and data["settings"]["threads"] == [1]
    assert data["machine"]["cpu_count"] >= 1 and "torchlite" in data["machine"]["versions"]
    assert isinstance(data["machine"]["torchlite_install"]["editable"], bool)
    ids = [r["id"] for r in data["results"]]
    assert ids == ["overhead.add", "elementwise.relu", "reduction.sum_dim1", "matmul.256", "mlp.step"]
    for record in data["results"]:
        assert record["threads"] == 1 and record["target"] > 0
        assert record["libraries"]["torchlite"]["threads_in_effect"] == 1
        check_times(record["libraries"]["torchlite"])
        assert "torch" not in record["libraries"]
        assert record["ratio"] is None and record["met"] is None  # no PyTorch: no ratio
    numpy_of = {r["id"]: r["libraries"]["numpy"] for r in data["results"]}
    check_times(numpy_of["elementwise.relu"])
    assert "skipped" in numpy_of["mlp.step"]  # NumPy has no autograd
    assert out.startswith("| case | threads | torchlite | PyTorch | NumPy | ratio | target | met |")
    assert "MLP train step 32-16-16-10, batch 8" in out


def test_import_case_times_a_fresh_interpreter(tmp_path, capsys):
    data, _ = run_suite(tmp_path, capsys, "--against", "none", "--cases", "import", "--trials", "1")
    (record,) = data["results"]
    assert record["id"] == "import.import" and record["threads"] is None
    check_times(record["libraries"]["torchlite"], trials=1)
    assert record["import_of"]


def test_suite_against_torch_has_ratios(tmp_path, capsys):
    pytest.importorskip("torch")
    data, out = run_suite(tmp_path, capsys, "--against", "torch", "--cases", "overhead.add,mlp")
    for record in data["results"]:
        check_times(record["libraries"]["torch"])
        assert record["ratio"] == pytest.approx(
            record["libraries"]["torchlite"]["median_s"] / record["libraries"]["torch"]["median_s"])
        assert record["met"] == (record["ratio"] <= record["target"])
    assert "| `a + b`, 1 element | 1 |" in out


def test_timer_runs_in_place_statements():
    a = np.zeros(3)
    timer = Timer(Bench("a += b", {"a": a, "b": np.ones(3)}))
    assert timer.run(4) > 0
    np.testing.assert_array_equal(a, [4, 4, 4])
    timer.calibrate(min_time=1e-4)
    assert timer.calls >= 1


def test_trials_last_at_least_the_minimum_time():
    timer = Timer(Bench("a + b", {"a": 1, "b": 2}))  # calls stays 1: each trial must loop to the minimum
    per_call, calls = interleaved_trials({"x": timer}, trials=2, min_time=0.002)
    assert len(per_call["x"]) == 2 and all(n > 1 for n in calls["x"])
    assert all(t * n >= 0.002 for t, n in zip(per_call["x"], calls["x"]))


def test_disagreeing_libraries_fail_the_sanity_check():
    libs, _ = load(["numpy"])
    wrong = cases.Case("test.wrong", lambda s: "wrong", 1.0,
                       cases._stmt_case({"*": "a + b", "numpy": "a - b"}, cases._one_element("ab", False)))
    benches = {lib.name: wrong.build(lib, cases.TINY, cases.Inputs()) for lib in libs}
    with pytest.raises(RuntimeError, match="torchlite and NumPy disagree"):
        suite.check_agreement(wrong, benches, threads=1)


def test_case_selection():
    assert [c.id for c in cases.select("matmul")] == ["matmul.256", "matmul.1024", "matmul.2048"]
    assert [c.id for c in cases.select("iadd,import")] == ["elementwise.iadd", "import.import"]
    assert len(cases.select(None)) == len(cases.CASES)
    with pytest.raises(SystemExit, match="nothing matches nope"):
        cases.select("matmul,nope")


def test_bad_arguments_are_reported():
    with pytest.raises(SystemExit, match="unknown library jax"):
        load(["jax"])
    with pytest.raises(SystemExit):
        suite.parse_args(["--threads", "0"])


def test_cuda_benchmark_runs_or_says_there_is_no_gpu(tmp_path, capsys):
    """benchmarks/cuda.py: a quick run on a GPU (every case of issue 20's table), else a clear message."""
    from benchmarks import cuda

    out = tmp_path / "cuda.json"
    assert cuda.main(["--quick", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    if not tl.cuda.is_available():
        assert "no CUDA device here" in text
        return
    result = json.loads(text)
    assert result["copy_GBps"] > 0
    assert [row["case"] for row in result["cases"]] == [case[0] for case in cuda.CASES]
    assert all(row["torchlite_us"] > 0 for row in result["cases"])


def test_cuda_benchmark_cases_run_on_the_cpu(capsys):
    """Every case of benchmarks/cuda.py runs (at the quick sizes) on the CPU, so the GPU run meets no typo."""
    from benchmarks import cuda

    assert cuda.main(["--quick", "--device", "cpu", "--min-time", "0.001"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [row["case"] for row in result["cases"]] == [case[0] for case in cuda.CASES]
    assert all(row["torchlite_us"] > 0 for row in result["cases"])
