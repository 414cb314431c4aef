"""Sparse COO tensors (torchlite/_sparse.py, csrc/sparse/Coo.h): construction and accessors, coalesce and
to_dense against NumPy, ops refusing them, nn.Embedding(sparse=True)'s gradients through autograd, the optimizers
that take them (SparseAdam, SGD, Adagrad) and those that refuse them, and pickling / save / load. PyTorch, when
installed, is the reference for printing, the optimizer updates and the checkpoint format."""
import copy
import io
import pickle

import numpy as np
import pytest

import torchlite as tl
from torchlite import nn


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")


def _dense_from_coo(indices, values, size):
    """NumPy's reference: zeros of size with every value added at its index (duplicates summed)."""
    out = np.zeros(size, dtype=values.dtype)
    for k in range(indices.shape[1]):
        out[tuple(indices[:, k])] += values[k]
    return out


def _random_coo(rng, size, sparse_dim, nnz):
    indices = np.stack([rng.integers(0, size[d], nnz) for d in range(sparse_dim)])
    values = rng.standard_normal((nnz,) + tuple(size[sparse_dim:]))
    return indices, values


# ---------------------------------------------------------------- construction and accessors

def test_accessors():
    i = tl.tensor([[0, 1, 1], [2, 0, 2]])
    v = tl.tensor([3.0, 4.0, 5.0])
    s = tl.sparse_coo_tensor(i, v, (2, 3))
    assert s.is_sparse and not i.is_sparse and s.layout is tl.sparse_coo and i.layout is tl.strided
    assert s.shape == (2, 3) and s.dtype == tl.float32 and s.device.type == "cpu"
    assert s._nnz() == 3 and s.sparse_dim() == 2 and s.dense_dim() == 0 and not s.is_coalesced()
    assert s._indices().data_ptr() == i.data_ptr() and s._values().data_ptr() == v.data_ptr()  # shared memory
    assert s.to_dense().tolist() == [[0, 0, 3], [4, 0, 5]]
    assert i.sparse_dim() == 0 and i.dense_dim() == 2 and i.to_dense() is i
    with pytest.raises(RuntimeError, match="Cannot get indices on an uncoalesced tensor"):
        s.indices()
    with pytest.raises(RuntimeError, match="Cannot get values on an uncoalesced tensor"):
        s.values()
    with pytest.raises(RuntimeError, match="is_coalesced expected sparse coordinate tensor layout"):
        i.is_coalesced()
    c = s.coalesce()
    assert c.is_coalesced() and c.indices().tolist() == [[0, 1, 1], [2, 0, 2]] and c.values().tolist() == [3, 4, 5]
    assert c.coalesce() is c


def test_size_inferred_and_dense_dims():
    s = tl.sparse_coo_tensor([[0, 3]], tl.ones(2, 4), dtype=tl.float64)
    assert s.shape == (4, 4) and s.dtype == tl.float64 and s.sparse_dim() == 1 and s.dense_dim() == 1
    empty = tl.sparse_coo_tensor(tl.zeros(2, 0, dtype=tl.int64), tl.zeros(0))
    assert empty.shape == (0, 0) and empty._nnz() == 0 and empty.to_dense().shape == (0, 0)


@pytest.mark.parametrize("size,sparse_dim", [((7,), 1), ((5, 4), 2), ((4, 3, 2), 1), ((3, 4, 5), 2)])
def test_coalesce_and_to_dense_match_numpy(size, sparse_dim):
    rng = np.random.default_rng(sum(size) + sparse_dim)
    indices, values = _random_coo(rng, size, sparse_dim, 12)  # 12 entries: duplicates on every size here
    s = tl.sparse_coo_tensor(tl.tensor(indices), tl.tensor(values), size)
    want = _dense_from_coo(indices, values, size)
    np.testing.assert_allclose(s.to_dense().numpy(), want, rtol=1e-12)
    c = s.coalesce()
    ci, cv = c._indices().numpy(), c._values().numpy()
    keys = [tuple(col) for col in ci.T]
    assert keys == sorted(set(keys)) and c._nnz() < s._nnz()  # sorted and unique, duplicates merged
    np.testing.assert_allclose(c.to_dense().numpy(), want, rtol=1e-12)
    for k, key in enumerate(keys):  # each value is its index's sum
        np.testing.assert_allclose(cv[k], want[key], rtol=1e-12)


