"""MultiheadAttention, F.multi_head_attention_forward and the Transformer modules of torchlite.nn: attention
against a NumPy reference (every mask form, bias_kv, zero attention, separate key/value dims, unbatched and
batch_first inputs), the layers against compositions of torchlite.nn.functional with the modules' own weights,
initialization, train-mode determinism, errors and warnings; compared with PyTorch where installed (outputs,
attention weights, gradients of every parameter, repr, state_dict keys) on the same inputs with copied
weights."""
import contextlib
import math
import warnings

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn.functional as F
from torchlite.nn.modules import transformer as T


pytestmark = [pytest.mark.filterwarnings("ignore:Support for mismatched"),
              pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")]


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed: the comparison with it is optional")


def _np(t):
    return t.detach().numpy()


def _close(a, b, rtol=1e-9, atol=1e-10, equal_nan=False, err_msg=""):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=rtol,
                               atol=atol, equal_nan=equal_nan, err_msg=err_msg)


def _params(module):
    return {k: _np(v) for k, v in module.state_dict().items()}


def _copy_from_torch(torch_module, module):
    """Loads the PyTorch module's weights into the torchlite module (through NumPy), checking the keys."""
    theirs = torch_module.state_dict()
    assert list(theirs.keys()) == list(module.state_dict().keys())
    result = module.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in theirs.items()})
    assert not result.missing_keys and not result.unexpected_keys


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ------------------------------------------------------------------ a NumPy reference of multi-head attention
def _additive(mask):
    if mask is None:
        return 0.0
    mask = np.asarray(mask)
    return np.where(mask, -np.inf, 0.0) if mask.dtype == bool else mask.astype(np.float64)


