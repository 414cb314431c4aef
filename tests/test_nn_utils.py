"""nn.utils: gradient clipping (norms of every order, non-finite checks) and parameters <-> vector, against
NumPy, and against PyTorch where installed."""
import math

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn
from torchlite.nn.utils import (clip_grad_norm_, clip_grad_value_, get_total_norm, parameters_to_vector,
                                vector_to_parameters)


def params_with_grads(lib, grads):
    ps = []
    for g in grads:
        p = lib.nn.Parameter(lib.zeros(len(g), dtype=lib.float64))
        p.grad = lib.tensor(g, dtype=lib.float64)
        ps.append(p)
    return ps


GRADS = [[3.0, -4.0], [1.0, 2.0, -2.0], [0.5]]


@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_against_numpy(norm_type, max_norm):
    ps = params_with_grads(tl, GRADS)
    flat = np.concatenate([np.array(g) for g in GRADS])
    expected_total = np.abs(flat).max() if norm_type == math.inf else (np.abs(flat) ** norm_type).sum() ** (1 / norm_type)
    total = clip_grad_norm_(ps, max_norm, norm_type)
    assert total.item() == pytest.approx(expected_total, rel=1e-12)
    coef = min(1.0, max_norm / (expected_total + 1e-6))
    for p, g in zip(ps, GRADS):
        np.testing.assert_allclose(p.grad.numpy(), np.array(g) * coef, rtol=1e-12)


def test_clip_grad_norm_edge_cases():
    assert clip_grad_norm_([nn.Parameter(tl.ones(2))], 1.0).item() == 0  # no gradients
    ps = params_with_grads(tl, [[float("nan"), 1.0]])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    single = params_with_grads(tl, [[3.0, 4.0]])[0]
    assert clip_grad_norm_(single, 1.0).item() == pytest.approx(5.0)  # a single tensor is accepted
    assert get_total_norm([tl.tensor([3.0, 4.0])]).item() == pytest.approx(5.0)


def test_clip_grad_value():
    ps = params_with_grads(tl, GRADS)
    clip_grad_value_(ps, 1.5)
    for p, g in zip(ps, GRADS):
        np.testing.assert_array_equal(p.grad.numpy(), np.clip(g, -1.5, 1.5))


def test_parameters_to_vector_and_back():
    ps = [nn.Parameter(tl.arange(6, dtype=tl.float32).reshape(2, 3)), nn.Parameter(tl.tensor([7.0]))]
    v = parameters_to_vector(ps)
    np.testing.assert_array_equal(v.detach().numpy(), [0, 1, 2, 3, 4, 5, 7])
    v.sum().backward()  # differentiable
    assert ps[0].grad.sum().item() == 6
    vector_to_parameters(tl.arange(7, dtype=tl.float32) * 10, ps)
    np.testing.assert_array_equal(ps[0].detach().numpy(), [[0, 10, 20], [30, 40, 50]])
    assert ps[1].item() == 60 and isinstance(ps[1], nn.Parameter)
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        vector_to_parameters([1, 2], ps)


def test_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    for norm_type in (2.0, 0.5, math.inf):
        ours, theirs = params_with_grads(tl, GRADS), params_with_grads(torch, GRADS)
        a = clip_grad_norm_(ours, 1.0, norm_type)
        b = torch.nn.utils.clip_grad_norm_(theirs, 1.0, norm_type)
        assert a.item() == pytest.approx(b.item(), rel=1e-12)
        for p, q in zip(ours, theirs):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)