def test_to_sparse_round_trip():
    x = tl.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    s = x.to_sparse()
    assert s.is_coalesced() and s._indices().tolist() == [[0, 1], [1, 0]] and s._values().tolist() == [2, 1]
    assert s.to_dense().tolist() == x.tolist() and s.to_sparse() is s and x.to_sparse_coo().to_dense().equal(x)
    rows = x.to_sparse(1)  # nonzero rows, each a dense value
    assert rows._indices().tolist() == [[0, 1]] and rows._values().tolist() == x[:2].tolist()
    with pytest.raises(RuntimeError, match="sparse_dim must be in"):
        x.to_sparse(3)


def test_construction_errors():
    i, v = tl.tensor([[0, 2]]), tl.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="size is inconsistent with indices: for dim 0, size is 2 but found index 2"):
        tl.sparse_coo_tensor(i, v, (2,))
    with pytest.raises(RuntimeError, match="found negative index -1 for dim 0"):
        tl.sparse_coo_tensor(tl.tensor([[-1, 0]]), v, (3,))
    with pytest.raises(RuntimeError, match="indices and values must have same nnz"):
        tl.sparse_coo_tensor(i, tl.tensor([1.0]), (3,))
    with pytest.raises(RuntimeError, match=r"number of dimensions must be sparse_dim \(1\) \+ dense_dim \(0\)"):
        tl.sparse_coo_tensor(i, v, (3, 3))
    with pytest.raises(RuntimeError, match="values has incorrect size"):
        tl.sparse_coo_tensor(i, tl.ones(2, 3), (3, 4))
    with pytest.raises(RuntimeError, match="indices must be an int64 tensor"):
        tl.sparse_coo_tensor(tl.tensor([[0.5]]), tl.tensor([1.0]), (2,))
    with pytest.raises(RuntimeError, match="indices must be sparse_dim x nnz"):
        tl.sparse_coo_tensor(tl.tensor([0, 1]), v, (2,))
    with pytest.raises(NotImplementedError, match="carry no autograd history"):
        tl.sparse_coo_tensor(i, v, (3,), requires_grad=True)


def test_ops_refuse_sparse_tensors():
    s = tl.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,))
    d = tl.ones(3)
    for call, op, arg in [(lambda: s + 1, "add", "self"), (lambda: d + s, "add", "other"),
                          (lambda: tl.exp(s), "exp", "self"), (lambda: s.sum(), "sum", "self"),
                          (lambda: tl.cat([d, s]), "cat", "tensors"), (lambda: tl.where(d > 0, s, d), "where", "self"),
                          (lambda: s.clone(), "clone", "self"), (lambda: s[0], "__getitem__", "self"),
                          (lambda: d.__setitem__(slice(0, 3), s), "__setitem__", "value"),
                          (lambda: s.item(), "item", "self")]:
        with pytest.raises(NotImplementedError, match=rf"^{op}\(\): sparse COO tensors are not supported by this op "
                                                      rf"\(argument '{arg}'\); convert with \.to_dense\(\) first$"):
            call()
    with pytest.raises(TypeError, match="can't convert Sparse layout tensor to numpy"):
        s.numpy()
    for t in (s, s.to_dense().half().to_sparse()):
        with pytest.raises(TypeError, match="can't convert Sparse layout tensor to a list"):
            t.tolist()
    with pytest.raises(NotImplementedError, match=r"^share_memory_\(\): sparse COO tensors are not supported"):
        tl._C._share_memory(s)  # Tensor.share_memory_ shares the parts instead
    with pytest.raises(RuntimeError, match="sparse COO tensors cannot be exported through DLPack"):
        s.__dlpack__()
    assert d.tolist() == [1, 1, 1]  # untouched


def test_repr_matches_pytorch():
    torch = _torch()
    cases = [([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3), None),
             ([[0, 2]], [[1.5, 2.0], [3.0, 4.25]], (3, 2), "float64"),
             ([[1]], [7], (2,), "int32")]
    for indices, values, size, dtype in cases:
        ours = tl.sparse_coo_tensor(indices, values, size, dtype=getattr(tl, dtype) if dtype else None)
        theirs = torch.sparse_coo_tensor(indices, values, size, dtype=getattr(torch, dtype) if dtype else None,
                                         check_invariants=True)
        assert repr(ours).replace("torchlite.", "torch.") == repr(theirs)
    empty = torch.sparse_coo_tensor(torch.zeros(1, 0, dtype=torch.long), torch.zeros(0, 2), (3, 2),
                                    check_invariants=True)
    assert repr(tl.sparse_coo_tensor(tl.zeros(1, 0, dtype=tl.int64), tl.zeros(0, 2), (3, 2))).replace(
        "torchlite.", "torch.") == repr(empty)


