"""torchlite's benchmark suite: torchlite side by side with PyTorch and NumPy.

    python -m benchmarks [--against torch,numpy] [--threads 1,2] [--cases ...] [--quick]

Run it from the repository root. Each case runs on torchlite and, when they are
installed, on PyTorch (CPU) and NumPy, interleaved trial by trial in one process;
the suite prints a Markdown table (times, torchlite / PyTorch ratios, targets) and
writes a JSON file (benchmarks/results/suite.json by default). See suite.py.

Neither PyTorch nor this package is needed to build or test torchlite.
"""
