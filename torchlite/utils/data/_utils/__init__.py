"""The DataLoader's machinery: collation, fetching and worker processes."""
from . import collate, fetch, worker  # noqa: F401
from .worker import ExceptionWrapper  # noqa: F401

__all__ = ["collate", "fetch", "worker", "ExceptionWrapper"]
