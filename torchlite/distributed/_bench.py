"""all_reduce latency and bus bandwidth of the process group (nccl-tests' definition: bus bandwidth = bytes /
time * 2 (n - 1) / n), float32, 8 bytes to 256 MB:

    python -m torchlite.distributed.run --nproc-per-node 2 -m torchlite.distributed._bench
"""
import sys
import time


def main(argv):
    import torchlite as t
    import torchlite.distributed as dist

    sizes = [int(a) for a in argv] or [8, 1 << 10, 1 << 16, 1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28]
    dist.init_process_group("mpi")
    n = dist.get_world_size()
    if dist.get_rank() == 0:
        print(f"all_reduce float32, {n} processes")
        print(f"{'bytes':>12} {'time (us)':>12} {'algbw (GB/s)':>13} {'busbw (GB/s)':>13}")
    for nbytes in sizes:
        x = t.ones(max(nbytes // 4, 1))
        reps = max(3, min(200, int(2e8 // max(nbytes, 1))))
        for _ in range(2):
            dist.all_reduce(x)
        dist.barrier()
        start = time.perf_counter()
        for _ in range(reps):
            dist.all_reduce(x)
        took = (time.perf_counter() - start) / reps
        tmax = t.tensor([took], dtype=t.float64)
        dist.all_reduce(tmax, dist.ReduceOp.MAX)
        took = float(tmax.item())
        if dist.get_rank() == 0:
            alg = nbytes / took / 1e9
            print(f"{nbytes:>12} {took * 1e6:>12.1f} {alg:>13.3f} {alg * 2 * (n - 1) / n:>13.3f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1:])