# ---------------------------------------------------------------- autograd: nn.Embedding(sparse=True)

def _embedding_pair(num=10, dim=3, **kw):
    sparse = nn.Embedding(num, dim, sparse=True, **kw)
    dense = nn.Embedding(num, dim, **kw)
    with tl.no_grad():
        dense.weight.copy_(sparse.weight)
    return sparse, dense


def test_embedding_sparse_gradient_equals_dense_one():
    sparse, dense = _embedding_pair(padding_idx=0)
    x = tl.tensor([[1, 2, 0], [2, 5, 1]])
    w = tl.randn(2, 3, 3)
    (sparse(x) * w).sum().backward()
    (dense(x) * w).sum().backward()
    g = sparse.weight.grad
    assert g.is_sparse and g.shape == (10, 3) and not g.is_coalesced()
    assert sorted(g._indices()[0].tolist()) == [1, 1, 2, 2, 5]  # one row per index, padding_idx left out
    np.testing.assert_allclose(g.to_dense().numpy(), dense.weight.grad.numpy(), rtol=1e-6)
    (sparse(x) * w).sum().backward()  # accumulates: the parts concatenated
    assert sparse.weight.grad._nnz() == 10
    np.testing.assert_allclose(sparse.weight.grad.to_dense().numpy(), 2 * dense.weight.grad.numpy(), rtol=1e-6)


def test_sparse_and_dense_uses_of_one_weight_sum_densely():
    sparse, dense = _embedding_pair()
    x = tl.tensor([3, 3, 7])
    for m in (sparse, dense):
        (m(x).sum() + (m.weight * m.weight).sum()).backward()
    assert not sparse.weight.grad.is_sparse
    np.testing.assert_allclose(sparse.weight.grad.numpy(), dense.weight.grad.numpy(), rtol=1e-6)
    sparse.weight.grad = tl.zeros(10, 3)  # a dense .grad first, then a sparse gradient added to it in place
    before = sparse.weight.grad
    sparse(x).sum().backward()
    assert sparse.weight.grad is before and before[3].tolist() == [2, 2, 2]


def test_autograd_grad_hooks_and_non_leaf_weights():
    sparse, dense = _embedding_pair()
    x = tl.tensor([4, 1, 4])
    (g,) = tl.autograd.grad(sparse(x).sum(), [sparse.weight])
    assert g.is_sparse and g.to_dense()[4].tolist() == [2, 2, 2] and sparse.weight.grad is None
    seen = []
    sparse.weight.register_hook(lambda grad: seen.append(grad.is_sparse))
    sparse(x).sum().backward()
    assert seen == [True]
    base = tl.randn(10, 3, requires_grad=True)  # a non-leaf weight: its history gets the dense gradient
    nn.functional.embedding(x, base * 2, sparse=True).sum().backward()
    assert not base.grad.is_sparse and base.grad[4].tolist() == [4, 4, 4] and base.grad[0].tolist() == [0, 0, 0]


def test_embedding_bag_sparse_gradient():
    bag = nn.EmbeddingBag(10, 3, mode="mean", sparse=True)
    ref = nn.EmbeddingBag(10, 3, mode="mean")
    with tl.no_grad():
        ref.weight.copy_(bag.weight)
    x, offsets = tl.tensor([1, 2, 4, 4, 9]), tl.tensor([0, 2])
    bag(x, offsets).sum().backward()
    ref(x, offsets).sum().backward()
    assert bag.weight.grad.is_sparse
    np.testing.assert_allclose(bag.weight.grad.to_dense().numpy(), ref.weight.grad.numpy(), rtol=1e-6)


def test_scale_grad_by_freq_is_refused_with_sparse_gradients():
    m = nn.Embedding(5, 2, sparse=True, scale_grad_by_freq=True)
    out = m(tl.tensor([1, 1]))
    with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse gradients"):
        out.sum().backward()


def test_zero_grad_and_module_conversions_keep_sparse_gradients():
    m = nn.Embedding(6, 2, sparse=True)
    m(tl.tensor([1, 3])).sum().backward()
    g = m.weight.grad
    m.zero_grad(set_to_none=False)
    assert m.weight.grad is g and g.is_sparse and g._nnz() == 0 and g.to_dense().abs().sum().item() == 0
    m(tl.tensor([2])).sum().backward()
    m.double()
    assert m.weight.grad.is_sparse and m.weight.grad.dtype == tl.float64
    assert m.weight.grad.to_dense()[2].tolist() == [1, 1]
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    opt.zero_grad(set_to_none=False)
    assert m.weight.grad._nnz() == 0


