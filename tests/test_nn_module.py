"""nn.Module, Parameter, Buffer and the containers: registration, iteration, modes, conversions, hooks,
state_dict round trips and their errors, repr, deepcopy and pickling; compared with PyTorch where installed."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn


class Affine(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.weight = nn.Parameter(tl.arange(n, dtype=tl.float32) + 1)
        self.bias = nn.Parameter(tl.zeros(n))
        self.register_buffer("count", tl.zeros((), dtype=tl.int64))
        self.register_buffer("scratch", tl.ones(n), persistent=False)

    def forward(self, x):
        return x * self.weight + self.bias


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Affine()
        self.b = nn.Sequential(Affine(), Affine())
        self.shared = self.a  # the same module twice

    def forward(self, x):
        return self.b(self.a(x))


def test_registration_through_attributes():
    m = Affine()
    assert list(m._parameters) == ["weight", "bias"]
    assert list(m._buffers) == ["count", "scratch"]
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    m.extra = tl.ones(2)  # a plain tensor is a plain attribute
    assert "extra" not in m._buffers and "extra" in m.__dict__
    m.buf = nn.Buffer(tl.ones(2), persistent=False)
    assert "buf" in m._buffers and "buf" in m._non_persistent_buffers_set
    m.count = tl.ones((), dtype=tl.int64)  # reassigning a buffer keeps it a buffer
    assert m._buffers["count"].item() == 1
    m.bias = None
    assert m._parameters["bias"] is None and m.bias is None
    del m.weight
    assert "weight" not in m._parameters
    with pytest.raises(AttributeError, match="has no attribute 'weight'"):
        m.weight


def test_registration_errors():
    class Early(nn.Module):
        def __init__(self):
            self.p = nn.Parameter(tl.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()
    m = Affine()
    with pytest.raises(TypeError, match="cannot assign 'torchlite.FloatTensor' as parameter 'weight'"):
        m.weight = tl.ones(3)
    with pytest.raises(KeyError, match=r'contain "\."'):
        m.register_buffer("a.b", tl.ones(1))
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("weight", tl.ones(1))
    with pytest.raises(TypeError, match="buffer name should be a string"):
        m.register_buffer(3, tl.ones(1))
    with pytest.raises(TypeError, match="to buffer 'x'"):
        m.register_buffer("x", 3)
    with pytest.raises(TypeError, match=r"torch.nn.Parameter or None required"):
        m.register_parameter("q", tl.ones(1))
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("c", 3)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        nn.Module(foo=1)


def test_iteration_prefixes_and_duplicates():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["a.weight", "a.bias", "b.0.weight", "b.0.bias", "b.1.weight", "b.1.bias"]
    assert len(list(net.parameters())) == 6
    dup = [n for n, _ in net.named_parameters(remove_duplicate=False)]
    assert dup == names + ["shared.weight", "shared.bias"]
    assert [n for n, _ in net.named_parameters(prefix="net", recurse=False)] == []
    assert [n for n, _ in net.a.named_parameters(prefix="x")] == ["x.weight", "x.bias"]
    assert [n for n, _ in net.named_buffers()] == ["a.count", "a.scratch", "b.0.count", "b.0.scratch",
                                                   "b.1.count", "b.1.scratch"]
    assert [n for n, _ in net.named_modules()] == ["", "a", "b", "b.0", "b.1"]
    assert [n for n, _ in net.named_modules(remove_duplicate=False)] == ["", "a", "b", "b.0", "b.1", "shared"]
    assert [n for n, _ in net.named_children()] == ["a", "b"]
    assert net.get_submodule("b.1") is net.b[1]
    assert net.get_parameter("b.0.weight") is net.b[0].weight
    assert net.get_buffer("a.count") is net.a.count
    with pytest.raises(AttributeError, match="has no attribute `c`"):
        net.get_submodule("c")
    with pytest.raises(AttributeError, match="is not an nn.Parameter"):
        net.get_parameter("a.count")


def test_train_eval_requires_grad_zero_grad():
    net = Net()
    assert net.training and net.b[1].training
    assert net.eval() is net and not net.b[1].training
    net.train()
    assert net.a.training
    with pytest.raises(ValueError, match="boolean"):
        net.train("yes")
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_()
    net(tl.ones(3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_forward_and_gradients():
    m = Affine()
    x = tl.tensor([1.0, 2.0, 3.0])
    y = m(x)
    np.testing.assert_allclose(y.detach().numpy(), [1, 4, 9])
    y.sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), [1, 2, 3])
    np.testing.assert_allclose(m.bias.grad.numpy(), [1, 1, 1])
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward"'):
        nn.Module()(x)


def test_to_and_casts_keep_parameter_identity():
    m = Affine()
    w = m.weight
    m.weight.grad = tl.ones(3)
    assert m.double() is m
    assert m.weight is w and w.dtype == tl.float64 and w.requires_grad and isinstance(w, nn.Parameter)
    assert w.grad.dtype == tl.float64
    assert m.count.dtype == tl.int64  # integer buffers are not cast
    m.to(tl.float16)
    assert w.dtype == tl.float16
    m.to("cpu", dtype=tl.float32)
    assert w.dtype == tl.float32 and m.scratch.dtype == tl.float32
    m.half().float()
    assert w.dtype == tl.float32
    with pytest.raises(TypeError, match="floating point or complex dtypes"):
        m.to(tl.int32)
    np.testing.assert_allclose(m(tl.ones(3)).detach().numpy(), [1, 2, 3])
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m and seen == ["Affine"]


def test_data_assignment():
    x = tl.ones(2, 3, requires_grad=True)
    x.data = tl.zeros(4, dtype=tl.float64)
    assert x.shape == (4,) and x.dtype == tl.float64 and x.requires_grad and x.is_leaf
    with pytest.raises(TypeError, match="must be a Tensor"):
        x.data = 3


def test_state_dict_round_trip_and_metadata():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == ["a.weight", "a.bias", "a.count", "b.0.weight", "b.0.bias", "b.0.count",
                        "b.1.weight", "b.1.bias", "b.1.count", "shared.weight", "shared.bias", "shared.count"]
    assert not sd["a.weight"].requires_grad and not isinstance(sd["a.weight"], nn.Parameter)
    assert isinstance(net.state_dict(keep_vars=True)["a.weight"], nn.Parameter)
    assert sd._metadata[""] == {"version": 1} and "b.0" in sd._metadata
    other = Net()
    with tl.no_grad():
        for p in net.parameters():
            p.mul_(3)
    result = other.load_state_dict(net.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    for (n1, p1), (n2, p2) in zip(net.named_parameters(), other.named_parameters()):
        assert n1 == n2 and np.array_equal(p1.detach().numpy(), p2.detach().numpy())
        assert p1 is not p2


def test_load_state_dict_errors():
    m = Affine()
    sd = m.state_dict()
    sd["weight"] = tl.ones(4)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(sd)
    assert str(e.value) == ("Error(s) in loading state_dict for Affine:\n\tsize mismatch for weight: copying a "
                            "param with shape torchlite.Size([4]) from checkpoint, the shape in current model is "
                            "torchlite.Size([3]).")
    sd = m.state_dict()
    del sd["bias"]
    sd["extra"] = tl.ones(1)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias". \n\tUnexpected key\\(s\\) '
                                           'in state_dict: "extra".'):
        m.load_state_dict(sd)
    result = m.load_state_dict(sd, strict=False)  # reported, not raised
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]
    with pytest.raises(TypeError, match="dict-like"):
        m.load_state_dict([1, 2])


def test_load_state_dict_assign():
    m = Affine()
    new = tl.full((3,), 7.0)
    m.load_state_dict({"weight": new, "bias": tl.zeros(3), "count": tl.zeros((), dtype=tl.int64)}, assign=True)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    assert m.weight.data_ptr() == new.data_ptr()


def test_state_dict_hooks_and_extra_state():
    class WithExtra(Affine):
        def get_extra_state(self):
            return {"note": "hi"}

        def set_extra_state(self, state):
            self.loaded = state

    m = WithExtra()
    sd = m.state_dict()
    assert sd["_extra_state"] == {"note": "hi"}
    m2 = WithExtra()
    m2.load_state_dict(sd)
    assert m2.loaded == {"note": "hi"}
    calls = []
    h = m.register_state_dict_post_hook(lambda mod, d, prefix, meta: calls.append(sorted(d)))
    m.state_dict()
    h.remove()
    m.state_dict()
    assert len(calls) == 1
    m.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
    sd2 = m.state_dict()
    del sd2["bias"]
    m.load_state_dict(sd2)  # the hook clears the missing key


def test_forward_hooks():
    m = Affine()
    log = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    h2 = m.register_forward_hook(lambda mod, args, out: out + 100)
    h3 = m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(("kw", kwargs)) or None,
                                     with_kwargs=True)
    out = m(tl.ones(3))
    np.testing.assert_allclose(out.detach().numpy(), [102, 104, 106])
    assert log == [("kw", {})]
    for h in (h1, h2, h3):
        h.remove()
    np.testing.assert_allclose(m(tl.ones(3)).detach().numpy(), [1, 2, 3])
    with m.register_forward_hook(lambda mod, args, out: out * 0):
        assert m(tl.ones(3)).sum().item() == 0
    assert m(tl.ones(3)).sum().item() == 6


def test_forward_hook_always_called():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    b = Boom()
    b.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        b(tl.ones(1))
    assert seen == [None]


def test_full_backward_hooks():
    m = Affine()
    seen = {}

    def pre(mod, grad_output):
        seen["pre"] = grad_output[0].numpy().copy()

    def post(mod, grad_input, grad_output):
        seen["in"] = grad_input[0].numpy().copy()
        seen["out"] = grad_output[0].numpy().copy()
        return (grad_input[0] * 10,)

    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(post)
    x = tl.ones(3, requires_grad=True)
    m(x).backward(tl.tensor([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(seen["pre"], [1, 2, 3])
    np.testing.assert_allclose(seen["out"], [1, 2, 3])
    np.testing.assert_allclose(seen["in"], [1, 4, 9])
    np.testing.assert_allclose(x.grad.numpy(), [10, 40, 90])
    with pytest.raises(RuntimeError, match="both regular backward hooks and full backward hooks"):
        m.register_backward_hook(post)


def test_global_hooks():
    from torchlite.nn.modules.module import register_module_forward_hook

    names = []
    h = register_module_forward_hook(lambda mod, args, out: names.append(type(mod).__name__))
    try:
        Net()(tl.ones(3))
    finally:
        h.remove()
    assert names == ["Affine", "Affine", "Affine", "Sequential", "Net"]


def test_repr():
    net = Net()
    assert repr(net) == ("Net(\n  (a): Affine()\n  (b): Sequential(\n    (0): Affine()\n    (1): Affine()\n  )\n"
                         "  (shared): Affine()\n)")

    class WithExtra(nn.Module):
        def extra_repr(self):
            return "k=1"

    assert repr(WithExtra()) == "WithExtra(k=1)"
    ml = nn.ModuleList([Affine(), Affine(), WithExtra(), Affine()])
    assert repr(ml) == "ModuleList(\n  (0-1): 2 x Affine()\n  (2): WithExtra(k=1)\n  (3): Affine()\n)"
    assert repr(nn.ModuleList()) == "ModuleList()"
    p = nn.Parameter(tl.ones(2))
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    pl = nn.ParameterList([nn.Parameter(tl.ones(2, 3)), tl.zeros(4)])
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [torchlite.float32 of size 2x3]\n"
                        "    (1): Parameter containing: [torchlite.float32 of size 4]\n)")
    pd = nn.ParameterDict({"a": tl.ones(2)})
    assert repr(pd) == "ParameterDict(  (a): Parameter containing: [torchlite.FloatTensor of size 2])"


def test_sequential():
    a, b, c = Affine(), Affine(), Affine()
    s = nn.Sequential(a, b)
    assert len(s) == 2 and s[0] is a and s[-1] is b
    assert isinstance(s[0:1], nn.Sequential) and len(s[0:1]) == 1
    s.append(c)
    assert list(s) == [a, b, c]
    s.insert(0, c)
    assert [id(x) for x in s] == [id(c), id(a), id(b), id(c)]
    del s[0]
    assert list(s._modules) == ["0", "1", "2"] and s[0] is a
    named = nn.Sequential(OrderedDict([("first", a), ("second", b)]))
    assert named.first is a and list(named._modules) == ["first", "second"]
    np.testing.assert_allclose(nn.Sequential(a, b)(tl.ones(3)).detach().numpy(), [1, 4, 9])
    with pytest.raises(IndexError, match="out of range"):
        s[5]
    assert len(s + nn.Sequential(a)) == 4
    assert s.pop(0) is a and len(s) == 2


def test_module_list_and_dict():
    ml = nn.ModuleList([Affine(), Affine()])
    ml.append(Affine())
    ml.extend([Affine()])
    ml.insert(1, Affine(5))
    assert len(ml) == 5 and ml[1].weight.shape == (5,)
    assert len(list(ml.parameters())) == 10
    del ml[0]
    assert list(ml._modules) == ["0", "1", "2", "3"] and ml[0].weight.shape == (5,)
    md = nn.ModuleDict({"b": Affine(), "a": Affine()})
    assert list(md.keys()) == ["b", "a"] and "a" in md
    md["c"] = Affine()
    assert [n for n, _ in md.named_parameters()][-1] == "c.bias"
    assert md.pop("b") is not None and len(md) == 2
    with pytest.raises(TypeError, match="should be called with an iterable"):
        ml.extend(3)


def test_parameter_list_and_dict():
    pl = nn.ParameterList([tl.ones(2), nn.Parameter(tl.zeros(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pl.append(tl.ones(1))
    assert len(pl) == 3
    pd = nn.ParameterDict({"w": tl.ones(2)})
    pd["b"] = tl.zeros(1)
    assert isinstance(pd["w"], nn.Parameter) and list(pd.keys()) == ["w", "b"]
    assert [n for n, _ in pd.named_parameters()] == ["w", "b"]
    with pytest.raises(RuntimeError, match="should not be called"):
        pl(1)


def test_deepcopy_and_pickle_of_modules():
    net = Net()
    net.a.weight.grad = tl.ones(3)
    c = copy.deepcopy(net)
    assert c.a is c.shared and c.a is not net.a
    assert c.a.weight is not net.a.weight and isinstance(c.a.weight, nn.Parameter) and c.a.weight.requires_grad
    assert c.a.weight.grad is None  # as PyTorch: Parameter's deepcopy does not copy .grad
    np.testing.assert_array_equal(c.a.weight.detach().numpy(), net.a.weight.detach().numpy())
    p = pickle.loads(pickle.dumps(net))
    assert [n for n, _ in p.named_parameters()] == [n for n, _ in net.named_parameters()]
    np.testing.assert_array_equal(p(tl.ones(3)).detach().numpy(), net(tl.ones(3)).detach().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "uint8", "bool"])
def test_tensor_pickle_and_copies(dtype):
    t = (tl.arange(6) % 3).to(getattr(tl, dtype)).reshape(2, 3)
    u = pickle.loads(pickle.dumps(t))
    assert u.dtype == t.dtype and u.shape == t.shape
    np.testing.assert_array_equal(u.float().numpy(), t.float().numpy())
    d = copy.deepcopy(t)
    assert d.data_ptr() != t.data_ptr() and d.dtype == t.dtype
    c = copy.copy(t)
    assert c.data_ptr() == t.data_ptr()  # copy.copy shares memory, as in PyTorch


def test_tensor_pickle_views_share_memory_and_keep_requires_grad():
    base = tl.arange(12, dtype=tl.float32)
    view = base[2:8].reshape(2, 3)
    b2, v2 = pickle.loads(pickle.dumps((base, view)))
    v2.fill_(-1)
    assert b2[2:8].sum().item() == -6
    x = tl.ones(2, requires_grad=True)
    y = pickle.loads(pickle.dumps(x))
    assert y.requires_grad and y.is_leaf
    x.grad = tl.full((2,), 3.0)
    z = copy.deepcopy(x)
    assert z.requires_grad and z.grad is not None and z.grad.sum().item() == 6
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)
    p = pickle.loads(pickle.dumps(nn.Parameter(tl.ones(2), requires_grad=False)))
    assert isinstance(p, nn.Parameter) and not p.requires_grad


def test_parameter_behaviour():
    p = nn.Parameter(tl.ones(2))
    assert p.requires_grad and p.is_leaf and isinstance(p, tl.Tensor)
    with tl.no_grad():
        q = nn.Parameter(tl.ones(2))
    assert q.requires_grad
    assert not nn.Parameter(tl.ones(1), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    assert isinstance(nn.Buffer(tl.ones(1)), nn.Buffer) and not isinstance(tl.ones(1), nn.Buffer)
    up = nn.UninitializedParameter()
    with pytest.raises(RuntimeError, match="uninitialized parameter"):
        up.shape
    up.materialize((2, 3))
    assert type(up) is nn.Parameter and up.shape == (2, 3)


def test_matches_torch_names_and_repr():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")

    def build(lib):
        class A(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.ones(2))
                self.register_buffer("b", lib.zeros(2))
                self.register_buffer("t", lib.zeros(2), persistent=False)

            def forward(self, x):
                return x * self.w

        root = lib.nn.Module()
        root.seq = lib.nn.Sequential(A(), A())
        root.lst = lib.nn.ModuleList([A(), A(), A()])
        root.dct = lib.nn.ModuleDict({"z": A(), "y": A()})
        root.alias = root.seq[0]
        return root

    ours, theirs = build(tl), build(torch)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_modules(remove_duplicate=False)] == \
        [n for n, _ in theirs.named_modules(remove_duplicate=False)]
    assert dict(ours.state_dict()._metadata) == dict(theirs.state_dict()._metadata)
    sd = theirs.state_dict()
    del sd["seq.0.w"]
    sd["bogus"] = torch.ones(1)
    with pytest.raises(RuntimeError) as mine:
        ours.load_state_dict({k: tl.tensor(v.numpy()) for k, v in sd.items()})
    with pytest.raises(RuntimeError) as ref:
        theirs.load_state_dict(sd)
    assert str(mine.value) == str(ref.value)
