"""Recurrent layers (RNN, LSTM with proj_size, GRU, their cells) and nn.utils.rnn packing: against a NumPy
reference of the recurrences with the modules' own weights, against torchlite's op-composed cells
(torchlite.lstm_cell, ...), and against PyTorch with copied weights where it is installed."""
import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn
from torchlite.autograd import gradcheck, gradgradcheck
from torchlite.nn.utils import rnn as rnn_utils


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_step(mode, x, h, c, w):
    """One step of the recurrence in NumPy; w = (w_ih, w_hh, b_ih, b_hh, w_hr or None)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = w
    gi = x @ w_ih.T + (b_ih if b_ih is not None else 0)
    gh = h @ w_hh.T + (b_hh if b_hh is not None else 0)
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=1)
        c = sig(f) * c + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
        return (h @ w_hr.T if w_hr is not None else h), c
    if mode == "GRU":
        ir, iz, i_n = np.split(gi, 3, axis=1)
        hr, hz, hn = np.split(gh, 3, axis=1)
        r, z = sig(ir + hr), sig(iz + hz)
        n = np.tanh(i_n + r * hn)
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)), None


def np_rnn(module, x):
    """The module's output and final states for a (T, B, I) float64 input, from its own weights."""
    dirs = 2 if module.bidirectional else 1
    hidden = module.proj_size or module.hidden_size
    layer_in = x
    hs, cs = [], []
    for layer in range(module.num_layers):
        outs = []
        for d in range(dirs):
            names = module._all_weights[layer * dirs + d]
            ws = {n.split("_l")[0]: getattr(module, n).detach().numpy() for n in names}
            w = (ws["weight_ih"], ws["weight_hh"], ws.get("bias_ih"), ws.get("bias_hh"), ws.get("weight_hr"))
            T, B = layer_in.shape[:2]
            h = np.zeros((B, hidden))
            c = np.zeros((B, module.hidden_size))
            out = [None] * T
            for t in (range(T - 1, -1, -1) if d else range(T)):
                h, c = np_step(module.mode, layer_in[t], h, c, w)
                out[t] = h
            outs.append(np.stack(out))
            hs.append(h)
            cs.append(c)
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, np.stack(hs), (np.stack(cs) if module.mode == "LSTM" else None)


CONFIGS = [
    ("LSTM", {}), ("GRU", {}), ("RNN", {}), ("RNN", {"nonlinearity": "relu", "bias": False}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 3}),
    ("GRU", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"batch_first": True}),
]


