"""nn.utils.parametrize / parametrizations (weight_norm, spectral_norm, orthogonal), the hook-based
weight_norm / spectral_norm and the conv/linear + batchnorm fusion: closed forms against NumPy, and state_dict
keys, reprs, outputs and gradients against PyTorch where installed."""
import copy
import importlib
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn
from torchlite.nn.utils import fusion, parametrizations, parametrize

# the modules (nn.utils.spectral_norm / weight_norm, once re-exported, name the functions)
old_sn = importlib.import_module("torchlite.nn.utils.spectral_norm")
old_wn = importlib.import_module("torchlite.nn.utils.weight_norm")

P = parametrizations


def npy(t):
    return np.array(t.detach().numpy())


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT

    def right_inverse(self, A):
        return A.triu()


class Double(nn.Module):
    def forward(self, X):
        return 2 * X

    def right_inverse(self, Y):
        return Y / 2


class Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, X):
        self.calls += 1
        return X * 1.0


class SumOfTwo(nn.Module):  # parametrized by two tensors
    def forward(self, A, B):
        return A + B

    def right_inverse(self, X):
        return X / 2, X / 2


# ---------------------------------------------------------------------------------------- parametrize
def test_register_parametrization_class_swap_and_property():
    m = nn.Linear(3, 3)
    w0 = npy(m.weight)
    assert not parametrize.is_parametrized(m)
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear"
    assert isinstance(m, nn.Linear) and type(m) is not nn.Linear
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    assert "weight" not in m._parameters
    W = npy(m.weight)
    np.testing.assert_allclose(W, W.T)
    np.testing.assert_allclose(np.triu(W), np.triu(w0))
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert repr(m) == ("ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n"
                       "  (parametrizations): ModuleDict(\n    (weight): ParametrizationList(\n"
                       "      (0): Symmetric()\n    )\n  )\n)")
    # the original class is untouched
    assert not hasattr(nn.Linear, "parametrizations") and not isinstance(nn.Linear.__dict__.get("weight"), property)
    # gradients reach the original
    x = tl.randn(2, 3)
    m(x).sum().backward()
    assert m.parametrizations.weight.original.grad is not None


def test_assignment_uses_right_inverse_and_chain():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric())
    parametrize.register_parametrization(m, "weight", Double())
    assert len(m.parametrizations.weight) == 2
    A = np.random.RandomState(0).randn(3, 3).astype(np.float32)
    S = A + A.T
    m.weight = tl.tensor(S)
    np.testing.assert_allclose(npy(m.weight), S, rtol=1e-6)
    np.testing.assert_allclose(npy(m.parametrizations.weight.original), np.triu(S) / 2, rtol=1e-6)
    orig = m.parametrizations.weight.original
    m.weight = tl.tensor(2 * S)  # the original keeps its identity
    assert m.parametrizations.weight.original is orig


def test_original_keeps_identity_and_errors():
    m = nn.Linear(3, 4)
    w = m.weight
    parametrize.register_parametrization(m, "weight", Double())
    assert m.parametrizations.weight.original is w
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with "
                                         "name 'foo'"):
        parametrize.register_parametrization(m, "foo", Double())

    class ChangeShape(nn.Module):
        def forward(self, X):
            return X[:2]

    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(nn.Linear(3, 4), "weight", ChangeShape())
    m2 = parametrize.register_parametrization(nn.Linear(3, 4), "weight", ChangeShape(), unsafe=True)
    assert tuple(m2.weight.shape) == (2, 3)
    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(m, "weight", ChangeShape())
    with pytest.raises(ValueError, match="does not have a parametrization on bias"):
        parametrize.remove_parametrizations(m, "bias")

    class NoInverse(nn.Module):
        def forward(self, X):
            return X

    m3 = parametrize.register_parametrization(nn.Linear(2, 2), "weight", NoInverse())
    with pytest.raises(RuntimeError, match="parametrization NoInverse does not implement right_inverse"):
        m3.weight = tl.zeros(2, 2)
    with pytest.raises(ValueError, match="ParametrizationList requires one or more modules"):
        parametrize.ParametrizationList([], tl.zeros(2))


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(leave):
    m = nn.Linear(3, 3)
    w0 = npy(m.weight)
    parametrize.register_parametrization(m, "weight", Double())
    parametrize.register_parametrization(m, "bias", Double())
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
    assert type(m).__name__ == "ParametrizedLinear"
    assert isinstance(m.weight, nn.Parameter) and "weight" in m._parameters
    # right_inverse halved the original, so the parametrized value is w0 itself
    np.testing.assert_allclose(npy(m.weight), w0 if leave else w0 / 2, rtol=1e-6)
    parametrize.remove_parametrizations(m, "bias")
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert list(m.state_dict()) == ["weight", "bias"]


