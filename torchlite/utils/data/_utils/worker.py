"""DataLoader worker processes: the loop each worker runs, get_worker_info, and how errors travel back.

Protocol. The parent sends a worker ("task", epoch, idx, index) messages on its own index queue, ("resume", epoch)
to start a new epoch (persistent workers) and None to stop; it also sets `done_event` when it shuts down (a
loader collected as garbage may have had its queues finalized first, so that the None never arrives). A worker answers on the shared result queue with
(epoch, idx, payload): `payload` is the pickled batch, an ExceptionWrapper, or _IterableStop once its iterable
dataset is exhausted (tasks are then ignored until the next resume). The worker pickles results itself, so a
batch that cannot be pickled comes back as an error instead of being lost in the queue's feeder thread.
"""
import os
import queue
import random
import sys
import traceback
from multiprocessing.reduction import ForkingPickler

import numpy as np

from .fetch import _DatasetKind

# How long a worker waits on its index queue before checking that its parent is still alive and that the
# loader has not been shut down (seconds).
_CHECK_INTERVAL = 1.0

_worker_info = None


class WorkerInfo:
    """What get_worker_info() returns in a worker: id, num_workers, seed and dataset (read-only)."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({fields})"


def get_worker_info():
    """In a DataLoader worker process, its WorkerInfo (id, num_workers, seed, dataset); None in the main
    process."""
    return _worker_info


class _KeyErrorMessage(str):
    """A KeyError's message shown as written (KeyError's str would otherwise quote it)."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception caught in a worker, with its traceback text, to be raised again in the parent."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_name = exc_info[0].__name__
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def __getstate__(self):
        state = dict(self.__dict__)
        try:
            ForkingPickler.dumps(self.exc_type)
        except Exception:  # a class that cannot travel (defined in a function, ...)
            state["exc_type"] = RuntimeError
        return state

    def reraise(self):
        """Raises the exception again: same type, message "Caught <type> <where>.\\nOriginal Traceback ..."."""
        msg = f"Caught {self.exc_name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            del exception  # no exception -> traceback -> this frame -> exception cycle


class _IterableStop:
    """A worker's iterable dataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


def _numpy_seed(base_seed, worker_id):
    """NumPy's global seed in a worker: 4 words derived from the base seed and the worker id."""
    return np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, (base_seed >> 32) & 0xFFFFFFFF]).generate_state(4)


def _send(result_queue, epoch, idx, obj, worker_id):
    try:
        payload = ForkingPickler.dumps(obj)
    except Exception:
        payload = ForkingPickler.dumps(ExceptionWrapper(where=f"in DataLoader worker process {worker_id}"))
    result_queue.put((epoch, idx, bytes(payload)))


def _worker_loop(dataset_kind, dataset, index_queue, result_queue, done_event, auto_collation, collate_fn,
                 drop_last, base_seed, init_fn, worker_id, num_workers, epoch):
    """The body of a worker process (see the module docstring)."""
    global _worker_info
    import torchlite

    where = f"in DataLoader worker process {worker_id}"
    try:
        seed = base_seed + worker_id
        random.seed(seed)
        torchlite.manual_seed(seed)
        np.random.seed(_numpy_seed(base_seed, worker_id))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        def make_fetcher():
            try:
                return _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last), None
            except Exception:
                return None, ExceptionWrapper(where=where)

        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
        except Exception:
            init_error = ExceptionWrapper(where=where)
        fetcher, fetcher_error = make_fetcher() if init_error is None else (None, None)
        exhausted = False
        parent = os.getppid()
        while True:
            try:
                msg = index_queue.get(timeout=_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent or done_event.is_set():
                    break
                continue
            if msg is None or done_event.is_set():
                break
            if msg[0] == "resume":
                epoch = msg[1]
                exhausted = False
                if init_error is None and dataset_kind == _DatasetKind.Iterable:
                    fetcher, fetcher_error = make_fetcher()
                continue
            _, task_epoch, idx, index = msg
            if exhausted or task_epoch != epoch:
                continue
            if init_error is not None or fetcher_error is not None:
                data = init_error or fetcher_error
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if dataset_kind != _DatasetKind.Iterable:
                        data = ExceptionWrapper(where=where)
                    else:
                        data = _IterableStop(worker_id)
                        exhausted = True
                except Exception:
                    data = ExceptionWrapper(where=where)
            _send(result_queue, epoch, idx, data, worker_id)
            del data
    except KeyboardInterrupt:
        pass
    finally:
        # Results still buffered are of no use once the parent has stopped or is gone: do not wait on them.
        result_queue.cancel_join_thread()