@pytest.mark.parametrize("cls,kw", CONFIGS)
def test_matches_numpy_recurrence(cls, kw):
    tl.manual_seed(0)
    m = getattr(nn, cls)(4, 5, **kw).double()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 3, 4))
    inp = tl.tensor(x.transpose(1, 0, 2) if kw.get("batch_first") else x)
    out, state = m(inp)
    ref_out, ref_h, ref_c = np_rnn(m, x)
    got = out.detach().numpy()
    np.testing.assert_allclose(got.transpose(1, 0, 2) if kw.get("batch_first") else got, ref_out, atol=1e-12)
    h = state[0] if cls == "LSTM" else state
    np.testing.assert_allclose(h.detach().numpy(), ref_h, atol=1e-12)
    if cls == "LSTM":
        np.testing.assert_allclose(state[1].detach().numpy(), ref_c, atol=1e-12)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_gradients_against_finite_differences(cls):
    tl.manual_seed(0)
    m = getattr(nn, cls)(3, 4, num_layers=2, bidirectional=True).double()
    x = tl.randn(4, 2, 3, dtype=tl.float64, requires_grad=True)
    # the input's gradient by gradcheck; two weights' by central differences on a few entries
    assert gradcheck(lambda x: m(x)[0], (x,))
    for name in ("weight_hh_l0", "bias_ih_l1_reverse"):
        p = getattr(m, name)
        out, _ = m(x)
        out.sum().backward()
        analytic = p.grad.clone()
        eps = 1e-6
        num = np.zeros(analytic.shape)
        flat = p.data.view(-1)
        for k in range(min(flat.numel(), 6)):
            old = flat[k].item()
            flat[k] = old + eps
            plus = m(x)[0].sum().item()
            flat[k] = old - eps
            minus = m(x)[0].sum().item()
            flat[k] = old
            num.reshape(-1)[k] = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(analytic.numpy().reshape(-1)[:6], num.reshape(-1)[:6], rtol=1e-6, atol=1e-8)
        m.zero_grad()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype,batch,hidden,tol", [
    ("float64", 8, 96, 1e-12),
    # float32 takes the packed-panel products on CPUs with AVX-512 (kernels/generic/lstm_layer.cpp): 11 rows
    # leave a tail after the 8-row tiles; 96 and 128 hidden units give each of 1 and 2 threads whole panels
    # of 32 columns forward (4 gates per unit) and, for 128, backward too (32 units per panel).
    ("float32", 11, 96, 2e-5), ("float32", 11, 128, 2e-5),
])
def test_lstm_layer_kernel_matches_the_step_loop(monkeypatch, threads, dtype, batch, hidden, tol):
    # nn.LSTM over equal lengths on the CPU runs each layer and direction in _lstm_layer (one parallel region,
    # the threads sharing the hidden units); the step loop (what packed input and CUDA run) must agree with it,
    # forward and backward, for every thread count.
    from torchlite.nn.modules import rnn as rnn_mod

    calls = []
    real = tl._C._functions._lstm_layer
    monkeypatch.setattr(tl._C._functions, "_lstm_layer", lambda *a: calls.append(1) or real(*a))
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        tl.manual_seed(0)
        dt = getattr(tl, dtype)
        m = nn.LSTM(40, hidden, num_layers=2, bidirectional=True).to(dt)
        x = tl.randn(7, batch, 40, dtype=dt, requires_grad=True)
        w = tl.randn(7, batch, 2 * hidden, dtype=dt)

        def run():
            out, (h, c) = m(x)
            ((out * w).sum() + (h * h).sum() + c.sum()).backward()
            grads = [x.grad.clone()] + [p.grad.clone() for p in m.parameters()]
            x.grad = None
            m.zero_grad()
            return [out.detach(), h.detach(), c.detach()] + grads

        fused = run()
        assert len(calls) == 4  # two layers, two directions
        monkeypatch.setattr(rnn_mod, "_layer_applies", lambda *a: False)
        steps = run()
        assert len(calls) == 4
    finally:
        tl.set_num_threads(before)
    for a, b in zip(fused, steps):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype,hidden,inputs", [
    # float32 with hidden a multiple of 8 runs the input's product in the forward's steps (packed panels on
    # CPUs with AVX-512), and with an input size a multiple of 32 the input's gradient in the backward's steps
    # (96 hidden units: a product large enough for 2 threads, which then share the 64 columns as 32 + 32);
    # 40 inputs leave the gradient to one product after the steps; float64 and 12 hidden units take the
    # product over all steps first.
    ("float32", 96, 64), ("float32", 96, 40), ("float32", 12, 64), ("float64", 96, 64),
])
@pytest.mark.parametrize("bias", [True, False])
def test_lstm_layer_input_form_matches_the_gates_form(threads, dtype, hidden, inputs, bias):
    # _lstm_layer(x, ..., w_ih, bias) computes the gates x W_ih^T + bias itself; it must give what the gates
    # form gives, and _lstm_layer_backward(..., w_ih) the input's gradient grad_gates @ w_ih.
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        tl.manual_seed(1)
        dt = getattr(tl, dtype)
        T, B = 5, 11
        x = tl.randn(T, B, inputs, dtype=dt)
        w_ih, w_hh = tl.randn(4 * hidden, inputs, dtype=dt) * 0.2, tl.randn(4 * hidden, hidden, dtype=dt) * 0.2
        b = tl.randn(4 * hidden, dtype=dt) if bias else None
        h0, c0 = tl.randn(B, hidden, dtype=dt), tl.randn(B, hidden, dtype=dt)
        gates = (x.reshape(T * B, inputs) @ w_ih.t() + (b if bias else 0)).reshape(T, B, 4 * hidden)
        f = tl._C._functions
        tol = 2e-5 if dtype == "float32" else 1e-12
        for reverse in (False, True):
            want = f._lstm_layer(gates, h0, c0, w_hh, reverse)
            got = f._lstm_layer(x, h0, c0, w_hh, reverse, w_ih, b)
            for a, e in zip(got, want):
                np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=tol, atol=tol)
            out, cy, ws = want
            go = tl.randn(T, B, hidden, dtype=dt)
            ghn, gcn = tl.randn(B, hidden, dtype=dt), tl.randn(B, hidden, dtype=dt)
            gg, dh0, dc0, dx = f._lstm_layer_backward(go, ghn, gcn, c0, cy, ws, w_hh, reverse, w_ih)
            gg2, dh02, dc02, empty = f._lstm_layer_backward(go, ghn, gcn, c0, cy, ws, w_hh, reverse)
            assert empty.shape == (0,) and dx.shape == (T, B, inputs)
            for a, e in zip((gg, dh0, dc0), (gg2, dh02, dc02)):
                np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=tol, atol=tol)
            want_dx = (gg2.reshape(T * B, 4 * hidden) @ w_ih).reshape(T, B, inputs)
            np.testing.assert_allclose(dx.numpy(), want_dx.numpy(), rtol=tol, atol=tol)
    finally:
        tl.set_num_threads(before)