def test_multiple_tensors_original0_original1():
    m = nn.Linear(2, 3)
    w0 = npy(m.weight)
    parametrize.register_parametrization(m, "weight", SumOfTwo())
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert isinstance(m.parametrizations.weight.original0, nn.Parameter)
    np.testing.assert_allclose(npy(m.weight), w0, rtol=1e-6)
    m.weight = tl.ones(3, 2)
    np.testing.assert_allclose(npy(m.parametrizations.weight.original1), np.full((3, 2), 0.5))
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    parametrize.remove_parametrizations(m, "weight")
    np.testing.assert_allclose(npy(m.weight), np.ones((3, 2)))
    assert type(m) is nn.Linear


def test_buffer_parametrization_and_train_mode():
    m = nn.BatchNorm1d(3)
    m.eval()
    p = Double()
    parametrize.register_parametrization(m, "running_var", p)
    assert not p.training  # follows the module
    assert "parametrizations.running_var.original" in m.state_dict()
    np.testing.assert_allclose(npy(m.running_var), np.ones(3))  # right_inverse stored 0.5
    np.testing.assert_allclose(npy(m.parametrizations.running_var.original), np.full(3, 0.5))
    m.train()
    assert p.training


def test_cached():
    m = nn.Linear(3, 3)
    c = Counting()
    parametrize.register_parametrization(m, "weight", c, unsafe=True)
    c.calls = 0
    m.weight, m.weight
    assert c.calls == 2
    with parametrize.cached():
        a = m.weight
        with parametrize.cached():
            b = m.weight
        assert m.weight is a and b is a
    assert c.calls == 3
    m.weight
    assert c.calls == 4


def test_deepcopy_pickle_transfer():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Double())
    m2 = copy.deepcopy(m)
    assert type(m2).__name__ == "ParametrizedLinear"
    np.testing.assert_allclose(npy(m2.weight), npy(m.weight))
    assert m2.parametrizations.weight.original is not m.parametrizations.weight.original
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through "
                                           "state_dict"):
        pickle.dumps(m)
    to = nn.Linear(3, 3)
    parametrize.transfer_parametrizations_and_params(m, to)
    assert parametrize.is_parametrized(to, "weight")
    assert to.parametrizations.weight.original is m.parametrizations.weight.original
    np.testing.assert_allclose(npy(to.weight), npy(m.weight))


# ---------------------------------------------------------------------------------------- weight_norm
@pytest.mark.parametrize("dim", [0, 1, None, -2])
def test_weight_norm_closed_form(dim):
    m = P.weight_norm(nn.Linear(4, 5), dim=dim)
    g = npy(m.parametrizations.weight.original0)
    v = npy(m.parametrizations.weight.original1)
    if dim is None:
        assert g.shape == ()
        norm = np.linalg.norm(v)
    else:
        axis = 1 - (dim % 2)
        norm = np.linalg.norm(v, axis=axis, keepdims=True)
        assert g.shape == norm.shape
    np.testing.assert_allclose(npy(m.weight), g * v / norm, rtol=1e-5)
    m.parametrizations.weight.original0.data = tl.tensor(np.full(g.shape, 3.0, dtype=np.float32))
    np.testing.assert_allclose(npy(m.weight), 3.0 * v / norm, rtol=1e-5)
    m(tl.randn(2, 4)).sum().backward()
    assert m.parametrizations.weight.original0.grad is not None
    assert m.parametrizations.weight.original1.grad is not None


