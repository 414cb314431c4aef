"""Shared memory: Tensor.share_memory_ / is_shared, Module.share_memory, and torchlite.multiprocessing's
reducers, which send CPU tensors to other processes through shared memory (as torch.multiprocessing)."""
import multiprocessing
import os
import time

import numpy as np
import pytest

import torchlite as tl
import torchlite.multiprocessing as tmp

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the tests fork (POSIX only)")


@pytest.fixture
def same_torchlite_in_children(monkeypatch):
    """A spawned child starts from this process's sys.path: the torchlite imported here goes first, ahead of a
    source checkout in the working directory (whose package has no built _C when torchlite is installed)."""
    monkeypatch.syspath_prepend(os.path.dirname(os.path.dirname(os.path.abspath(tl.__file__))))


def _fork_run(target, *args):
    p = multiprocessing.get_context("fork").Process(target=target, args=args)
    p.start()
    p.join(60)
    assert p.exitcode == 0


def _add_one(t):
    with tl.no_grad():
        t.add_(1)


def test_share_memory_moves_the_storage_in_place():
    x = tl.arange(6.0)
    view = x[2:]  # made before: it follows, as the storage moves
    assert not x.is_shared() and not view.is_shared()
    assert x.share_memory_() is x
    assert x.is_shared() and view.is_shared()
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    view[0] = 10.0
    assert x[2].item() == 10.0
    assert x.share_memory_().is_shared()  # a no-op the second time
    empty = tl.ones(0).share_memory_()
    assert empty.is_shared() and empty.numel() == 0


def test_a_forked_process_writes_into_shared_memory_only():
    private, shared = tl.zeros(4), tl.zeros(4).share_memory_()
    _fork_run(_add_one, private)
    _fork_run(_add_one, shared)
    assert private.tolist() == [0.0] * 4  # copy-on-write: the child's write stays in the child
    assert shared.tolist() == [1.0] * 4


def test_shared_storage_cannot_grow():
    x = tl.arange(4.0).share_memory_()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        x.resize_(10)
    assert x.shape == (4,) and x.tolist() == [0.0, 1.0, 2.0, 3.0]  # unchanged by the refused resize
    x.resize_(2)  # shrinking needs no new memory
    assert x.tolist() == [0.0, 1.0]


def test_module_share_memory_hogwild():
    model = tl.nn.Linear(3, 2)
    model.weight.grad = tl.zeros_like(model.weight)
    assert model.share_memory() is model
    assert all(p.is_shared() for p in model.parameters()) and model.weight.grad.is_shared()
    before = [p.detach().clone() for p in model.parameters()]

    def train():  # two processes stepping the same parameters with SGD
        opt = tl.optim.SGD(model.parameters(), lr=0.5)
        for _ in range(3):
            for p in model.parameters():
                p.grad = tl.ones_like(p)
            opt.step()

    _fork_run(train)
    _fork_run(train)
    for b, p in zip(before, model.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), b.numpy() - 3.0, rtol=1e-6)  # 2 x 3 steps of 0.5


def test_adagrad_share_memory():
    p = tl.nn.Parameter(tl.ones(3))
    opt = tl.optim.Adagrad([p])
    opt.share_memory()
    assert opt.state[p]["sum"].is_shared()