def _softmax(x):
    m = np.max(x, -1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(-1, keepdims=True)


def np_mha(q, k, v, p, num_heads, key_padding_mask=None, attn_mask=None, add_zero_attn=False):
    """Seq-first batched (L, N, E) attention from a state dict `p` of NumPy arrays: (output, per-head weights)."""
    L, N, E = q.shape
    d = E // num_heads
    if "in_proj_weight" in p:
        wq, wk, wv = np.split(p["in_proj_weight"], 3)
    else:
        wq, wk, wv = p["q_proj_weight"], p["k_proj_weight"], p["v_proj_weight"]
    bq, bk, bv = np.split(p["in_proj_bias"], 3) if "in_proj_bias" in p else (0.0, 0.0, 0.0)
    Q, K, V = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv
    S = K.shape[0]
    mask = np.zeros((N, num_heads, L, S)) + (0.0 if attn_mask is None else
                                             np.broadcast_to(_additive(attn_mask).reshape((-1, num_heads, L, S))
                                                             if np.ndim(attn_mask) == 3 else _additive(attn_mask),
                                                             (N, num_heads, L, S)))
    if key_padding_mask is not None:
        mask = mask + _additive(key_padding_mask)[:, None, None, :]
    if "bias_k" in p:
        K = np.concatenate([K, np.broadcast_to(p["bias_k"], (1, N, E))])
        V = np.concatenate([V, np.broadcast_to(p["bias_v"], (1, N, E))])
        mask = np.concatenate([mask, np.zeros((N, num_heads, L, 1))], -1)
    heads = lambda x: x.reshape(x.shape[0], N, num_heads, d).transpose(1, 2, 0, 3)  # noqa: E731
    Qh, Kh, Vh = heads(Q), heads(K), heads(V)
    if add_zero_attn:
        Kh = np.concatenate([Kh, np.zeros((N, num_heads, 1, d))], 2)
        Vh = np.concatenate([Vh, np.zeros((N, num_heads, 1, d))], 2)
        mask = np.concatenate([mask, np.zeros((N, num_heads, L, 1))], -1)
    with np.errstate(invalid="ignore"):
        w = _softmax(Qh @ Kh.transpose(0, 1, 3, 2) / math.sqrt(d) + mask)
    o = (w @ Vh).transpose(2, 0, 1, 3).reshape(L, N, E)
    o = o @ p["out_proj.weight"].T + (p["out_proj.bias"] if "out_proj.bias" in p else 0.0)
    return o, w


CONFIGS = [
    dict(),
    dict(bias=False),
    dict(add_bias_kv=True),
    dict(add_zero_attn=True),
    dict(kdim=3, vdim=5),
    dict(kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True, bias=False),
]


def _mha(cfg, E=8, H=2, seed=0):
    tl.manual_seed(seed)
    m = T.MultiheadAttention(E, H, **cfg).double()
    if m.in_proj_bias is not None:  # non-zero biases, so that they are tested
        with tl.no_grad():
            m.in_proj_bias.copy_(tl.randn(3 * E, dtype=tl.float64))
            m.out_proj.bias.copy_(tl.randn(E, dtype=tl.float64))
    return m


def _qkv(cfg, L=4, S=5, N=3, E=8, seed=1):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((L, N, E))
    k = rng.standard_normal((S, N, cfg.get("kdim", E)))
    v = rng.standard_normal((S, N, cfg.get("vdim", E)))
    return q, k, v


def _masks(L=4, S=5, N=3, H=2, seed=2):
    """Every mask form: (name, key_padding_mask, attn_mask) with no row fully masked."""
    rng = np.random.default_rng(seed)
    kpm = np.zeros((N, S), bool)
    kpm[1, 3:] = True
    kpm[2, 0] = True
    am2 = rng.random((L, S)) < 0.3
    am2[:, 1] = False  # key 1 stays visible to every query
    am3 = rng.random((N * H, L, S)) < 0.3
    am3[:, :, 1] = False
    return [
        ("none", None, None),
        ("kpm bool", kpm, None),
        ("kpm float", np.where(kpm, -np.inf, 0.0), None),
        ("attn 2d bool", None, am2),
        ("attn 2d float", None, rng.standard_normal((L, S))),
        ("attn 3d bool", None, am3),
        ("attn 3d float", None, rng.standard_normal((N * H, L, S))),
        ("both bool", kpm, am2),
        ("both float", np.where(kpm, -np.inf, 0.0), rng.standard_normal((N * H, L, S))),
    ]


def _t(x):
    return None if x is None else tl.tensor(x)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_mha_matches_numpy_with_every_mask(cfg):
    m = _mha(cfg)
    p = _params(m)
    q, k, v = _qkv(cfg)
    for name, kpm, am in _masks():
        want_o, want_w = np_mha(q, k, v, p, 2, kpm, am, cfg.get("add_zero_attn", False))
        o, w = m(_t(q), _t(k), _t(v), key_padding_mask=_t(kpm), attn_mask=_t(am))
        _close(_np(o), want_o, err_msg=name)
        _close(_np(w), want_w.mean(1), err_msg=name)
        o2, w2 = m(_t(q), _t(k), _t(v), key_padding_mask=_t(kpm), attn_mask=_t(am), average_attn_weights=False)
        _close(_np(w2), want_w)
        o3, w3 = m(_t(q), _t(k), _t(v), key_padding_mask=_t(kpm), attn_mask=_t(am), need_weights=False)
        assert w3 is None
        _close(_np(o3), want_o)


def test_mha_self_attention_numpy_and_shapes():
    m = _mha({})
    x = np.random.default_rng(3).standard_normal((4, 2, 8))
    xt = tl.tensor(x)
    o, w = m(xt, xt, xt)  # the same tensor for query, key and value: one packed projection
    want_o, want_w = np_mha(x, x, x, _params(m), 2)
    _close(_np(o), want_o)
    _close(_np(w), want_w.mean(1))
    assert tuple(o.shape) == (4, 2, 8) and tuple(w.shape) == (2, 4, 4) and o.dtype == tl.float64
    # key is value but not query (the encoder-decoder case)
    mem = tl.tensor(np.random.default_rng(4).standard_normal((6, 2, 8)))
    o, _ = m(xt, mem, mem)
    _close(_np(o), np_mha(x, _np(mem), _np(mem), _params(m), 2)[0])


def test_mha_unbatched_and_batch_first_agree_with_seq_first():
    cfg = dict(kdim=3, vdim=5)
    m = _mha(cfg)
    q, k, v = _qkv(cfg)
    kpm = np.zeros((3, 5))
    kpm[0, 4] = -np.inf
    am = np.random.default_rng(5).standard_normal((3 * 2, 4, 5))
    o, w = m(_t(q), _t(k), _t(v), key_padding_mask=_t(kpm), attn_mask=_t(am), average_attn_weights=False)
    for n in range(3):  # each sample alone, unbatched: (L, E), masks (S,) and (H, L, S)
        on, wn = m(_t(q[:, n]), _t(k[:, n]), _t(v[:, n]), key_padding_mask=_t(kpm[n]), attn_mask=_t(am[2 * n:2 * n + 2]),
                   average_attn_weights=False)
        assert tuple(on.shape) == (4, 8) and tuple(wn.shape) == (2, 4, 5)
        _close(_np(on), _np(o)[:, n])
        _close(_np(wn), _np(w)[n])
        on, wn = m(_t(q[:, n]), _t(k[:, n]), _t(v[:, n]))
        assert tuple(wn.shape) == (4, 5)
    bf = T.MultiheadAttention(8, 2, kdim=3, vdim=5, batch_first=True).double()
    bf.load_state_dict(m.state_dict())
    ob, wb = bf(_t(q.transpose(1, 0, 2)), _t(k.transpose(1, 0, 2)), _t(v.transpose(1, 0, 2)),
                key_padding_mask=_t(kpm), attn_mask=_t(am), average_attn_weights=False)
    _close(_np(ob), _np(o).transpose(1, 0, 2))
    _close(_np(wb), _np(w))


def test_mha_gradients_match_finite_differences():
    m = _mha(dict(add_bias_kv=True))
    q, k, v = _qkv({}, L=3, S=4, N=2)
    kpm = np.zeros((2, 4), bool)
    kpm[1, 2:] = True
    qt = tl.tensor(q).requires_grad_()
    o, w = m(qt, tl.tensor(k), tl.tensor(v), key_padding_mask=tl.tensor(kpm))
    rng = np.random.default_rng(6)
    r_o, r_w = rng.standard_normal(o.shape), rng.standard_normal(w.shape)
    (o * tl.tensor(r_o)).sum().add((w * tl.tensor(r_w)).sum()).backward()

    def loss():
        with tl.no_grad():
            o, w = m(qt.detach(), tl.tensor(k), tl.tensor(v), key_padding_mask=tl.tensor(kpm))
            return float((_np(o) * r_o).sum() + (_np(w) * r_w).sum())

    eps = 1e-6
    for name, p in list(m.named_parameters()) + [("query", qt)]:
        flat = p.detach().reshape(-1)
        grad = _np(p.grad).reshape(-1)
        for i in range(0, flat.numel(), max(1, flat.numel() // 5)):  # a few entries of each
            old = float(flat[i])
            with tl.no_grad():
                flat[i] = old + eps
                up = loss()
                flat[i] = old - eps
                down = loss()
                flat[i] = old
            assert abs((up - down) / (2 * eps) - grad[i]) < 1e-6, (name, i)


@pytest.mark.parametrize("masks", [False, True])
def test_mha_packed_self_attention_path_matches_the_general_one(masks):
    # Self-attention without returned weights projects q, k, v in one product straight into the attention's
    # layout (F._PackedHeads); passing a copy as key and value takes the general path (unbind, reshapes). Both
    # must give the same output and gradients, and the packed one also forward-mode derivatives. (No second
    # derivatives: the fused attention's backward, as PyTorch's CPU flash attention, has none.)
    m = _mha({})
    x = tl.tensor(_qkv({}, L=4, N=3)[0]).requires_grad_()
    mask = tl.tensor(np.triu(np.full((4, 4), -np.inf), 1)) if masks else None
    kpm = tl.tensor(np.array([[False] * 4, [False, False, False, True], [False] * 4])) if masks else None
    w = tl.randn(4, 3, 8, dtype=tl.float64)
    results = []
    for same in (True, False):
        kv = x if same else x.clone()
        out, weights = m(x, kv, kv, need_weights=False, attn_mask=mask, key_padding_mask=kpm)
        assert weights is None
        (out * w).sum().backward()
        results.append([out.detach()] + [x.grad.clone()] + [p.grad.clone() for p in m.parameters()])
        x.grad = None
        m.zero_grad()
    for a, b in zip(*results):
        _close(_np(a), _np(b), rtol=1e-12, atol=1e-12)
    xs = x.detach()[:2, :2].clone().requires_grad_()

    def f(x):
        return m(x, x, x, need_weights=False, attn_mask=mask[:2, :2] if masks else None)[0]

    assert tl.autograd.gradcheck(f, (xs,), check_forward_ad=True)


# ------------------------------------------------------------------ PyTorch: outputs, weights and gradients
def _torch_mha(torch, cfg, m):
    tm = torch.nn.MultiheadAttention(8, 2, **cfg).double()
    tm.load_state_dict({k: torch.tensor(v) for k, v in _params(m).items()})
    return tm


@pytest.mark.parametrize("cfg", CONFIGS + [dict(batch_first=True), dict(dropout=0.5)],
                         ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_mha_against_torch_outputs_weights_and_gradients(cfg):
    torch = _torch()
    m = _mha(cfg).eval()  # dropout=0.5 in eval mode: no dropout
    tm = _torch_mha(torch, cfg, m).eval()
    q, k, v = _qkv(cfg)
    if cfg.get("batch_first"):
        q, k, v = (x.transpose(1, 0, 2).copy() for x in (q, k, v))
    rng = np.random.default_rng(7)
    for name, kpm, am in _masks():
        for need_weights, average in ((True, True), (True, False), (False, True)):
            ours = [tl.tensor(x).requires_grad_() for x in (q, k, v)]
            theirs = [torch.tensor(x).requires_grad_() for x in (q, k, v)]
            kw = dict(need_weights=need_weights, average_attn_weights=average)
            o, w = m(*ours, key_padding_mask=_t(kpm), attn_mask=_t(am), **kw)
            to, tw = tm(*theirs, key_padding_mask=None if kpm is None else torch.tensor(kpm),
                        attn_mask=None if am is None else torch.tensor(am), **kw)
            _close(_np(o), to.detach().numpy())
            assert (w is None) == (tw is None)
            r_o = rng.standard_normal(o.shape)
            loss, tloss = (o * tl.tensor(r_o)).sum(), (to * torch.tensor(r_o)).sum()
            if w is not None:
                _close(_np(w), tw.detach().numpy())
                r_w = rng.standard_normal(w.shape)
                loss, tloss = loss + (w * tl.tensor(r_w)).sum(), tloss + (tw * torch.tensor(r_w)).sum()
            m.zero_grad()
            tm.zero_grad()
            loss.backward()
            tloss.backward()
            for (n1, p1), (n2, p2) in zip(m.named_parameters(), tm.named_parameters()):
                assert n1 == n2
                _close(_np(p1.grad), p2.grad.numpy(), rtol=1e-8, atol=1e-9)
            for a, b in zip(ours, theirs):
                _close(_np(a.grad), b.grad.numpy(), rtol=1e-8, atol=1e-9)


def test_mha_mask_edge_cases():
    m = _mha({})
    q, k, v = _qkv({}, L=4, S=4)
    args = [tl.tensor(x) for x in (q, k, v)]
    p = _params(m)
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    want = np_mha(q, k, v, p, 2, attn_mask=causal)[0]
    # the causal hint with the causal mask; with the mask dropped (no key padding, no weights) the hint wins
    for need_weights in (True, False):
        o, _ = m(*args, attn_mask=tl.tensor(causal), is_causal=True, need_weights=need_weights)
        _close(_np(o), want)
    o, _ = m(*args, attn_mask=tl.zeros(4, 4, dtype=tl.float64), is_causal=True, need_weights=False)
    _close(_np(o), want)
    o, _ = m(*args, attn_mask=tl.zeros(4, 4, dtype=tl.float64), is_causal=True, need_weights=True)
    _close(_np(o), np_mha(q, k, v, p, 2)[0])  # with weights the mask is used
    # a query that sees no key: NaN with weights, attention 0 (so out_proj's bias) without
    full = np.zeros((3, 4), bool)
    full[1] = True
    o, w = m(*args, key_padding_mask=tl.tensor(full))
    assert np.isnan(_np(o)[:, 1]).all() and np.isnan(_np(w)[1]).all() and not np.isnan(_np(o)[:, 0]).any()
    o, _ = m(*args, key_padding_mask=tl.tensor(full), need_weights=False)
    _close(_np(o)[:, 1], np.broadcast_to(p["out_proj.bias"], (4, 8)))
    _close(_np(o)[:, [0, 2]], np_mha(q, k, v, p, 2)[0][:, [0, 2]])
    row = np.zeros((4, 4), bool)
    row[2] = True
    qt = tl.tensor(q).requires_grad_()
    o, _ = m(qt, args[1], args[2], attn_mask=tl.tensor(row), need_weights=False)
    _close(_np(o)[2], np.broadcast_to(p["out_proj.bias"], (3, 8)))
    o.sum().backward()  # finite gradients, none for the query that sees nothing
    assert np.isfinite(_np(qt.grad)).all() and not _np(qt.grad)[2].any() and _np(qt.grad)[1].any()
    # mismatched mask dtypes: PyTorch's deprecation warning
    kpm = np.zeros((3, 4), bool)
    kpm[0, 3] = True
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        o, _ = m(*args, key_padding_mask=tl.tensor(kpm), attn_mask=tl.tensor(causal))
    _close(_np(o), np_mha(q, k, v, p, 2, kpm, causal)[0])


def test_mha_mask_edge_cases_against_torch():
    torch = _torch()
    m = _mha({})
    tm = _torch_mha(torch, {}, m)
    q, k, v = _qkv({}, L=4, S=4)
    args = lambda lib: [lib.tensor(x) for x in (q, k, v)]  # noqa: E731
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    kpm = np.zeros((3, 4), bool)
    kpm[0, 3] = True
    full = np.zeros((3, 4), bool)
    full[1] = True
    row = np.zeros((4, 4), bool)
    row[2] = True
    cases = [dict(attn_mask=causal, is_causal=True), dict(attn_mask=causal, is_causal=True, key_padding_mask=kpm),
             dict(attn_mask=np.zeros((4, 4)), is_causal=True), dict(key_padding_mask=full), dict(attn_mask=row),
             dict(attn_mask=np.where(row, -np.inf, 0.0)), dict(key_padding_mask=kpm, attn_mask=causal)]
    for case in cases:
        for need_weights in (True, False):
            with _quiet():
                o, w = m(*args(tl), need_weights=need_weights,
                         **{k: tl.tensor(v) if isinstance(v, np.ndarray) else v for k, v in case.items()})
                to, tw = tm(*args(torch), need_weights=need_weights,
                            **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in case.items()})
            _close(_np(o), to.detach().numpy(), equal_nan=True)
            if need_weights:
                _close(_np(w), tw.detach().numpy(), equal_nan=True)


def test_mha_no_grad_eval_batch_first_against_torch_fast_path():
    torch = _torch()
    cfg = dict(batch_first=True)
    m = _mha(cfg).eval()
    tm = _torch_mha(torch, cfg, m).eval()
    x = np.random.default_rng(8).standard_normal((3, 5, 8))
    kpm = np.zeros((3, 5), bool)
    kpm[1, 2:] = True
    for need_weights in (True, False):
        with tl.no_grad():
            o, w = m(tl.tensor(x), tl.tensor(x), tl.tensor(x), key_padding_mask=tl.tensor(kpm),
                     need_weights=need_weights)
        with torch.no_grad():
            xt = torch.tensor(x)
            to, tw = tm(xt, xt, xt, key_padding_mask=torch.tensor(kpm), need_weights=need_weights)
        _close(_np(o), to.numpy(), rtol=1e-7, atol=1e-8)
        if need_weights:
            _close(_np(w), tw.numpy(), rtol=1e-7, atol=1e-8)


def test_multi_head_attention_forward_with_static_kv():
    E, H, L, S, N = 8, 2, 3, 4, 2
    rng = np.random.default_rng(9)
    q = rng.standard_normal((L, N, E))
    w_in, b_in = rng.standard_normal((3 * E, E)), rng.standard_normal(3 * E)
    w_out, b_out = rng.standard_normal((E, E)), rng.standard_normal(E)
    static_k, static_v = rng.standard_normal((N * H, S, E // H)), rng.standard_normal((N * H, S, E // H))
    o, w = F.multi_head_attention_forward(
        tl.tensor(q), tl.tensor(q), tl.tensor(q), E, H, tl.tensor(w_in), tl.tensor(b_in), None, None, False, 0.0,
        tl.tensor(w_out), tl.tensor(b_out), static_k=tl.tensor(static_k), static_v=tl.tensor(static_v),
        average_attn_weights=False)
    Q = (q @ w_in[:E].T + b_in[:E]).reshape(L, N * H, E // H).transpose(1, 0, 2)
    want_w = _softmax(Q @ static_k.transpose(0, 2, 1) / math.sqrt(E // H))
    want_o = (want_w @ static_v).transpose(1, 0, 2).reshape(L, N, E) @ w_out.T + b_out
    _close(_np(o), want_o)
    _close(_np(w), want_w.reshape(N, H, L, S))
    with pytest.raises(AssertionError, match="expecting static_k.size\\(0\\) of 4, but got 2"):
        F.multi_head_attention_forward(tl.tensor(q), tl.tensor(q), tl.tensor(q), E, H, tl.tensor(w_in), None, None,
                                       None, False, 0.0, tl.tensor(w_out), None, static_k=tl.tensor(static_k[:2]))
    torch = _torch()
    to, tw = torch.nn.functional.multi_head_attention_forward(
        torch.tensor(q), torch.tensor(q), torch.tensor(q), E, H, torch.tensor(w_in), torch.tensor(b_in), None, None,
        False, 0.0, torch.tensor(w_out), torch.tensor(b_out), static_k=torch.tensor(static_k),
        static_v=torch.tensor(static_v), average_attn_weights=False)
    _close(_np(o), to.numpy())
    _close(_np(w), tw.numpy())


def test_mha_train_mode_dropout_is_seeded_and_drops_weights():
    m = T.MultiheadAttention(8, 2, dropout=0.5).double()
    x = tl.tensor(np.random.default_rng(10).standard_normal((5, 2, 8)))
    tl.manual_seed(3)
    o1, w1 = m(x, x, x, average_attn_weights=False)
    tl.manual_seed(3)
    o2, w2 = m(x, x, x, average_attn_weights=False)
    assert tl.equal(o1, o2) and tl.equal(w1, w2)
    assert bool((w1 == 0).any())  # weights are returned after dropout, the kept ones scaled by 2
    m.eval()
    o3, w3 = m(x, x, x, average_attn_weights=False)
    kept = _np(w1) != 0
    _close(_np(w1)[kept], 2 * _np(w3)[kept])
    tl.manual_seed(3)
    o4, _ = m.train()(x, x, x, need_weights=False)
    assert tuple(o4.shape) == (5, 2, 8) and not np.allclose(_np(o4), _np(o3))


def test_mha_initialization():
    tl.manual_seed(0)
    E = 16
    m = T.MultiheadAttention(E, 4, add_bias_kv=True)
    assert m.in_proj_weight.shape == (3 * E, E) and m.in_proj_weight.dtype == tl.float32
    assert float(m.in_proj_weight.abs().max()) <= math.sqrt(6 / (4 * E))  # xavier_uniform_: fans E and 3E
    assert float(m.in_proj_weight.abs().max()) > 0.8 * math.sqrt(6 / (4 * E))
    assert not bool(m.in_proj_bias.any()) and not bool(m.out_proj.bias.any())
    assert float(m.out_proj.weight.abs().max()) <= 1 / math.sqrt(E)  # Linear's own init
    assert m.bias_k.shape == (1, 1, E) and float(m.bias_k.std()) > 0
    s = T.MultiheadAttention(E, 4, kdim=4, vdim=6, bias=False, dtype=tl.float64)
    assert s.in_proj_weight is None and s.in_proj_bias is None and s.bias_k is None and s.bias_v is None
    assert s.q_proj_weight.shape == (E, E) and s.k_proj_weight.shape == (E, 4) and s.v_proj_weight.shape == (E, 6)
    assert float(s.k_proj_weight.abs().max()) <= math.sqrt(6 / (E + 4)) and s.k_proj_weight.dtype == tl.float64
    assert s.out_proj.bias is None and (s.head_dim, s.kdim, s.vdim, s._qkv_same_embed_dim) == (4, 4, 6, False)
    assert type(s.out_proj).__name__ == "NonDynamicallyQuantizableLinear" and isinstance(s.out_proj, tl.nn.Linear)


def test_mha_errors():
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0, got embed_dim=0 and "
                                         "num_heads=2 instead"):
        T.MultiheadAttention(0, 2)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        T.MultiheadAttention(8, 3)
    m = T.MultiheadAttention(8, 2)
    x = tl.randn(3, 2, 8)
    cases = [
        (dict(query=tl.randn(3)), AssertionError, "query should be unbatched 2D or batched 3D tensor but received 1-D"),
        (dict(key=x[0]), AssertionError, "For batched \\(3-D\\) `query`, expected `key` and `value` to be 3-D but "
                                         "found 2-D and 3-D tensors respectively"),
        (dict(attn_mask=tl.zeros(3, 4)), RuntimeError, "The shape of the 2D attn_mask is .*\\[3, 4\\].*, but should "
                                                       "be \\(3, 3\\)."),
        (dict(attn_mask=tl.zeros(2, 3, 3)), RuntimeError, "The shape of the 3D attn_mask is .*, but should be "
                                                          "\\(4, 3, 3\\)."),
        (dict(attn_mask=tl.zeros(1, 1, 3, 3)), AssertionError, "expected `attn_mask` to be `None`, 2-D or 3-D but "
                                                               "found 4-D tensor instead"),
        (dict(attn_mask=tl.zeros(3, 3, dtype=tl.int64)), AssertionError,
         "only bool and floating types of attn_mask are supported"),
        (dict(key_padding_mask=tl.zeros(2, 2, dtype=tl.bool)), AssertionError,
         "Expected key_padded_mask.shape\\[1\\] to be 3, but got 2"),
        (dict(key_padding_mask=tl.zeros(2, dtype=tl.bool)), AssertionError,
         "expected `key_padding_mask` to be `None` or 2-D but found 1-D tensor instead"),
        (dict(is_causal=True), RuntimeError, "Need attn_mask if specifying the is_causal hint"),
        (dict(query=tl.randn(3, 2, 4), key=tl.randn(3, 2, 4), value=tl.randn(3, 2, 4)), AssertionError,
         "was expecting embedding dimension of 8, but got 4"),
        (dict(value=tl.randn(4, 2, 8)), AssertionError, "key shape .* does not match value shape"),
        (dict(query=x[0], key=x[0], value=x[0], attn_mask=tl.zeros(3, 3, 3)), AssertionError,
         "Expected `attn_mask` shape to be \\(2, 2, 2\\) but got"),
    ]
    for kw, error, message in cases:
        args = dict(query=x, key=x, value=x)
        args.update(kw)
        with pytest.raises(error, match=message):
            m(args.pop("query"), args.pop("key"), args.pop("value"), **args)


def test_mha_errors_match_torch():
    torch = _torch()
    tm, m = torch.nn.MultiheadAttention(8, 2), T.MultiheadAttention(8, 2)
    for shapes in [((3,), (3,), (3,)), ((3, 2, 8), (3, 8), (3, 8)), ((3, 8), (3, 2, 8), (3, 2, 8)),
                   ((3, 2, 4), (3, 2, 4), (3, 2, 4)), ((3, 2, 8), (4, 1, 8), (4, 1, 8))]:
        def run(lib, mod):
            try:
                mod(*[lib.zeros(s) for s in shapes])
            except Exception as e:  # noqa: BLE001
                return type(e).__name__, str(e).replace("torchlite.Size", "torch.Size")
            return None
        ours, theirs = run(tl, m), run(torch, tm)
        # (torchlite's reshape prefixes its messages with the op's name)
        assert ours[0] == theirs[0] and theirs[1] in ours[1], (shapes, ours, theirs)


# ------------------------------------------------------------------ repr and state_dict keys
def test_repr_and_state_dict_keys():
    m = T.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, "
                       "out_features=8, bias=True)\n)")
    assert list(m.state_dict()) == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "bias_k",
                                    "bias_v", "out_proj.weight", "out_proj.bias"]
    assert list(T.MultiheadAttention(8, 2, bias=False).state_dict()) == ["in_proj_weight", "out_proj.weight"]
    with _quiet():
        enc = T.TransformerEncoder(T.TransformerEncoderLayer(8, 2, 16), 2)
    assert repr(enc).splitlines()[2] == "    (0-1): 2 x TransformerEncoderLayer("
    assert list(enc.state_dict())[:6] == ["layers.0.self_attn.in_proj_weight", "layers.0.self_attn.in_proj_bias",
                                          "layers.0.self_attn.out_proj.weight", "layers.0.self_attn.out_proj.bias",
                                          "layers.0.linear1.weight", "layers.0.linear1.bias"]


REPR_CASES = [
    "nn.MultiheadAttention(8, 2)",
    "nn.MultiheadAttention(8, 2, bias=False, kdim=4, vdim=4, add_bias_kv=True, add_zero_attn=True)",
    "nn.TransformerEncoderLayer(8, 2, 16)",
    "nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU(), bias=False, norm_first=True)",
    "nn.TransformerDecoderLayer(8, 2, 16, dropout=0.2, activation='gelu', layer_norm_eps=1e-6)",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8))",
    "nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 3)",
    "nn.Transformer(8, 2, 1, 2, 16)",
    "nn.Transformer(8, 2, 2, 1, 16, batch_first=True, bias=False)",
]


@pytest.mark.parametrize("expr", REPR_CASES)
def test_repr_and_state_dict_match_torch(expr):
    torch = _torch()
    ns = {"nn": T, "T": T}
    ns_nn = type("nn", (), {**{k: getattr(T, k) for k in T.__all__}, "GELU": tl.nn.GELU, "LayerNorm": tl.nn.LayerNorm})
    with _quiet():
        ours = eval(expr, {"nn": ns_nn, **ns})
        theirs = eval(expr, {"nn": torch.nn})
    assert repr(ours) == repr(theirs)
    sd, tsd = ours.state_dict(), theirs.state_dict()
    assert list(sd) == list(tsd)
    assert all(tuple(sd[k].shape) == tuple(tsd[k].shape) for k in sd)


# ------------------------------------------------------------------ the layers against F compositions
def _layer_norm(x, norm):
    return F.layer_norm(x, norm.normalized_shape, norm.weight, norm.bias, norm.eps)


def _attend(mha, q, kv, attn_mask=None, key_padding_mask=None):
    return mha(q, kv, kv, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]


def _ff(layer, x, act):
    return F.linear(act(F.linear(x, layer.linear1.weight, layer.linear1.bias)), layer.linear2.weight,
                    layer.linear2.bias)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu", "callable"])
def test_encoder_layer_matches_functional_composition(norm_first, activation):
    act = {"relu": F.relu, "gelu": F.gelu, "callable": F.silu}[activation]
    tl.manual_seed(0)
    layer = T.TransformerEncoderLayer(8, 2, 16, activation=act if activation == "callable" else activation,
                                      norm_first=norm_first, dtype=tl.float64).eval()
    x = tl.tensor(np.random.default_rng(11).standard_normal((5, 3, 8)))
    kpm = tl.tensor(np.array([[False] * 5, [False] * 3 + [True] * 2, [True] + [False] * 4]))
    mask = T.Transformer.generate_square_subsequent_mask(5, dtype=tl.float64)
    out = layer(x, src_mask=mask, src_key_padding_mask=kpm)
    sa = lambda y: _attend(layer.self_attn, y, y, mask, kpm)  # noqa: E731
    if norm_first:
        y = x + sa(_layer_norm(x, layer.norm1))
        want = y + _ff(layer, _layer_norm(y, layer.norm2), act)
    else:
        y = _layer_norm(x + sa(x), layer.norm1)
        want = _layer_norm(y + _ff(layer, y, act), layer.norm2)
    _close(_np(out), _np(want))
    assert layer.activation_relu_or_gelu == {"relu": 1, "gelu": 2, "callable": 0}[activation]


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_functional_composition(norm_first):
    tl.manual_seed(1)
    layer = T.TransformerDecoderLayer(8, 2, 16, norm_first=norm_first, dtype=tl.float64).eval()
    rng = np.random.default_rng(12)
    tgt, mem = tl.tensor(rng.standard_normal((4, 2, 8))), tl.tensor(rng.standard_normal((6, 2, 8)))
    tgt_mask = T.Transformer.generate_square_subsequent_mask(4, dtype=tl.float64)
    mem_mask = tl.tensor(rng.standard_normal((4, 6)))
    mem_kpm = tl.tensor(np.array([[False] * 6, [False] * 4 + [True] * 2]))
    out = layer(tgt, mem, tgt_mask=tgt_mask, memory_mask=mem_mask, memory_key_padding_mask=mem_kpm)
    sa = lambda y: _attend(layer.self_attn, y, y, tgt_mask)  # noqa: E731
    ca = lambda y: _attend(layer.multihead_attn, y, mem, mem_mask, mem_kpm)  # noqa: E731
    x = tgt
    if norm_first:
        x = x + sa(_layer_norm(x, layer.norm1))
        x = x + ca(_layer_norm(x, layer.norm2))
        x = x + _ff(layer, _layer_norm(x, layer.norm3), F.relu)
    else:
        x = _layer_norm(x + sa(x), layer.norm1)
        x = _layer_norm(x + ca(x), layer.norm2)
        x = _layer_norm(x + _ff(layer, x, F.relu), layer.norm3)
    _close(_np(out), _np(x))


def test_stacks_apply_their_layers_in_turn_then_the_norm():
    tl.manual_seed(2)
    with _quiet():
        enc = T.TransformerEncoder(T.TransformerEncoderLayer(8, 2, 16, dtype=tl.float64), 3,
                                   norm=tl.nn.LayerNorm(8, dtype=tl.float64)).eval()
    dec = T.TransformerDecoder(T.TransformerDecoderLayer(8, 2, 16, dtype=tl.float64), 2,
                               norm=tl.nn.LayerNorm(8, dtype=tl.float64)).eval()
    # the clones are deep copies: distinct parameters, equal values at first
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    assert tl.equal(enc.layers[0].linear1.weight, enc.layers[1].linear1.weight)
    with tl.no_grad():
        for p in enc.parameters():
            p.add_(tl.randn(p.shape, dtype=tl.float64) * 0.1)
        for p in dec.parameters():
            p.add_(tl.randn(p.shape, dtype=tl.float64) * 0.1)
    rng = np.random.default_rng(13)
    src, tgt = tl.tensor(rng.standard_normal((5, 2, 8))), tl.tensor(rng.standard_normal((3, 2, 8)))
    mask = T.Transformer.generate_square_subsequent_mask(3, dtype=tl.float64)
    x = src
    for layer in enc.layers:
        x = layer(x)
    memory = enc(src)
    _close(_np(memory), _np(enc.norm(x)))
    y = tgt
    for layer in dec.layers:
        y = layer(y, memory, tgt_mask=mask, tgt_is_causal=True)
    _close(_np(dec(tgt, memory, tgt_mask=mask)), _np(dec.norm(y)))
    # a causal tgt_mask is detected: the same result with or without the hint
    _close(_np(dec(tgt, memory, tgt_mask=mask, tgt_is_causal=True)), _np(dec.norm(y)))
    # a mask that is not causal is not taken for one (the layers would then drop it for the causal mask)
    open_mask = tl.zeros(3, 3, dtype=tl.float64)
    y = tgt
    for layer in dec.layers:
        y = layer(y, memory, tgt_mask=open_mask)
    _close(_np(dec(tgt, memory, tgt_mask=open_mask)), _np(dec.norm(y)))
    assert not np.allclose(_np(dec(tgt, memory, tgt_mask=open_mask)), _np(dec(tgt, memory, tgt_mask=mask)))
    x = src
    for layer in enc.layers:
        x = layer(x, src_mask=open_mask[:1, :1].expand(5, 5))
    _close(_np(enc(src, mask=open_mask[:1, :1].expand(5, 5))), _np(enc.norm(x)))


def test_transformer_is_encoder_then_decoder_and_xavier_initialized():
    tl.manual_seed(3)
    with _quiet():
        model = T.Transformer(8, 2, 2, 2, 16, dtype=tl.float64).eval()
    assert (model.d_model, model.nhead, model.batch_first) == (8, 2, False)
    lin = model.encoder.layers[0].linear1.weight  # xavier_uniform_ (fans 8, 16), not Linear's kaiming bound
    assert float(lin.abs().max()) <= math.sqrt(6 / 24) and float(lin.abs().max()) > 1 / math.sqrt(8)
    assert not bool(model.encoder.layers[0].self_attn.in_proj_bias.any())
    rng = np.random.default_rng(14)
    src, tgt = tl.tensor(rng.standard_normal((5, 2, 8))), tl.tensor(rng.standard_normal((4, 2, 8)))
    tgt_mask = model.generate_square_subsequent_mask(4, dtype=tl.float64)
    out = model(src, tgt, tgt_mask=tgt_mask)
    _close(_np(out), _np(model.decoder(tgt, model.encoder(src), tgt_mask=tgt_mask)))
    assert tuple(out.shape) == (4, 2, 8)
    unbatched = model(src[:, 1], tgt[:, 1], tgt_mask=tgt_mask)
    _close(_np(unbatched), _np(out)[:, 1])
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(src, tgt[:, :1])
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        model(src[..., :4], tgt[..., :4])


def test_transformer_custom_encoder_and_decoder():
    enc = T.TransformerEncoder(T.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1)
    dec = T.TransformerDecoder(T.TransformerDecoderLayer(8, 2, 16, batch_first=True), 1)
    model = T.Transformer(8, 2, custom_encoder=enc, custom_decoder=dec, batch_first=True).eval()
    assert model.encoder is enc and model.decoder is dec
    assert len(list(model.parameters())) == len(list(enc.parameters())) + len(list(dec.parameters()))
    src, tgt = tl.randn(2, 5, 8), tl.randn(2, 3, 8)
    assert tl.equal(model(src, tgt), dec(tgt, enc(src)))


def test_generate_square_subsequent_mask():
    m = T.Transformer.generate_square_subsequent_mask(3)
    assert m.dtype == tl.float32 and m.tolist() == [[0.0, -math.inf, -math.inf], [0.0, 0.0, -math.inf],
                                                    [0.0, 0.0, 0.0]]
    assert T.Transformer.generate_square_subsequent_mask(2, dtype=tl.float64).dtype == tl.float64
    torch = _torch()
    _close(_np(T.Transformer.generate_square_subsequent_mask(5)),
           torch.nn.Transformer.generate_square_subsequent_mask(5).numpy())


def test_train_mode_is_seeded_and_differs_from_eval():
    with _quiet():
        model = T.Transformer(8, 2, 1, 1, 16, dropout=0.3)
    rng = np.random.default_rng(15)
    src, tgt = tl.tensor(rng.standard_normal((5, 2, 8)), dtype=tl.float32), tl.tensor(
        rng.standard_normal((4, 2, 8)), dtype=tl.float32)
    tl.manual_seed(7)
    a = model(src, tgt)
    tl.manual_seed(7)
    b = model(src, tgt)
    c = model(src, tgt)
    assert tuple(a.shape) == (4, 2, 8) and tl.equal(a, b) and not tl.equal(a, c)
    model.eval()
    d, e = model(src, tgt), model(src, tgt)
    assert tl.equal(d, e) and not np.allclose(_np(a), _np(d))
    a.sum().backward()
    assert all(p.grad is not None for p in model.parameters())


def test_activation_and_nested_tensor_warnings():
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        T.TransformerEncoderLayer(8, 2, activation="tanh")
    with pytest.warns(UserWarning, match="enable_nested_tensor is True, but self.use_nested_tensor is False because "
                                         "encoder_layer.self_attn.batch_first was not True\\(use batch_first"):
        enc = T.TransformerEncoder(T.TransformerEncoderLayer(8, 2, 16), 1)
    assert enc.use_nested_tensor is False and enc.enable_nested_tensor is True and enc.mask_check is True
    reasons = [(dict(norm_first=True), "encoder_layer.norm_first was True"),
               (dict(bias=False), "encoder_layer.self_attn was passed bias=False"),
               (dict(activation=F.silu), "encoder_layer.activation_relu_or_gelu was not True"),
               (dict(nhead=1), "encoder_layer.self_attn.num_heads is odd")]
    for kw, reason in reasons:
        args = dict(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
        args.update(kw)
        with pytest.warns(UserWarning, match=reason):
            T.TransformerEncoder(T.TransformerEncoderLayer(**args), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert T.TransformerEncoder(T.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1).use_nested_tensor
        assert not T.TransformerEncoder(T.TransformerEncoderLayer(8, 2, 16), 1,
                                        enable_nested_tensor=False).use_nested_tensor


def test_encoder_inference_zeroes_padded_positions_like_nested_tensors():
    tl.manual_seed(4)
    enc = T.TransformerEncoder(T.TransformerEncoderLayer(8, 2, 16, batch_first=True, dtype=tl.float64), 2).eval()
    x = tl.tensor(np.random.default_rng(16).standard_normal((2, 4, 8)))
    kpm = tl.tensor(np.array([[False] * 4, [False, False, True, True]]))
    with tl.no_grad():
        out = enc(x, src_key_padding_mask=kpm)
    assert not bool(out[1, 2:].any()) and bool(out[1, :2].all())
    _close(_np(out)[1, :2], _np(enc(x[1:, :2]))[0])  # the unpadded part alone
    out_grad = enc(x, src_key_padding_mask=kpm)  # gradients needed: no nested path, padded rows computed
    assert bool(out_grad[1, 2:].all())
    _close(_np(out_grad)[:, :2], _np(out)[:, :2])


# ------------------------------------------------------------------ the layers and stacks against PyTorch
LAYER_CASES = [
    dict(),
    dict(norm_first=True),
    dict(batch_first=True, activation="gelu"),
    dict(bias=False, layer_norm_eps=1e-3),
    dict(activation="callable", norm_first=True, batch_first=True),
]


def _activation(kw, lib):
    kw = dict(kw)
    if kw.get("activation") == "callable":
        kw["activation"] = lib.nn.functional.silu
    return kw


@pytest.mark.parametrize("kw", LAYER_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_layers_and_transformer_against_torch(kw):
    torch = _torch()
    bf = kw.get("batch_first", False)
    with _quiet():
        torch.manual_seed(0)
        theirs = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.1, **_activation(kw, torch)).double().eval()
        ours = T.Transformer(8, 2, 2, 2, 16, dropout=0.1, **_activation(kw, tl)).double().eval()
    _copy_from_torch(theirs, ours)
    rng = np.random.default_rng(17)
    S, L, N = 5, 4, 3
    src = rng.standard_normal((N, S, 8) if bf else (S, N, 8))
    tgt = rng.standard_normal((N, L, 8) if bf else (L, N, 8))
    kpm = np.zeros((N, S), bool)
    kpm[1, 3:] = True
    tkpm = np.zeros((N, L), bool)
    tkpm[2, 3] = True
    tgt_mask = np.triu(np.full((L, L), -np.inf), 1)
    src_mask = rng.random((S, S)) < 0.2
    np.fill_diagonal(src_mask, False)
    mem_mask = rng.standard_normal((L, S))
    cases = [
        dict(),
        dict(tgt_mask=tgt_mask, src_key_padding_mask=kpm, memory_key_padding_mask=kpm),
        dict(src_mask=src_mask, tgt_mask=tgt_mask, memory_mask=mem_mask, tgt_key_padding_mask=tkpm),
        dict(tgt_mask=tgt_mask, tgt_is_causal=True, src_mask=np.triu(np.full((S, S), -np.inf), 1)),
        dict(memory_mask=np.triu(np.full((L, S), -np.inf), 1), memory_is_causal=True, src_is_causal=False),
    ]
    for case in cases:
        mine = {k: tl.tensor(v) if isinstance(v, np.ndarray) else v for k, v in case.items()}
        yours = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in case.items()}
        a, ta = tl.tensor(src).requires_grad_(), torch.tensor(src).requires_grad_()
        out = ours(a, tl.tensor(tgt), **mine)
        tout = theirs(ta, torch.tensor(tgt), **yours)
        _close(_np(out), tout.detach().numpy(), rtol=1e-8, atol=1e-9)
        r = rng.standard_normal(out.shape)
        ours.zero_grad()
        theirs.zero_grad()
        (out * tl.tensor(r)).sum().backward()
        (tout * torch.tensor(r)).sum().backward()
        _close(_np(a.grad), ta.grad.numpy(), rtol=1e-7, atol=1e-9)
        for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert n1 == n2
            _close(_np(p1.grad), p2.grad.numpy(), rtol=1e-7, atol=1e-9)
        # inference without gradients (PyTorch's fast paths, nested tensors when batch_first)
        with tl.no_grad():
            out = ours.encoder(tl.tensor(src), src_key_padding_mask=tl.tensor(kpm))
        with torch.no_grad():
            tout = theirs.encoder(torch.tensor(src), src_key_padding_mask=torch.tensor(kpm))
        _close(_np(out), tout.numpy(), rtol=1e-7, atol=1e-8)
    # the layers alone, unbatched
    s = src[0] if bf else src[:, 0]
    t = tgt[0] if bf else tgt[:, 0]
    _close(_np(ours.encoder.layers[0](tl.tensor(s))), theirs.encoder.layers[0](torch.tensor(s)).detach().numpy())
    _close(_np(ours.decoder.layers[1](tl.tensor(t), tl.tensor(s))),
           theirs.decoder.layers[1](torch.tensor(t), torch.tensor(s)).detach().numpy())