def test_weight_norm_loads_old_keys():
    src = nn.Linear(3, 4)
    sd = OrderedDict(bias=src.bias.detach(), weight_g=tl.full((4, 1), 2.0), weight_v=src.weight.detach())
    m = P.weight_norm(nn.Linear(3, 4))
    m.load_state_dict(sd)
    w = npy(src.weight)
    np.testing.assert_allclose(npy(m.weight), 2 * w / np.linalg.norm(w, axis=1, keepdims=True), rtol=1e-5)


# ---------------------------------------------------------------------------------------- spectral_norm
def test_spectral_norm_sigma_matches_numpy():
    tl.manual_seed(0)
    m = P.spectral_norm(nn.Linear(6, 8), n_power_iterations=3)
    sn = m.parametrizations.weight[0]
    W = npy(m.parametrizations.weight.original)
    for _ in range(20):
        m.weight  # each access in training mode runs the power iteration
    sigma = float(tl.vdot(sn._u, tl.mv(tl.tensor(W), sn._v)))
    np.testing.assert_allclose(sigma, np.linalg.svd(W, compute_uv=False)[0], rtol=1e-4)
    np.testing.assert_allclose(np.linalg.svd(npy(m.weight), compute_uv=False)[0], 1.0, rtol=1e-4)
    m.eval()
    u = npy(sn._u)
    m.weight
    np.testing.assert_array_equal(npy(sn._u), u)  # no power iteration in eval mode
    m.train()
    m(tl.randn(2, 6)).sum().backward()
    assert m.parametrizations.weight.original.grad is not None


def test_spectral_norm_conv_dims_and_errors():
    tl.manual_seed(0)  # 30 power iterations converge for seeds 0..39, not for every draw (close top singular values)
    m = P.spectral_norm(nn.ConvTranspose2d(3, 5, 2))  # dim=1 by default
    assert m.parametrizations.weight[0].dim == 1
    assert tuple(m.parametrizations.weight[0]._u.shape) == (5,)
    m = P.spectral_norm(nn.Conv2d(3, 5, 2))
    assert tuple(m.parametrizations.weight[0]._v.shape) == (12,)
    for _ in range(30):
        m.weight
    np.testing.assert_allclose(np.linalg.svd(npy(m.weight).reshape(5, -1), compute_uv=False)[0], 1.0, rtol=1e-3)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\] but got 2\)"):
        P.spectral_norm(nn.Linear(3, 4), dim=2)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got n_power_iterations=0"):
        P.spectral_norm(nn.Linear(3, 4), n_power_iterations=0)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'foo'"):
        P.spectral_norm(nn.Linear(3, 4), name="foo")
    m = P.spectral_norm(nn.Linear(3, 4), name="bias")  # 1-D: plain normalization
    np.testing.assert_allclose(np.linalg.norm(npy(m.bias)), 1.0, rtol=1e-5)


# ---------------------------------------------------------------------------------------- orthogonal
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6)])
def test_orthogonal(omap, shape):
    tl.manual_seed(0)
    m = P.orthogonal(nn.Linear(shape[1], shape[0]), orthogonal_map=omap)
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    for _ in range(2):  # still orthogonal after optimizer steps
        W = npy(m.weight).astype(np.float64)
        Q = W if shape[0] >= shape[1] else W.T
        np.testing.assert_allclose(Q.T @ Q, np.eye(min(shape)), atol=1e-5)
        opt.zero_grad()
        (m(tl.randn(5, shape[1])) ** 2).sum().backward()
        assert m.parametrizations.weight.original.grad is not None
        opt.step()
    # assigning an orthogonal matrix reproduces it
    q = np.linalg.qr(np.random.RandomState(1).randn(max(shape), min(shape)))[0].astype(np.float32)
    target = q if shape[0] >= shape[1] else q.T
    m.weight = tl.tensor(target)
    np.testing.assert_allclose(npy(m.weight), target, atol=1e-5)