# ---------------------------------------------------------------- optimizers

def _train(lib, optimizer, kwargs, weight, batches, target, sparse=True):
    m = lib.nn.Embedding(*weight.shape, sparse=sparse, dtype=lib.float64)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(weight))
    opt = getattr(lib.optim, optimizer)(m.parameters(), **kwargs)
    for b in batches:
        opt.zero_grad()
        ((m(lib.tensor(b)) - lib.tensor(target)) ** 2).sum().backward()
        opt.step()
    return m.weight.detach().numpy(), opt


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((8, 3)), [rng.integers(0, 8, (5,)) for _ in range(4)], rng.standard_normal((5, 3))


def _sparse_adam_reference(weight, batches, target, lr, betas, eps, maximize=False):
    """SparseAdam written out in NumPy from its definition: Adam's update restricted to the rows a step's
    (coalesced) gradient names, bias-corrected by the step count."""
    w = weight.copy()
    m, v = np.zeros_like(w), np.zeros_like(w)
    for step, b in enumerate(batches, 1):
        grad_rows = 2 * (w[b] - target)
        g = np.zeros_like(w)
        np.add.at(g, b, grad_rows)
        if maximize:
            g = -g
        rows = np.unique(b)
        m[rows] += (1 - betas[0]) * (g[rows] - m[rows])
        v[rows] += (1 - betas[1]) * (g[rows] ** 2 - v[rows])
        step_size = lr * np.sqrt(1 - betas[1] ** step) / (1 - betas[0] ** step)
        w[rows] -= step_size * m[rows] / (np.sqrt(v[rows]) + eps)
    return w