def _echo(inbox, outbox):
    items = inbox.get()
    with tl.no_grad():  # the base and the parameter; the view (of the base's memory) sees the base's change
        items[0].mul_(2)
        items[2].mul_(2)
    made = tl.full((2,), 7.0)
    outbox.put([(type(t).__name__, t.requires_grad, t.is_shared(), t.is_conj(), t.tolist()) for t in items] + [made])
    made.add_(1)  # after sending: the parent sees it, as the memory is one
    inbox.get()  # wait until the parent has looked


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_queues_send_tensors_through_shared_memory(method, same_torchlite_in_children):
    ctx = tmp.get_context(method)
    inbox, outbox = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_echo, args=(inbox, outbox))
    p.start()
    try:
        base = tl.arange(6.0)
        param = tl.nn.Parameter(tl.ones(2))
        z = tl.tensor([1 + 2j, 3 - 1j]).conj()
        inbox.put([base, base[1:5:2], param, z])
        *seen, made = outbox.get(timeout=60)
        assert seen[0] == ("Tensor", False, True, False, [0.0, 2.0, 4.0, 6.0, 8.0, 10.0])
        assert seen[1][2] and seen[1][4] == [2.0, 6.0]  # the view's geometry travels
        assert seen[2][:3] == ("Parameter", True, True)
        assert seen[3][3] and seen[3][4] == [1 - 2j, 3 + 1j]  # a conj() view stays one
        assert base.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]  # the child's writes, in the parent's tensor
        assert param.tolist() == [2.0, 2.0]
        assert made.is_shared()
        deadline = time.monotonic() + 30  # the child's write after its put, seen here
        while made.tolist() != [8.0, 8.0] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert made.tolist() == [8.0, 8.0]
        inbox.put(None)
    finally:
        p.join(60)
    assert p.exitcode == 0


def test_non_leaf_tensors_that_require_grad_are_refused():
    from multiprocessing.reduction import ForkingPickler

    x = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        ForkingPickler.dumps(x * 2)


def test_bad_shared_memory_geometry_is_refused():
    fd = os.memfd_create("torchlite-test")
    os.ftruncate(fd, 16)
    with pytest.raises(RuntimeError, match="does not fit its 16-byte storage"):
        tl._C._from_shared_memory(fd, 16, tl.float32, [5], [1], 0)  # 20 bytes
    fd = os.memfd_create("torchlite-test")
    os.ftruncate(fd, 16)
    with pytest.raises(RuntimeError, match="does not fit"):  # sizes whose extent overflows int64
        tl._C._from_shared_memory(fd, 16, tl.float32, [2, 2 ** 62], [2 ** 62, 4], 0)
    fd = os.memfd_create("torchlite-test")
    os.ftruncate(fd, 8)
    with pytest.raises(RuntimeError, match="holds fewer than the 16 bytes"):
        tl._C._from_shared_memory(fd, 16, tl.float32, [4], [1], 0)
    with pytest.raises(RuntimeError, match="in shared memory"):
        tl._C._shared_memory_handle(tl.ones(2))


def _write_rank(rank, out):
    out[rank] = rank + 1.0


def _fail(rank, code):
    if rank == 1:
        if code:
            os._exit(code)
        raise ValueError(f"boom in rank {rank}")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_spawn_runs_fn_on_every_rank(method, same_torchlite_in_children):
    out = tl.zeros(3).share_memory_()
    assert tmp.spawn(_write_rank, args=(out,), nprocs=3, start_method=method) is None
    assert out.tolist() == [1.0, 2.0, 3.0]
    out = tl.zeros(2).share_memory_()
    context = tmp.start_processes(_write_rank, args=(out,), nprocs=2, join=False, start_method=method)
    assert len(context.pids()) == 2
    deadline = time.monotonic() + 60  # join returns False until every process has ended
    while not context.join(timeout=5) and time.monotonic() < deadline:
        pass
    assert context.join(timeout=0) and out.tolist() == [1.0, 2.0]


def test_spawn_raises_a_failing_rank_s_error():
    with pytest.raises(tmp.ProcessRaisedException, match="(?s)Process 1 terminated with the following error.*"
                                                         "ValueError: boom in rank 1") as info:
        tmp.spawn(_fail, args=(0,), nprocs=2, start_method="fork")
    assert info.value.error_index == 1
    with pytest.raises(tmp.ProcessExitedException, match="process 1 terminated with exit code 3") as info:
        tmp.spawn(_fail, args=(3,), nprocs=2, start_method="fork")
    assert info.value.exit_code == 3
    assert tmp.get_sharing_strategy() in tmp.get_all_sharing_strategies()
    with pytest.raises(ValueError, match="file_descriptor"):
        tmp.set_sharing_strategy("file_system")