def test_orthogonal_defaults_batched_and_errors():
    m = P.orthogonal(nn.Linear(3, 3))
    assert m.parametrizations.weight[0].orthogonal_map == P._OrthMaps.matrix_exp
    m = P.orthogonal(nn.Linear(3, 5))
    assert m.parametrizations.weight[0].orthogonal_map == P._OrthMaps.householder
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0.base"]
    m = P.orthogonal(nn.Linear(3, 5), use_trivialization=False)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    W = npy(m.weight)
    np.testing.assert_allclose(W.T @ W, np.eye(3), atol=1e-5)
    sq = P.orthogonal(nn.Linear(3, 3), use_trivialization=False)  # right_inverse is skipped on registration
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        sq.weight = tl.eye(3)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
        P.orthogonal(nn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                                         "Got: foo"):
        P.orthogonal(nn.Linear(3, 3), orthogonal_map="foo")
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
        m.weight = tl.zeros(3, 3)

    class Batched(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(tl.randn(2, 5, 3, dtype=tl.float64))

    for omap in ["matrix_exp", "cayley", "householder"]:
        b = P.orthogonal(Batched(), orthogonal_map=omap)
        W = npy(b.weight)
        np.testing.assert_allclose(np.swapaxes(W, -1, -2) @ W, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-10)
        b.weight.sum().backward()


def test_matrix_exp_against_scaled_series():
    A = np.random.RandomState(0).randn(4, 4) * 2
    E = npy(P._matrix_exp(tl.tensor(A)))
    # exp(A) exp(-A) = I and exp(A)^T = exp(A^T)
    np.testing.assert_allclose(E @ npy(P._matrix_exp(tl.tensor(-A))), np.eye(4), atol=1e-10)
    w, V = np.linalg.eig(A)
    np.testing.assert_allclose(E, (V @ np.diag(np.exp(w)) @ np.linalg.inv(V)).real, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------------------------------- old hook-based
def test_old_weight_norm():
    m = nn.Linear(3, 4)
    w0 = npy(m.weight)
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated in favor of "
                                           "`torch.nn.utils.parametrizations.weight_norm`."):
        old_wn.weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(npy(m.weight_g), np.linalg.norm(w0, axis=1, keepdims=True), rtol=1e-6)
    m.weight_g.data = tl.full((4, 1), 2.0)
    x = tl.randn(2, 3)
    y = m(x)
    np.testing.assert_allclose(npy(m.weight), 2 * w0 / np.linalg.norm(w0, axis=1, keepdims=True), rtol=1e-5)
    y.sum().backward()
    assert m.weight_g.grad is not None and m.weight_v.grad is not None
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            old_wn.weight_norm(m)
    old_wn.remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, nn.Parameter)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        old_wn.remove_weight_norm(m)


