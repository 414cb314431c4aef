"""torchlite.multiprocessing: Python's multiprocessing, with CPU tensors sent through shared memory.

As torch.multiprocessing: every name of `multiprocessing` is here (Process, Queue, Pool, get_context,
set_start_method...), and importing this module registers reducers with multiprocessing's pickler
(ForkingPickler, which Queue, Pipe, Pool and a spawned Process's arguments use). A CPU tensor sent that way
is first moved to shared memory (`Tensor.share_memory_()`, in place: the sender keeps using it) and the
receiver maps the same memory, so that writes on either side are seen on the other (Hogwild training:
`model.share_memory()`, then processes that each step the same parameters). Its file descriptor travels
with multiprocessing's own machinery (`reduction.DupFd`). Views keep their geometry, `nn.Parameter`s stay
parameters, `requires_grad` travels; a tensor that requires grad and is not a leaf is refused, as by PyTorch
(autograd does not cross processes). CUDA tensors are sent as copies (no CUDA IPC).

`spawn(fn, args, nprocs)` / `start_processes` run fn(rank, *args) in nprocs processes and, once one fails,
stop the others and raise its error in the parent with the child's traceback, as PyTorch's.
"""
import multiprocessing
import multiprocessing.connection
import signal as _signal
import sys as _sys
import traceback as _traceback
from multiprocessing import *  # noqa: F401,F403 (the whole of multiprocessing's API, as torch.multiprocessing)
from multiprocessing import reduction as _reduction

from .. import _C
from .._serialization import _dtype_name, _finish
from .._tensor import Tensor

__all__ = list(multiprocessing.__all__) + [
    "spawn", "start_processes", "ProcessContext", "ProcessException", "ProcessRaisedException",
    "ProcessExitedException", "get_sharing_strategy", "set_sharing_strategy", "get_all_sharing_strategies"]


# ------------------------------------------------------------------ sharing strategies
def get_all_sharing_strategies():
    """The ways CPU tensors can be shared: torchlite passes a file descriptor per storage."""
    return {"file_descriptor"}


def get_sharing_strategy():
    return "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Only 'file_descriptor' (PyTorch also has 'file_system', named files in /dev/shm, for systems that run out
    of descriptors); torchlite refuses the other names rather than silently sharing another way."""
    if new_strategy not in get_all_sharing_strategies():
        raise ValueError(f"set_sharing_strategy: torchlite shares tensors by 'file_descriptor' only, got "
                         f"{new_strategy!r}")


# ------------------------------------------------------------------ spawn
class ProcessException(Exception):
    """A process started by spawn/start_processes failed: which one (error_index) and its pid."""

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """The process raised an exception: the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """The process exited with a non-zero code, or was killed by a signal (signal_name)."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is told by the exit code
    except Exception:
        error_queue.put(_traceback.format_exc())
        _sys.exit(1)


class ProcessContext:
    """The processes of start_processes(join=False): join() waits for them, and once one fails, stops the others
    and raises its error."""

    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None):
        """True once every process has ended well, False if some still run after `timeout` seconds; raises
        ProcessRaisedException / ProcessExitedException for the first that failed (the others are terminated)."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            proc = self.processes[index]
            proc.join()
            if proc.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        for proc in self.processes:
            if proc.is_alive():
                proc.terminate()
            proc.join()
        proc, queue = self.processes[error_index], self.error_queues[error_index]
        if queue.empty():
            code = proc.exitcode
            if code < 0:
                name = _signal.Signals(-code).name
                raise ProcessExitedException(f"process {error_index} terminated with signal {name}", error_index,
                                             proc.pid, code, name)
            raise ProcessExitedException(f"process {error_index} terminated with exit code {code}", error_index,
                                         proc.pid, code)
        msg = f"\n\n-- Process {error_index} terminated with the following error:\n" + queue.get()
        raise ProcessRaisedException(msg, error_index, proc.pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs fn(i, *args) in nprocs processes (i = 0 .. nprocs - 1) started with `start_method`; with join, waits
    for them all (raising the first failure, with the child's traceback), else returns their ProcessContext."""
    ctx = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        queue = ctx.SimpleQueue()
        proc = ctx.Process(target=_wrap, args=(fn, i, args, queue), daemon=daemon)
        proc.start()
        processes.append(proc)
        queues.append(queue)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """torch.multiprocessing.spawn: start_processes with the 'spawn' start method by default."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)


def _rebuild_shared(fd, nbytes, dtype_name, sizes, strides, offset, conj, requires_grad, cls, state):
    t = _C._from_shared_memory(fd.detach(), nbytes, getattr(_C, dtype_name), list(sizes), list(strides), offset)
    return _finish(t.conj() if conj else t, requires_grad, cls, state)


def _reduce_tensor(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                           "does not support crossing process boundaries.  If you just want to transfer the data, "
                           "call detach() on the tensor before serializing (e.g., putting it on the queue).")
    if t.device.type != "cpu":
        return t.__reduce_ex__(2)
    t.share_memory_()
    fd, nbytes = _C._shared_memory_handle(t)
    state = dict(t.__dict__) if t.__dict__ else None
    return (_rebuild_shared, (_reduction.DupFd(fd), nbytes, _dtype_name(t.dtype), tuple(t.shape), tuple(t.stride()),
                              t.storage_offset(), t.is_conj(), t.requires_grad, type(t), state))


def _register():
    from ..nn.parameter import Parameter

    for cls in (Tensor, Parameter):
        _reduction.ForkingPickler.register(cls, _reduce_tensor)


_register()