@pytest.mark.parametrize("cls,kw", [("LSTM", {}), ("GRU", {}), ("RNN", {}),
                                    ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 2})])
def test_double_backward_through_a_layer(cls, kw):
    # The fused kernels' backward reads tensors saved without history; under create_graph the layer's backward
    # recomputes the forward with ops instead, so second derivatives are whole (they once had no path to the
    # input, or only part of one through the weight gradients): gradgradcheck, and PyTorch's values
    tl.manual_seed(0)
    m = getattr(nn, cls)(3, 4, **kw).double()
    x = tl.randn(4, 2, 3, dtype=tl.float64, requires_grad=True)
    assert gradgradcheck(lambda x: m(x)[0], (x,))
    (g,) = tl.autograd.grad(m(x)[0].sum(), x, create_graph=True)
    (gg,) = tl.autograd.grad((g * g).sum(), x)
    (gw,) = tl.autograd.grad(m(x)[0].sum(), m.weight_ih_l0, create_graph=True)
    (gwx,) = tl.autograd.grad((gw * gw).sum(), x)
    m(x)[0].sum().backward()  # first order as before
    assert x.grad is not None and x.grad.shape == x.shape
    try:
        import torch
    except ImportError:
        return
    tm = getattr(torch.nn, cls)(3, 4, **kw).double()
    tm.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    (tg,) = torch.autograd.grad(tm(tx)[0].sum(), tx, create_graph=True)
    (tgg,) = torch.autograd.grad((tg * tg).sum(), tx)
    (tgw,) = torch.autograd.grad(tm(tx)[0].sum(), tm.weight_ih_l0, create_graph=True)
    (tgwx,) = torch.autograd.grad((tgw * tgw).sum(), tx)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gwx.numpy(), tgwx.numpy(), rtol=1e-9, atol=1e-12)


def test_packed_sequences_match_padded_runs():
    tl.manual_seed(0)
    m = nn.LSTM(3, 4, bidirectional=True).double()
    rng = np.random.default_rng(2)
    lengths = [2, 5, 3]
    seqs = [tl.tensor(rng.standard_normal((n, 3))) for n in lengths]
    packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    out, (h, c) = m(packed)
    padded, lens = rnn_utils.pad_packed_sequence(out, batch_first=True)
    assert lens.tolist() == lengths and padded.shape == (3, 5, 8)
    for b, s in enumerate(seqs):  # each sequence alone gives the same outputs and final states
        o1, (h1, c1) = m(s.unsqueeze(1))
        np.testing.assert_allclose(padded[b, :lengths[b]].detach().numpy(), o1[:, 0].detach().numpy(), atol=1e-12)
        assert padded[b, lengths[b]:].abs().sum().item() == 0
        np.testing.assert_allclose(h[:, b].detach().numpy(), h1[:, 0].detach().numpy(), atol=1e-12)
        np.testing.assert_allclose(c[:, b].detach().numpy(), c1[:, 0].detach().numpy(), atol=1e-12)


def test_pack_utilities():
    a, b, c = tl.tensor([1.0, 2, 3]), tl.tensor([4.0, 5]), tl.tensor([6.0])
    padded = rnn_utils.pad_sequence([a, b, c], batch_first=True, padding_value=-1)
    np.testing.assert_array_equal(padded.numpy(), [[1, 2, 3], [4, 5, -1], [6, -1, -1]])
    left = rnn_utils.pad_sequence([a, b], padding_side="left", batch_first=True)
    np.testing.assert_array_equal(left.numpy(), [[1, 2, 3], [0, 4, 5]])
    packed = rnn_utils.pack_sequence([a, b, c])
    np.testing.assert_array_equal(packed.data.numpy(), [1, 4, 6, 2, 5, 3])
    assert packed.batch_sizes.tolist() == [3, 2, 1] and packed.sorted_indices is None
    back = rnn_utils.unpack_sequence(rnn_utils.pack_sequence([b, a, c], enforce_sorted=False))
    assert [t.tolist() for t in back] == [[4, 5], [1, 2, 3], [6]]
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        rnn_utils.pack_sequence([b, a])
    with pytest.raises(RuntimeError, match="greater than 0"):
        rnn_utils.pack_padded_sequence(padded, [3, 0, 1], batch_first=True)
    out, lens = rnn_utils.pad_packed_sequence(packed, total_length=5)
    assert out.shape == (5, 3) and lens.tolist() == [3, 2, 1]


