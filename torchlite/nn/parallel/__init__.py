"""torchlite.nn.parallel: DistributedDataParallel, and the distributed statistics of SyncBatchNorm."""
from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DistributedDataParallel"]
