"""torchlite.distributed: PyTorch's torch.distributed API (process groups, collectives, point to point, object
collectives) on MPI for CPU tensors (mpi4py over Open MPI or any MPI library).

Start the processes with the launcher, torchrun's interface on top of mpirun:

    python -m torchlite.distributed.run --nproc-per-node 4 train.py

then `torchlite.distributed.init_process_group("mpi")` in the script. Importing this package does not start
MPI: init_process_group does. See docs/distributed.md."""
from .distributed_c10d import (
    Backend, DistBackendError, DistError, DistNetworkError, DistStoreError, GroupMember, P2POp, ProcessGroup,
    ReduceOp, Work, all_gather, all_gather_into_tensor, all_gather_object, all_reduce, all_to_all,
    all_to_all_single, barrier, batch_isend_irecv, broadcast, broadcast_object_list, default_pg_timeout,
    destroy_process_group, gather, gather_object, get_backend, get_global_rank, get_group_rank,
    get_process_group_ranks, get_rank, get_world_size, group, init_process_group, irecv, is_available,
    is_gloo_available, is_initialized, is_mpi_available, is_nccl_available, is_torchelastic_launched, isend,
    monitored_barrier, new_group, recv, reduce, reduce_scatter, reduce_scatter_tensor, scatter,
    scatter_object_list, send,
)
__all__ = ["Backend", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError", "GroupMember", "P2POp",
    "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce",
    "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list",
    "default_pg_timeout", "destroy_process_group", "gather", "gather_object", "get_backend", "get_global_rank",
    "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size", "group", "init_process_group",
    "irecv", "is_available", "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available",
    "is_torchelastic_launched", "isend", "monitored_barrier", "new_group", "recv", "reduce", "reduce_scatter",
    "reduce_scatter_tensor", "scatter", "scatter_object_list", "send"]
