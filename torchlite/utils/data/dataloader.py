"""DataLoader (PyTorch's torch.utils.data.dataloader): batches of a dataset, in this process or in workers."""
import itertools
import math
import multiprocessing
import os
import pickle
import queue
import time
import warnings
from typing import Generic, TypeVar

from ._utils.collate import default_collate, default_convert
from ._utils.fetch import _DatasetKind
from ._utils.worker import ExceptionWrapper, _IterableStop, _worker_loop, get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

T_co = TypeVar("T_co", covariant=True)

# How often the parent, waiting for a batch, checks that its workers are alive (seconds).
_CHECK_INTERVAL = 1.0

# The queues and processes of every multi-process iterator not yet shut down, by id(iterator). Being reachable from
# here, they stay usable while the garbage collector finalizes an iterator caught in a reference cycle (a queue that
# is itself garbage has its feeder thread closed first, and the workers would then never get their stop message).
_LIVE_WORKERS = {}


def _tl():
    import torchlite

    return torchlite


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: None forever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


def _default_context():
    """'fork' where the platform has it, else the platform's default start method."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _accelerator_available():
    try:
        return bool(_tl().cuda.is_available())
    except Exception:
        return False


def _pin(data):
    """data with its tensors (and objects with a pin_memory method) pinned: torchlite's CPU tensors have no
    pinned memory, so only objects with their own pin_memory method change."""
    import collections.abc

    if hasattr(data, "pin_memory") and not isinstance(data, (str, bytes)):
        return data.pin_memory()
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: _pin(v) for k, v in data.items()}) if type(data) is dict else data
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin(d) for d in data))
    if isinstance(data, list):
        return [_pin(d) for d in data]
    return data


class DataLoader(Generic[T_co]):
    """Iterates over `dataset` in batches (or samples when batch_size=None), with a sampler, a collate_fn and
    optionally worker processes, as torch.utils.data.DataLoader."""

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers=False, pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._iterator = None
        self._IterableDataset_len_called = None
        self._check_worker_number_rationality()
        self.__initialized = True

    @property
    def multiprocessing_context(self):
        """The multiprocessing context the workers start from (None: 'fork' where available)."""
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx):
        if ctx is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(ctx, str):
                methods = multiprocessing.get_all_start_methods()
                if ctx not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={ctx!r}")
                ctx = multiprocessing.get_context(ctx)
            if not isinstance(ctx, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={ctx}")
        self.__multiprocessing_context = ctx

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        """A new iterator; with persistent_workers the same one, reset (its workers kept)."""
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        """Number of batches: from the sampler, or for an IterableDataset from len(dataset) and batch_size."""
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def _check_worker_number_rationality(self):
        if self.num_workers <= 1:
            return
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cpus = os.cpu_count()
        if cpus is not None and self.num_workers > cpus:
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. Our suggested "
                          f"max number of worker in current system is {cpus}, which is smaller than what this "
                          "DataLoader is going to create. Please be aware that excessive worker creation might get "
                          "DataLoader running slow or even freeze, lower the worker number to avoid potential "
                          "slowness/freeze if necessary.", stacklevel=3)


class _BaseDataLoaderIter:
    """What both iterators share: the loader's settings, the index sampler, the base seed, the length."""

    def __init__(self, loader):
        tl = _tl()
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._pin_memory = loader.pin_memory and _accelerator_available()
        if loader.pin_memory and not self._pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=3)
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # One draw from the loader's generator per iterator: the workers' seeds are base_seed + worker_id.
        self._base_seed = int(tl.empty((), dtype=tl.int64).random_(generator=loader.generator).item())
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called} "
                   f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Loads in this process."""

    def __init__(self, loader):
        super().__init__(loader)
        assert self._timeout == 0
        assert self._num_workers == 0
        self._fetcher = _DatasetKind.create_fetcher(self._dataset_kind, self._dataset, self._auto_collation,
                                                     self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()  # StopIteration ends the iteration
        data = self._fetcher.fetch(index)
        return _pin(data) if self._pin_memory else data


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Loads in worker processes: indices go out round-robin to the active workers, at most
    prefetch_factor * num_workers ahead; batches come back in order (in_order) or as they arrive."""

    def __init__(self, loader):
        super().__init__(loader)
        self._owner_pid = os.getpid()
        self._shutdown = True  # until the workers exist
        self._in_order = loader.in_order
        ctx = loader.multiprocessing_context or _default_context()
        self._worker_init_fn = loader.worker_init_fn
        self._epoch = 0
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._index_queues = []
        self._workers = []
        for wid in range(self._num_workers):
            iq = ctx.Queue()
            iq.cancel_join_thread()  # tasks left unread when the workers stop are dropped
            w = ctx.Process(target=_worker_loop, daemon=True, args=(
                self._dataset_kind, self._dataset, iq, self._result_queue, self._done_event, self._auto_collation, self._collate_fn,
                self._drop_last, self._base_seed, self._worker_init_fn, wid, self._num_workers, self._epoch))
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        _LIVE_WORKERS[id(self)] = (self._workers, self._index_queues, self._result_queue, self._done_event)
        self._shutdown = False
        self._start_epoch()

    def _start_epoch(self):
        self._send_idx = 0  # the next task's number
        self._rcvd_idx = 0  # the next task to return, in order
        self._tasks = {}  # task number -> worker, for tasks not yet returned or dropped
        self._results = {}  # task number -> payload, arrived but not yet returned
        self._active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        self._sampler_done = False
        for _ in range(self._prefetch_factor * self._num_workers):
            if not self._put_index():
                break

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._epoch += 1
        for iq in self._index_queues:
            iq.put(("resume", self._epoch))
        self._start_epoch()

    def _put_index(self):
        """Sends the next index to the next active worker; False when there is none to send."""
        if self._sampler_done or not any(self._active):
            return False
        if len(self._tasks) >= self._prefetch_factor * self._num_workers:
            return False
        for _ in range(self._num_workers):
            wid = next(self._worker_cycle)
            if self._active[wid]:
                break
        try:
            index = self._next_index()
        except StopIteration:
            self._sampler_done = True
            return False
        self._index_queues[wid].put(("task", self._epoch, self._send_idx, index))
        self._tasks[self._send_idx] = wid
        self._send_idx += 1
        return True

    def _receive(self):
        """One (idx, payload) of the current epoch from the result queue, within the timeout."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            wait = _CHECK_INTERVAL if deadline is None else max(0.0, min(_CHECK_INTERVAL, deadline - time.monotonic()))
            try:
                epoch, idx, payload = self._result_queue.get(timeout=wait)
            except queue.Empty:
                dead = [w.pid for w in self._workers if not w.is_alive()]
                if dead:
                    self._shutdown_workers()
                    pids = ", ".join(str(p) for p in dead)
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None
                continue
            if epoch != self._epoch:
                continue  # left over from an abandoned epoch (persistent workers)
            return idx, pickle.loads(payload)

    def _drop_tasks_of_exhausted_workers(self):
        for idx in [i for i, w in self._tasks.items() if not self._active[w] and i not in self._results]:
            del self._tasks[idx]

    def _next_data(self):
        while True:
            if self._in_order:
                # Tasks of exhausted workers will never be answered: skip them.
                while (self._rcvd_idx < self._send_idx and self._rcvd_idx not in self._results
                       and self._rcvd_idx not in self._tasks):
                    self._rcvd_idx += 1
                ready = self._rcvd_idx if self._rcvd_idx in self._results else None
            else:
                ready = min(self._results) if self._results else None
            if ready is not None:
                data = self._results.pop(ready)
                del self._tasks[ready]
                if ready == self._rcvd_idx:
                    self._rcvd_idx += 1
                self._put_index()
                if isinstance(data, ExceptionWrapper):
                    data.reraise()
                return _pin(data) if self._pin_memory else data
            if not self._tasks:
                self._put_index()
                if not self._tasks:
                    if not self._persistent_workers:
                        self._shutdown_workers()
                    raise StopIteration
                continue
            idx, data = self._receive()
            if idx not in self._tasks:
                continue
            if isinstance(data, _IterableStop):
                self._active[data.worker_id] = False
                self._drop_tasks_of_exhausted_workers()
                while self._put_index():  # keep the other workers busy
                    pass
                continue
            self._results[idx] = data

    def _shutdown_workers(self):
        """Stops the workers (asks, then terminates those that do not stop) and closes the queues."""
        if self._shutdown or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        _LIVE_WORKERS.pop(id(self), None)
        self._done_event.set()
        for iq in self._index_queues:
            try:
                iq.put(None)
            except Exception:
                pass
        deadline = time.monotonic() + 5.0
        for w in self._workers:
            w.join(timeout=max(0.0, deadline - time.monotonic()))
        for w in self._workers:
            if w.is_alive():
                w.terminate()
                w.join()
        for q in self._index_queues + [self._result_queue]:
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass

