"""What each process of a job started by `python -m torchlite.distributed.run` runs:

    python -m torchlite.distributed._worker [-m] [--no-python] SCRIPT ARGS...

It sets torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, ...) from the MPI
launcher's, runs the script as __main__, and if the script raises (or exits with a non-zero status) prints the
traceback and aborts the whole MPI job, so that every other rank stops at once instead of waiting for it in a
collective (or in MPI_Finalize) forever."""
import os
import runpy
import sys
import traceback

# (rank, size, local rank, local size) as each MPI launcher / resource manager spells them
_SPELLINGS = [
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),  # MPICH, Intel MPI (Hydra)
    ("PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE"),
    ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"),
]


def _from_mpi():
    """(rank, world size, local rank, local world size) of this process from the launcher's environment, or from
    MPI itself."""
    for r, s, lr, ls in _SPELLINGS:
        if r in os.environ and s in os.environ:
            rank, size = int(os.environ[r]), int(os.environ[s])
            local_rank = int(os.environ.get(lr, rank))
            local_size = os.environ.get(ls, str(size)).split("(")[0].split(",")[0]
            return rank, size, local_rank, int(local_size)
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    out = comm.Get_rank(), comm.Get_size(), local.Get_rank(), local.Get_size()
    local.Free()
    return out


def set_env():
    rank, size, local_rank, local_size = _from_mpi()
    env = os.environ
    env["RANK"] = str(rank)
    env["WORLD_SIZE"] = str(size)
    env["LOCAL_RANK"] = str(local_rank)
    env["LOCAL_WORLD_SIZE"] = str(local_size)
    env["GROUP_RANK"] = env["ROLE_RANK"] = str(rank // max(local_size, 1))
    env["ROLE_WORLD_SIZE"] = str(size)
    env["ROLE_NAME"] = "default"
    env.setdefault("MASTER_ADDR", "127.0.0.1")
    env.setdefault("MASTER_PORT", "29500")
    return rank, size


def _abort(code, size):
    sys.stdout.flush()
    sys.stderr.flush()
    if size > 1:
        try:
            from mpi4py import MPI

            if MPI.Is_initialized() and not MPI.Is_finalized():
                MPI.COMM_WORLD.Abort(code)
        except Exception:  # noqa: BLE001  (no MPI: exiting is all that is left)
            pass
    os._exit(code)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    module = no_python = False
    while argv and argv[0] in ("-m", "--module", "--no-python", "--no_python"):
        opt = argv.pop(0)
        if opt in ("-m", "--module"):
            module = True
        else:
            no_python = True
    if not argv:
        sys.stderr.write("usage: python -m torchlite.distributed._worker [-m] SCRIPT ARGS...\n")
        return 2
    rank, size = set_env()
    if size > 1:
        from mpi4py import MPI  # MPI is up before the script runs, so that a failure can abort the job

        MPI.Is_initialized()
    target, args = argv[0], argv[1:]
    if no_python:
        import subprocess

        code = subprocess.call([target] + args)
        if code:
            sys.stderr.write(f"torchlite.distributed.run: rank {rank} ({target}) exited with status {code}\n")
            _abort(code if 0 < code < 256 else 1, size)
        return 0
    sys.argv = [target] + args
    try:
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
            runpy.run_path(target, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None or code == 0:
            return 0
        if not isinstance(code, int):
            sys.stderr.write(f"{code}\n")
            code = 1
        sys.stderr.write(f"torchlite.distributed.run: rank {rank} exited with status {code}\n")
        _abort(code if 0 < code < 256 else 1, size)
    except BaseException:  # noqa: BLE001  (KeyboardInterrupt too: the job must come down)
        sys.stderr.write(f"torchlite.distributed.run: rank {rank} failed:\n")
        tp, value, tb = sys.exc_info()
        while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__, "<frozen runpy>"):
            tb = tb.tb_next  # the script's frames only
        traceback.print_exception(tp, value, tb)
        _abort(1, size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
