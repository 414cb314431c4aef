"""One process of a benchmarks/distributed.py job. The driver copies this file into a temporary directory and
starts it there (under torchlite's launcher or PyTorch's torchrun, or alone for the one-process baseline), so
that the installed torchlite is imported, never the source tree's. Not meant to be run by hand.

    _dist_worker.py --lib torchlite|torch --what allreduce|ddp|single --out PATH [options]

Rank 0 writes the measurements as JSON to PATH. Times are the median over --trials blocks, each the slowest
rank's mean time per call (a collective or a training step is as slow as its slowest rank).
"""
import argparse
import json
import statistics
import time


def parse(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", choices=["torchlite", "torch"], required=True)
    ap.add_argument("--what", choices=["allreduce", "ddp", "single"], required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="8,1024,65536,1048576,16777216,67108864,268435456", help="bytes")
    ap.add_argument("--mlp", default="784,512,512,10", help="layer widths, input first")
    ap.add_argument("--batch", type=int, default=128, help="the global batch (split among the ranks)")
    ap.add_argument("--steps", type=int, default=10, help="training steps per block")
    ap.add_argument("--trials", type=int, default=3)
    return ap.parse_args(argv)


def slowest(m, dist, seconds):
    """The largest of the ranks' `seconds` (just `seconds` without a process group)."""
    if dist is None:
        return seconds
    t = m.tensor([seconds], dtype=m.float64)
    dist.all_reduce(t, dist.ReduceOp.MAX)
    return float(t.item())


def allreduce(m, dist, args):
    n = dist.get_world_size()
    rows = []
    for nbytes in [int(s) for s in args.sizes.split(",")]:
        x = m.ones(max(nbytes // 4, 1))
        reps = max(2, min(100, int(1e8 // max(nbytes, 1))))
        for _ in range(2):
            dist.all_reduce(x)
        blocks = []
        for _ in range(args.trials):
            dist.barrier()
            start = time.perf_counter()
            for _ in range(reps):
                dist.all_reduce(x)
            blocks.append(slowest(m, dist, (time.perf_counter() - start) / reps))
        took = statistics.median(blocks)
        algbw = nbytes / took / 1e9
        rows.append({"bytes": nbytes, "time_s": took, "trials_s": blocks, "calls_per_trial": reps,
                     "algbw_GBps": algbw, "busbw_GBps": algbw * 2 * (n - 1) / n})
    return {"world_size": n, "rows": rows}


def mlp(m, widths):
    layers = []
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
        layers.append(m.nn.Linear(a, b))
        if i < len(widths) - 2:
            layers.append(m.nn.ReLU())
    return m.nn.Sequential(*layers)


def training(m, dist, args):
    """SGD steps of the benchmark MLP: under DDP with each rank on its share of the global batch (what == 'ddp'),
    or one process on the whole batch (what == 'single')."""
    import numpy as np

    widths = [int(w) for w in args.mlp.split(",")]
    ranks = dist.get_world_size() if dist is not None else 1
    rank = dist.get_rank() if dist is not None else 0
    per_rank = args.batch // ranks
    rng = np.random.default_rng(1 + rank)
    x = m.tensor(rng.standard_normal((per_rank, widths[0]), dtype=np.float32))
    y = m.tensor(rng.integers(0, widths[-1], per_rank))
    m.manual_seed(0)
    model = mlp(m, widths)
    if dist is not None:
        model = m.nn.parallel.DistributedDataParallel(model)
    opt = m.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = m.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    for _ in range(3):
        step()
    blocks = []
    for _ in range(args.trials):
        if dist is not None:
            dist.barrier()
        start = time.perf_counter()
        for _ in range(args.steps):
            step()
        blocks.append(slowest(m, dist, (time.perf_counter() - start) / args.steps))
    return {"world_size": ranks, "batch": args.batch, "per_rank_batch": per_rank, "mlp": widths,
            "threads": m.get_num_threads(), "parameters": sum(p.numel() for p in model.parameters()),
            "step_s": statistics.median(blocks), "trials_s": blocks, "steps_per_trial": args.steps}


def main(argv=None):
    args = parse(argv)
    if args.lib == "torch":
        import torch as m
        import torch.distributed as dist
        backend = "gloo"
    else:
        import torchlite as m
        import torchlite.distributed as dist
        backend = "mpi"
    if args.what == "single":
        result = training(m, None, args)
    else:
        dist.init_process_group(backend)
        result = allreduce(m, dist, args) if args.what == "allreduce" else training(m, dist, args)
    result.update(lib=args.lib, backend=None if args.what == "single" else backend, version=m.__version__)
    if args.what == "single" or dist.get_rank() == 0:
        with open(args.out, "w") as f:
            json.dump(result, f)
    if args.what != "single":
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