def test_cells_match_op_composed_cells_and_twice_differentiable_forms():
    tl.manual_seed(0)
    x, h, c = (tl.randn(2, 3, dtype=tl.float64), tl.randn(2, 4, dtype=tl.float64), tl.randn(2, 4, dtype=tl.float64))
    for cell, fn, state in ((nn.LSTMCell(3, 4), tl.lstm_cell, (h, c)), (nn.GRUCell(3, 4), tl.gru_cell, h),
                            (nn.RNNCell(3, 4), tl.rnn_tanh_cell, h),
                            (nn.RNNCell(3, 4, nonlinearity="relu"), tl.rnn_relu_cell, h)):
        cell.double()
        ours = cell(x, state)
        ref = fn(x, state, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
        for a, b in zip(ours if isinstance(ours, tuple) else (ours,), ref if isinstance(ref, tuple) else (ref,)):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)
    w_ih = tl.randn(16, 3, dtype=tl.float64, requires_grad=True)
    w_hh = tl.randn(16, 4, dtype=tl.float64, requires_grad=True)
    xr = x.clone().requires_grad_(True)
    assert gradgradcheck(lambda x, a, b: tl.lstm_cell(x, (h, c), a, b)[1], (xr, w_ih, w_hh))
    unbatched = nn.GRUCell(3, 4).double()(x[0])
    assert unbatched.shape == (4,)


def test_errors_and_repr():
    assert repr(nn.LSTM(10, 20, 2, proj_size=5, bidirectional=True)) == \
        "LSTM(10, 20, num_layers=2, proj_size=5, bidirectional=True)".replace(
            "20, num_layers=2, proj_size=5", "20, proj_size=5, num_layers=2")
    assert repr(nn.GRU(3, 4, bias=False, batch_first=True, dropout=0.5, num_layers=2)) == \
        "GRU(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5)"
    assert repr(nn.LSTMCell(3, 4, bias=False)) == "LSTMCell(3, 4, bias=False)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    m = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 5"):
        m(tl.ones(2, 1, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        m(tl.ones(5, 2, 3), (tl.zeros(1, 3, 4), tl.zeros(1, 3, 4)))
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.GRU(3, 4, dropout=2)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.RNN(3, 4, dropout=0.5)
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    names = [n for n, _ in nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2).named_parameters()]
    assert names[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"]
    assert names[5] == "weight_ih_l0_reverse" and len(names) == 20


@pytest.mark.parametrize("cls,kw", [("LSTM", {}), ("LSTM", {"proj_size": 2, "bidirectional": True}), ("GRU", {}),
                                    ("RNN", {})])
def test_forward_without_backward_frees_its_graph(cls, kw):
    """A forward run with autograd on whose result is dropped without backward (validation under grad mode)
    frees everything: no output may be held by the layer's saved state, a reference cycle through the graph."""
    import gc

    m = getattr(nn, cls)(3, 4, **kw)
    x = tl.randn(6, 2, 3, requires_grad=True)
    m(x)
    gc.collect()
    before = tl.cpu.memory_allocated()
    for _ in range(5):
        out = m(x)
        assert out[0].grad_fn is not None
        del out
    gc.collect()
    assert tl.cpu.memory_allocated() == before


@pytest.mark.parametrize("cls,kw", CONFIGS + [("RNN", {"num_layers": 3})])
def test_matches_torch(cls, kw):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")
    torch.manual_seed(0)
    theirs = getattr(torch.nn, cls)(4, 5, **kw).double()
    ours = getattr(nn, cls)(4, 5, **kw).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: tl.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 6, 4) if kw.get("batch_first") else (6, 3, 4))
    tx, ox = torch.tensor(x, requires_grad=True), tl.tensor(x, requires_grad=True)
    t_out, t_state = theirs(tx)
    o_out, o_state = ours(ox)
    np.testing.assert_allclose(o_out.detach().numpy(), t_out.detach().numpy(), atol=1e-12)
    t_h = t_state[0] if cls == "LSTM" else t_state
    o_h = o_state[0] if cls == "LSTM" else o_state
    (t_out.sum() + t_h.pow(2).sum()).backward()
    (o_out.sum() + o_h.pow(2).sum()).backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-11, err_msg=name)