@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-6, "maximize": True}])
def test_sparse_adam_matches_its_definition(kwargs):
    weight, batches, target = _problem()
    got, opt = _train(tl, "SparseAdam", kwargs, weight, batches, target)
    want = _sparse_adam_reference(weight, batches, target, kwargs.get("lr", 1e-3), kwargs.get("betas", (0.9, 0.999)),
                                  kwargs.get("eps", 1e-8), kwargs.get("maximize", False))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    untouched = sorted(set(range(8)) - set(np.concatenate(batches).tolist()))
    np.testing.assert_array_equal(got[untouched], weight[untouched])
    state = opt.state_dict()
    assert state["state"][0]["step"] == 4 and set(state["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    assert state["param_groups"][0]["maximize"] == kwargs.get("maximize", False)


@pytest.mark.parametrize("optimizer,kwargs", [
    ("SparseAdam", {"lr": 0.1}), ("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "maximize": True}), ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01}),
])
def test_sparse_gradient_updates_match_pytorch(optimizer, kwargs):
    torch = _torch()
    weight, batches, target = _problem(1)
    ours, _ = _train(tl, optimizer, kwargs, weight, batches, target)
    theirs, _ = _train(torch, optimizer, kwargs, weight, batches, target)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("optimizer", ["SGD", "Adagrad"])
def test_sparse_and_dense_gradients_give_one_update(optimizer):
    weight, batches, target = _problem(2)
    kwargs = {"lr": 0.1, "momentum": 0.5} if optimizer == "SGD" else {"lr": 0.1}
    sparse, _ = _train(tl, optimizer, kwargs, weight, batches, target)
    dense, _ = _train(tl, optimizer, kwargs, weight, batches, target, sparse=False)
    np.testing.assert_allclose(sparse, dense, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("optimizer,message", [
    ("Adam", "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("AdamW", "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("Adadelta", "Adadelta does not support sparse gradients"), ("Adamax", "Adamax does not support sparse gradients"),
    ("ASGD", "ASGD does not support sparse gradients"), ("NAdam", "NAdam does not support sparse gradients"),
    ("RAdam", "RAdam does not support sparse gradients"), ("RMSprop", "RMSprop does not support sparse gradients"),
    ("Rprop", "Rprop does not support sparse gradients"),
])
def test_optimizers_without_sparse_support_refuse(optimizer, message):
    weight, batches, target = _problem()
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        _train(tl, optimizer, {"lr": 0.1}, weight, batches, target)


def test_sparse_adam_and_friends_refuse_what_pytorch_refuses():
    weight, batches, target = _problem()
    with pytest.raises(RuntimeError, match="^SparseAdam does not support dense gradients, please consider Adam"):
        _train(tl, "SparseAdam", {}, weight, batches, target, sparse=False)
    with pytest.raises(ValueError, match=r"Sparse params at indices \[\[0, 0\]\]: SparseAdam requires dense"):
        tl.optim.SparseAdam([tl.sparse_coo_tensor([[0]], [1.0], (2,))])
    p = nn.Parameter(tl.zeros(2))
    with pytest.raises(ValueError, match="Invalid epsilon value: 0"):
        tl.optim.SparseAdam([p], eps=0)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
        tl.optim.SparseAdam([p], betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        tl.optim.SparseAdam([p], lr=-1)
    with pytest.raises(RuntimeError, match="weight_decay option is not compatible with sparse gradients"):
        _train(tl, "Adagrad", {"weight_decay": 0.1}, weight, batches, target)
    with pytest.raises(RuntimeError, match="`_fused_sgd` does not support sparse gradients"):
        _train(tl, "SGD", {"lr": 0.1, "fused": True}, weight, batches, target)


def test_sparse_adam_state_dict_round_trip():
    weight, batches, target = _problem(3)
    full, _ = _train(tl, "SparseAdam", {"lr": 0.01}, weight, batches, target)
    m = nn.Embedding(8, 3, sparse=True, dtype=tl.float64)
    with tl.no_grad():
        m.weight.copy_(tl.tensor(weight))
    opt = tl.optim.SparseAdam(m.parameters(), lr=0.01)
    for k, b in enumerate(batches):
        if k == 2:  # a fresh optimizer from the saved state finishes the run
            saved = pickle.loads(pickle.dumps(opt.state_dict()))
            opt = tl.optim.SparseAdam(m.parameters(), lr=0.01)
            opt.load_state_dict(saved)
        opt.zero_grad()
        ((m(tl.tensor(b)) - tl.tensor(target)) ** 2).sum().backward()
        opt.step()
    np.testing.assert_allclose(m.weight.detach().numpy(), full, rtol=1e-12)


# ---------------------------------------------------------------- pickling, copies, checkpoints

def _grad():
    m = nn.Embedding(6, 2, sparse=True)
    m(tl.tensor([1, 3, 3])).sum().backward()
    return m.weight.grad


def test_pickle_copy_and_share_memory():
    g = _grad()
    for other in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert other.is_sparse and other._indices() is not g._indices()
        assert other.to_dense().tolist() == g.to_dense().tolist()
    alias = copy.copy(g)
    assert alias.is_sparse and alias._values() is g._values()
    assert not g.is_shared() and g.share_memory_() is g and g.is_shared() and g._values().is_shared()


def test_save_and_load_keep_sparse_tensors():
    g = _grad().coalesce()
    buf = io.BytesIO()
    tl.save({"g": g}, buf)
    buf.seek(0)
    back = tl.load(buf)["g"]
    assert back.is_sparse and back.is_coalesced() and back.to_dense().tolist() == g.to_dense().tolist()


def test_checkpoints_cross_with_pytorch():
    torch = _torch()
    g = _grad()
    buf = io.BytesIO()
    tl.save({"g": g}, buf)
    buf.seek(0)
    theirs = torch.load(buf)["g"]
    assert theirs.is_sparse and theirs.to_dense().tolist() == g.to_dense().tolist()
    buf = io.BytesIO()
    s = torch.sparse_coo_tensor([[0, 2, 2]], [[1.0], [2.0], [3.0]], (4, 1), check_invariants=True)
    torch.save({"s": s.coalesce()}, buf)
    buf.seek(0)
    ours = tl.load(buf)["s"]
    assert ours.is_sparse and ours.is_coalesced() and ours.to_dense().tolist() == [[1], [0], [5], [0]]


def test_grad_scaler_unscales_sparse_gradients():
    m = nn.Embedding(6, 2, sparse=True)
    opt = tl.optim.SparseAdam(m.parameters())
    scaler = tl.amp.GradScaler("cpu", init_scale=64.0)
    scaler.scale(m(tl.tensor([1, 4, 4])).sum()).backward()
    assert m.weight.grad.to_dense()[4].tolist() == [128, 128]
    scaler.unscale_(opt)
    assert m.weight.grad.is_sparse and m.weight.grad.to_dense()[4].tolist() == [2, 2]
    before = m.weight.detach().clone()
    scaler.step(opt)
    scaler.update()
    assert not m.weight[4].equal(before[4]) and m.weight[0].equal(before[0])
    m.zero_grad()
    scaler.scale(m(tl.tensor([1])).sum() * float("inf")).backward()
    scaler.unscale_(opt)  # an inf among the sparse values is found: the step is skipped
    before = m.weight.detach().clone()
    scaler.step(opt)
    assert m.weight.equal(before)