def test_old_spectral_norm():
    tl.manual_seed(0)
    m = old_sn.spectral_norm(nn.Linear(5, 7), n_power_iterations=2)
    sd = m.state_dict()
    assert list(sd) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert sd._metadata[""]["spectral_norm"] == {"weight.version": 1}
    assert not isinstance(m.weight, nn.Parameter)
    W = npy(m.weight_orig)
    for _ in range(30):
        m(tl.randn(1, 5))
    np.testing.assert_allclose(np.linalg.svd(npy(m.weight), compute_uv=False)[0], 1.0, rtol=1e-4)
    m.eval()
    u = npy(m.weight_u)
    m(tl.randn(1, 5)).sum().backward()
    np.testing.assert_array_equal(npy(m.weight_u), u)
    assert m.weight_orig.grad is not None
    m2 = old_sn.spectral_norm(nn.Linear(5, 7))
    m2.load_state_dict(m.state_dict())
    m2.eval()
    x = tl.randn(3, 5)
    np.testing.assert_allclose(npy(m2(x)), npy(m(x)), rtol=1e-5)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        old_sn.spectral_norm(m)
    old_sn.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    assert not m._state_dict_hooks and not m._load_state_dict_pre_hooks
    np.testing.assert_allclose(npy(m.weight), W / np.linalg.svd(W, compute_uv=False)[0], rtol=1e-3)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        old_sn.remove_spectral_norm(m)


# ---------------------------------------------------------------------------------------- fusion
def _randomize_bn(bn):
    n = bn.num_features
    bn.running_mean.copy_(tl.randn(n))
    bn.running_var.copy_(tl.rand(n) + 0.5)
    with tl.no_grad():
        bn.weight.copy_(tl.randn(n))
        bn.bias.copy_(tl.randn(n))
    return bn.eval()


@pytest.mark.parametrize("bias", [True, False])
def test_fuse_conv_bn(bias):
    conv = nn.Conv2d(3, 4, 3, bias=bias).eval()
    bn = _randomize_bn(nn.BatchNorm2d(4))
    fused = fusion.fuse_conv_bn_eval(conv, bn)
    assert type(fused) is nn.Conv2d and fused is not conv
    x = tl.randn(2, 3, 6, 6)
    np.testing.assert_allclose(npy(fused(x)), npy(bn(conv(x))), rtol=1e-4, atol=1e-5)
    assert fused.weight.requires_grad and fused.bias.requires_grad == bias

    convt = nn.ConvTranspose2d(3, 4, 2).eval()
    fused = fusion.fuse_conv_bn_eval(convt, bn, transpose=True)
    np.testing.assert_allclose(npy(fused(x)), npy(bn(convt(x))), rtol=1e-4, atol=1e-5)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fusion.fuse_conv_bn_eval(nn.Conv2d(3, 4, 3), bn)


def test_fuse_linear_bn():
    lin = nn.Linear(3, 4, bias=False).eval()
    bn = _randomize_bn(nn.BatchNorm1d(4))
    fused = fusion.fuse_linear_bn_eval(lin, bn)
    x = tl.randn(5, 3)
    np.testing.assert_allclose(npy(fused(x)), npy(bn(lin(x))), rtol=1e-4, atol=1e-5)
    assert not fused.bias.requires_grad
    with pytest.raises(AssertionError, match="To fuse, linear.out_features == bn.num_features"):
        fusion.fuse_linear_bn_eval(lin, _randomize_bn(nn.BatchNorm1d(3)))


# ---------------------------------------------------------------------------------------- against PyTorch
@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")


def to_tl_state(sd):
    out = OrderedDict((k, tl.tensor(v.detach().numpy())) for k, v in sd.items())
    if hasattr(sd, "_metadata"):
        out._metadata = copy.deepcopy(sd._metadata)
    return out


def _pair(torch, make, seed=0):
    torch.manual_seed(seed)
    theirs = make(torch)
    ours = make(tl)
    ours.load_state_dict(to_tl_state(theirs.state_dict()))
    return ours, theirs


def _check_forward_backward(torch, ours, theirs, x, grad_names, rtol=1e-5, atol=1e-6):
    xo, xt = tl.tensor(x), torch.tensor(x)
    yo, yt = ours(xo), theirs(xt)
    np.testing.assert_allclose(npy(yo), yt.detach().numpy(), rtol=rtol, atol=atol)
    (yo ** 2).sum().backward()
    (yt ** 2).sum().backward()
    po, pt = dict(ours.named_parameters()), dict(theirs.named_parameters())
    for n in grad_names:
        np.testing.assert_allclose(npy(po[n].grad), pt[n].grad.numpy(), rtol=rtol * 10, atol=atol * 10)


def _lib_utils(lib):
    if lib is tl:
        return parametrizations, parametrize, old_wn, old_sn
    return lib.nn.utils.parametrizations, lib.nn.utils.parametrize, lib.nn.utils, lib.nn.utils


@pytest.mark.parametrize("case", ["weight_norm", "weight_norm_none", "spectral_norm", "spectral_conv",
                                  "orth_exp", "orth_cayley", "orth_house", "orth_house_notriv", "custom_chain",
                                  "old_weight_norm", "old_spectral_norm"])
def test_against_torch(torch, case):
    def make(lib):
        Pm, Pz, OW, OS = _lib_utils(lib)
        if case == "weight_norm":
            return Pm.weight_norm(lib.nn.Linear(4, 5), dim=1)
        if case == "weight_norm_none":
            return Pm.weight_norm(lib.nn.Linear(4, 5), dim=None)
        if case == "spectral_norm":
            return Pm.spectral_norm(lib.nn.Linear(4, 5))
        if case == "spectral_conv":
            return Pm.spectral_norm(lib.nn.Conv1d(2, 3, 2, dtype=lib.float64), n_power_iterations=2)
        if case == "orth_exp":
            return Pm.orthogonal(lib.nn.Linear(4, 4, dtype=lib.float64))
        if case == "orth_cayley":
            return Pm.orthogonal(lib.nn.Linear(5, 3, dtype=lib.float64), orthogonal_map="cayley")
        if case == "orth_house":
            return Pm.orthogonal(lib.nn.Linear(3, 5, dtype=lib.float64))
        if case == "orth_house_notriv":
            return Pm.orthogonal(lib.nn.Linear(3, 5, dtype=lib.float64), use_trivialization=False)
        if case == "custom_chain":
            m = lib.nn.Linear(4, 4)

            class Sym(lib.nn.Module):
                def forward(self, X):
                    return X.triu() + X.triu(1).mT

            class Scale(lib.nn.Module):
                def forward(self, X):
                    return X * 3

            Sym.__name__ = Sym.__qualname__ = "Sym"
            Scale.__name__ = Scale.__qualname__ = "Scale"
            Pz.register_parametrization(m, "weight", Sym())
            Pz.register_parametrization(m, "weight", Scale())
            Pz.register_parametrization(m, "bias", Scale())
            return m
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if case == "old_weight_norm":
                return OW.weight_norm(lib.nn.Linear(4, 5), dim=None)
            return OS.spectral_norm(lib.nn.Linear(4, 5, dtype=lib.float64))

    ours, theirs = _pair(torch, make)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert type(ours).__name__ == type(theirs).__name__
    rng = np.random.RandomState(0)
    dtype = np.float64 if "orth" in case or case in ("spectral_conv", "old_spectral_norm") else np.float32
    x = rng.randn(3, 2, 5).astype(dtype) if case == "spectral_conv" else rng.randn(3, 4 if case not in (
        "orth_cayley", "orth_house", "orth_house_notriv") else (5 if case == "orth_cayley" else 3)).astype(dtype)
    names = [n for n, _ in theirs.named_parameters()]
    # training mode: spectral norm runs its power iteration on the copied u / v on both sides
    _check_forward_backward(torch, ours, theirs, x, names)
    for (k, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
        np.testing.assert_allclose(npy(a), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(npy(ours(tl.tensor(x))), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_assignment_and_removal_against_torch(torch):
    rng = np.random.RandomState(3)
    target = np.linalg.qr(rng.randn(5, 3))[0]
    for omap in ["matrix_exp", "cayley", "householder"]:
        def make(lib):
            return _lib_utils(lib)[0].orthogonal(lib.nn.Linear(3, 5, dtype=lib.float64), orthogonal_map=omap)

        ours, theirs = _pair(torch, make)
        ours.weight = tl.tensor(target)
        theirs.weight = torch.tensor(target)
        np.testing.assert_allclose(npy(ours.weight), theirs.weight.detach().numpy(), atol=1e-10)
        _lib_utils(tl)[1].remove_parametrizations(ours, "weight")
        _lib_utils(torch)[1].remove_parametrizations(theirs, "weight")
        assert type(ours).__name__ == type(theirs).__name__ == "Linear"
        assert list(ours.state_dict()) == list(theirs.state_dict())
        np.testing.assert_allclose(npy(ours.weight), theirs.weight.detach().numpy(), atol=1e-10)


def test_error_messages_against_torch(torch):
    def msg(fn):
        with pytest.raises(Exception) as info:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn()
        return type(info.value).__name__, str(info.value).replace("torchlite.", "torch.")

    def assign_zeros(m):
        m.weight = m.weight.detach() * 0

    cases = [
        lambda lib: _lib_utils(lib)[1].remove_parametrizations(lib.nn.Identity(), "weight"),
        lambda lib: _lib_utils(lib)[0].orthogonal(lib.nn.Linear(3, 3), orthogonal_map="bad"),
        lambda lib: _lib_utils(lib)[0].orthogonal(lib.nn.Linear(3, 3), "bias"),
        lambda lib: _lib_utils(lib)[0].spectral_norm(lib.nn.Linear(3, 3), dim=3),
        lambda lib: _lib_utils(lib)[0].spectral_norm(lib.nn.Linear(3, 3), n_power_iterations=-1),
        lambda lib: assign_zeros(_lib_utils(lib)[0].orthogonal(lib.nn.Linear(3, 3), use_trivialization=False)),
        lambda lib: setattr(_lib_utils(lib)[0].orthogonal(lib.nn.Linear(3, 3)), "weight", lib.zeros(2, 3)),
        lambda lib: _lib_utils(lib)[1].register_parametrization(lib.nn.Linear(3, 3), "foo", lib.nn.Identity()),
        lambda lib: setattr(_lib_utils(lib)[1].register_parametrization(lib.nn.Linear(3, 3), "weight",
                                                                         lib.nn.Identity()), "weight", lib.ones(3)),
        lambda lib: _lib_utils(lib)[2].remove_weight_norm(lib.nn.Identity()),
        lambda lib: _lib_utils(lib)[3].remove_spectral_norm(lib.nn.Identity()),
    ]
    for i, case in enumerate(cases):
        assert msg(lambda: case(tl)) == msg(lambda: case(torch)), i


def test_fusion_against_torch(torch):
    def make(lib):
        seq = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3), lib.nn.Linear(4, 3),
                                lib.nn.BatchNorm1d(3))
        return seq

    ours, theirs = _pair(torch, make)
    for m in (ours, theirs):
        with (tl if m is ours else torch).no_grad():
            m[1].running_var.fill_(1.7)
            m[1].running_mean.fill_(0.3)
            m[3].running_var.fill_(0.6)
            m[1].weight.fill_(-0.5)
        m.eval()
    fo = fusion.fuse_conv_bn_eval(ours[0], ours[1])
    ft = torch.nn.utils.fuse_conv_bn_eval(theirs[0], theirs[1])
    np.testing.assert_allclose(npy(fo.weight), ft.weight.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(npy(fo.bias), ft.bias.detach().numpy(), rtol=1e-6, atol=1e-7)
    lo = fusion.fuse_linear_bn_eval(ours[2], ours[3])
    lt = torch.nn.utils.fuse_linear_bn_eval(theirs[2], theirs[3])
    np.testing.assert_allclose(npy(lo.weight), lt.weight.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(npy(lo.bias), lt.bias.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert (fo.bias.requires_grad, lo.bias.requires_grad) == (ft.bias.requires_grad, lt.bias.requires_grad)
