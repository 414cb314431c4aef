"""Recurrent layers: RNN, LSTM (with proj_size), GRU and their cells (PyTorch's torch.nn.RNN...).

Each layer and direction projects the whole input sequence through W_ih in one matrix product, then runs one
step per time: one matrix product h W_hh^T for all gates and one fused cell kernel (`_lstm_cell_fused`,
`_gru_cell_fused`) that applies every nonlinearity and the state update. Padded input is handled as packed
input whose batch size never shrinks, so PackedSequence and plain tensors take the same path. An LSTM layer
without projections over equal lengths on the CPU runs all its steps in one kernel instead (`_lstm_layer`, with
`_lstm_layer_backward`): one parallel region for the whole sequence, no Python between steps."""
import math
import numbers
import warnings

from ... import _C
from ..._tensor import Tensor
from ...autograd.function import Function
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _fns():
    from ... import addmm, cat, mm, relu, tanh, zeros

    return addmm, cat, mm, relu, tanh, zeros


def _forward_steps(mode, data, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse, differentiable=False):
    """The recurrence over packed data (N, I), without autograd: (output (N, H_out), h_n, c_n, and what the
    backward reads: each step's previous h and c, the cells' workspaces and new cell states, LSTM's hy). With
    differentiable, the cells are written with ops instead of the fused kernels (twice differentiable; no
    workspaces), for the backward of a backward."""
    addmm, cat, mm, relu, tanh, _ = _fns()
    if mode == "GRU":
        xp = F.linear(data, w_ih, b_ih)
    else:
        xp = F.linear(data, w_ih, b_ih + b_hh if b_ih is not None else None)
    w_hh_t = w_hh.t()
    T = len(batch_sizes)
    xs = xp.split_with_sizes(list(batch_sizes)) if T else []
    steps = range(T - 1, -1, -1) if reverse else range(T)
    outs, h_prev, c_prev, works, cys, hys = ([None] * T for _ in range(6))
    rows = batch_sizes[-1] if reverse and T else h0.shape[0]
    h = h0[:rows]
    c = c0[:rows] if c0 is not None else None
    finished_h, finished_c = [], []
    for t in steps:
        bs = batch_sizes[t]
        if bs < rows:  # forward: sequences that ended keep their last state
            finished_h.append(h[bs:])
            h = h[:bs]
            if c is not None:
                finished_c.append(c[bs:])
                c = c[:bs]
        elif bs > rows:  # reverse: sequences that start here start from h0
            h = cat([h, h0[rows:bs]])
            if c is not None:
                c = cat([c, c0[rows:bs]])
        rows = bs
        h_prev[t], c_prev[t] = h, c
        if mode == "LSTM":
            gates = addmm(xs[t], h, w_hh_t)
            if differentiable:
                i, f, g, o = gates.chunk(4, 1)
                c = f.sigmoid() * c + i.sigmoid() * tanh(g)
                hy = o.sigmoid() * tanh(c)
            else:
                hy, c, works[t] = _C._functions._lstm_cell_fused(gates, c)
            cys[t], hys[t] = c, hy
            h = mm(hy, w_hr.t()) if w_hr is not None else hy
        elif mode == "GRU":
            hg = addmm(b_hh, h, w_hh_t) if b_hh is not None else mm(h, w_hh_t)
            if differentiable:
                (ir, iz, i_n), (hr, hz, hn) = xs[t].chunk(3, 1), hg.chunk(3, 1)
                r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
                h = (1 - z) * tanh(i_n + r * hn) + z * h
            else:
                h, works[t] = _C._functions._gru_cell_fused(xs[t], hg, h)
        else:
            pre = addmm(xs[t], h, w_hh_t)
            h = tanh(pre) if mode == "RNN_TANH" else relu(pre)
        outs[t] = h
    if finished_h:
        h = cat([h] + finished_h[::-1])
        if c is not None:
            c = cat([c] + finished_c[::-1])
    output = cat(outs) if T else xp.new_zeros((0, h0.shape[1]))
    return output, h, c, (h_prev, c_prev, works, cys, hys)


def _recomputed_backward(ctx, grads):
    """_Recurrence's backward under create_graph=True: the layer's forward again with cells written with ops, then
    differentiated by autograd, so that the gradients carry the history a second derivative needs, as PyTorch's
    CPU layers give it (the fused kernels' backward reads tensors saved without history)."""
    from ...autograd import grad

    inputs = ctx.inputs
    output, h_n, c_n, _ = _forward_steps(ctx.mode, inputs[0], ctx.batch_sizes, *inputs[1:], ctx.reverse,
                                         differentiable=True)
    pairs = [(o, g) for o, g in zip((output, h_n, c_n), grads) if o is not None and g is not None]
    wanted = [i for i in range(len(inputs)) if ctx.needs_input_grad[i]]
    found = grad([o for o, _ in pairs], [inputs[i] for i in wanted], [g for _, g in pairs], create_graph=True,
                 allow_unused=True)
    result = [None] * len(inputs)
    for i, g in zip(wanted, found):
        result[i] = g
    return tuple(result) + (None, None, None)


class _Recurrence(Function):
    """One layer in one direction as one autograd node: forward runs the steps without recording; backward
    runs them in reverse with the fused cells' backward kernels, one product per step for the state's
    gradient, and the weights' and input's gradients as single products over all steps at the end."""

    @staticmethod
    def forward(ctx, data, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, mode, batch_sizes, reverse):
        ctx.inputs = (data, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
        ctx.layer = _layer_applies(mode, data, h0, c0, w_hh, w_hr, batch_sizes)
        if ctx.layer:
            # The whole recurrence in one kernel (_lstm_layer), the input's product included: every step's h is
            # the output.
            T, B = len(batch_sizes), batch_sizes[0]
            bias = b_ih + b_hh if b_ih is not None else None
            out, cy, ws = _C._functions._lstm_layer(data.reshape(T, B, data.shape[1]), h0, c0, w_hh, reverse, w_ih,
                                                    bias)
            last = 0 if reverse else T - 1
            ctx.steps = (cy, ws)
            ctx.has_c0, ctx.has_bias = True, b_ih is not None
            ctx.mode, ctx.batch_sizes, ctx.reverse = mode, batch_sizes, reverse
            ctx.save_for_backward(data, w_ih, w_hh, h0, c0, out)
            return out.view(T * B, out.shape[2]), out[last].clone(), cy[last].clone()
        output, h_n, c_n, saved = _forward_steps(mode, data, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr,
                                                 reverse)
        ctx.mode, ctx.batch_sizes, ctx.reverse, ctx.steps = mode, batch_sizes, reverse, saved
        ctx.has_c0, ctx.has_bias = c0 is not None, b_ih is not None
        ctx.save_for_backward(data, w_ih, w_hh, w_hr, b_hh, output)
        if mode == "LSTM":
            # ctx.steps keeps the last step's hy and cy; returned as they are, they would become outputs that ctx
            # holds, a reference cycle through the graph that leaks every forward run without a backward.
            return output, h_n.clone(), c_n.clone()
        return output, h_n

    @staticmethod
    def backward(ctx, d_output, d_hn, d_cn=None):
        if _C.is_grad_enabled():  # create_graph=True
            return _recomputed_backward(ctx, (d_output, d_hn, d_cn))
        if ctx.layer:
            return _layer_backward(ctx, d_output, d_hn, d_cn)
        addmm, cat, mm, _, _, zeros = _fns()
        data, w_ih, w_hh, w_hr, b_hh, output = ctx.saved_tensors
        h_prev, c_prev, works, cys, hys = ctx.steps
        mode, batch_sizes, reverse = ctx.mode, ctx.batch_sizes, ctx.reverse
        T = len(batch_sizes)
        # The dtype the steps ran in (the cells' under autocast, else the output's): every gradient is
        # computed in it; the engine casts each input's gradient to that input's dtype.
        dt = works[0].dtype if T and mode in ("LSTM", "GRU") else output.dtype
        W_hh, W_hr = w_hh.to(dt), (w_hr.to(dt) if w_hr is not None else None)
        d_outs = d_output.to(dt).split_with_sizes(list(batch_sizes)) if T else []
        outs = output.split_with_sizes(list(batch_sizes)) if T and mode.startswith("RNN") else []
        d_hn = d_hn.to(dt)
        d_cn = d_cn.to(dt) if d_cn is not None else None
        B = d_hn.shape[0]
        # Backward visits the steps in the opposite order to forward: rows join where forward let them go.
        steps = range(T) if reverse else range(T - 1, -1, -1)
        rows = B if reverse else (batch_sizes[-1] if T else 0)
        dh = d_hn[:rows]
        dc = d_cn[:rows] if d_cn is not None else None
        d_h0_parts, d_c0_parts = [], []
        grads_g, grads_hg, hyd = [None] * T, [None] * T, [None] * T
        for t in steps:
            bs = batch_sizes[t]
            if bs > rows:  # forward direction: rows whose last step is t join with their final-state gradient
                dh = cat([dh, d_hn[rows:bs]])
                if dc is not None:
                    dc = cat([dc, d_cn[rows:bs]])
            elif bs < rows:  # reverse direction: rows that started from h0 at the previous step leave
                d_h0_parts.append(dh[bs:])
                dh = dh[:bs]
                if dc is not None:
                    d_c0_parts.append(dc[bs:])
                    dc = dc[:bs]
            rows = bs
            d_h = d_outs[t] + dh
            if mode == "LSTM":
                if W_hr is not None:
                    hyd[t] = d_h
                    d_h = mm(d_h, W_hr)
                g, dc = _C._functions._lstm_cell_fused_backward(d_h, dc, c_prev[t].to(dt), cys[t], works[t],
                                                                (True, True))
                grads_g[t] = g
                dh = mm(g, W_hh)
            elif mode == "GRU":
                gi, gh, dhx = _C._functions._gru_cell_fused_backward(d_h, works[t], (True, True, True))
                grads_g[t], grads_hg[t] = gi, gh
                dh = addmm(dhx, gh, W_hh)
            else:
                h = outs[t]
                g = d_h * (1 - h * h) if mode == "RNN_TANH" else d_h * (h > 0).to(dt)
                grads_g[t] = g
                dh = mm(g, W_hh)
        d_h0 = cat([dh] + d_h0_parts[::-1]) if d_h0_parts else dh
        d_c0 = (cat([dc] + d_c0_parts[::-1]) if d_c0_parts else dc) if dc is not None else None
        G = cat(grads_g) if T else None
        G_hh = cat(grads_hg) if mode == "GRU" else G
        H_prev = cat([h.to(dt) for h in h_prev])
        need = ctx.needs_input_grad
        d_data = mm(G, w_ih.to(dt)).to(data.dtype) if need[0] else None
        d_w_ih = mm(G.t(), data.to(dt)).to(w_ih.dtype) if need[3] else None
        d_w_hh = mm(G_hh.t(), H_prev.to(dt)).to(w_hh.dtype) if need[4] else None
        d_b_ih = G.sum(0).to(w_ih.dtype) if ctx.has_bias and need[5] else None
        d_b_hh = None
        if ctx.has_bias and need[6]:  # the same sum as b_ih's unless GRU (a copy: each bias gets its own .grad)
            d_b_hh = d_b_ih.clone() if G_hh is G and d_b_ih is not None else G_hh.sum(0).to(w_hh.dtype)
        d_w_hr = None
        if w_hr is not None and need[7]:
            d_w_hr = mm(cat(hyd).t(), cat(hys).to(dt)).to(w_hr.dtype)
        if not ctx.has_c0:
            d_c0 = None
        return d_data, d_h0, d_c0, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_w_hr, None, None, None


def _layer_applies(mode, data, h0, c0, w_hh, w_hr, batch_sizes):
    """Whether _lstm_layer runs this layer: an LSTM without projections over equal lengths, on the CPU in
    float32 or float64 (its one-region kernel), outside autocast (whose per-step casts the Python steps keep)."""
    if mode != "LSTM" or w_hr is not None or not batch_sizes or batch_sizes[0] != batch_sizes[-1]:
        return False
    if data.device.type != "cpu" or _C._autocast_is_enabled("cpu"):
        return False
    dtype = data.dtype
    return dtype in (_C.float32, _C.float64) and h0.dtype == dtype and c0.dtype == dtype and w_hh.dtype == dtype


def _layer_backward(ctx, d_output, d_hn, d_cn):
    """_Recurrence's backward when _lstm_layer ran the forward: the gates' and the input's gradients of every
    step from _lstm_layer_backward, then the weights' as single products over all steps and the biases' as
    sums."""
    from ... import cat, mm, zeros_like

    data, w_ih, w_hh, h0, c0, out = ctx.saved_tensors
    cy, ws = ctx.steps
    T, B, H = out.shape
    d_hn = d_hn if d_hn is not None else zeros_like(h0)
    d_cn = d_cn if d_cn is not None else zeros_like(c0)
    need = ctx.needs_input_grad
    gg, d_h0, d_c0, d_x = _C._functions._lstm_layer_backward(d_output.reshape(T, B, H), d_hn, d_cn, c0, cy, ws,
                                                              w_hh, ctx.reverse, w_ih if need[0] else None)
    G = gg.view(T * B, 4 * H)
    # Each step's previous h: h0 before the first step that runs.
    h_prev = cat([out[1:], h0.unsqueeze(0)]) if ctx.reverse else cat([h0.unsqueeze(0), out[:-1]])
    d_data = d_x.view(T * B, data.shape[1]) if need[0] else None
    d_w_ih = mm(G.t(), data) if need[3] else None
    d_w_hh = mm(G.t(), h_prev.view(T * B, H)) if need[4] else None
    d_b_ih = G.sum(0) if ctx.has_bias and need[5] else None
    d_b_hh = None
    if ctx.has_bias and need[6]:  # each bias gets its own .grad
        d_b_hh = d_b_ih.clone() if d_b_ih is not None else G.sum(0)
    return d_data, d_h0, d_c0, d_w_ih, d_w_hh, d_b_ih, d_b_hh, None, None, None, None


def _run_direction(mode, data, batch_sizes, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse):
    """One layer in one direction over packed data (N, I): (output (N, H_out), h_n, c_n)."""
    outs = _Recurrence.apply(data, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, mode, tuple(batch_sizes), reverse)
    return outs if mode == "LSTM" else (outs[0], outs[1], None)


class RNNBase(Module):
    """The base of RNN, LSTM and GRU: the parameters of every layer and direction, and the forward pass."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          UserWarning, stacklevel=2)
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        from ... import empty

        kw = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                params = [("weight_ih", empty(gate_size, layer_input, **kw)),
                          ("weight_hh", empty(gate_size, real_hidden, **kw))]
                if bias:
                    params += [("bias_ih", empty(gate_size, **kw)), ("bias_hh", empty(gate_size, **kw))]
                if proj_size > 0:
                    params.append(("weight_hr", empty(proj_size, hidden_size, **kw)))
                names = []
                for base, t in params:
                    name = base + suffix
                    setattr(self, name, Parameter(t))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias uniform in (-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    def flatten_parameters(self):
        """Kept for PyTorch's API (cuDNN's weight layout); nothing to do here."""

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _check_hidden(self, hx, expected, what="hidden"):
        if tuple(hx.shape) != tuple(expected):
            raise RuntimeError(f"Expected {what} size {tuple(expected)}, got {list(hx.shape)}")

    def forward(self, input, hx=None):
        from ... import int64, tensor

        is_lstm = self.mode == "LSTM"
        directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        packed = isinstance(input, PackedSequence)
        batched = True
        if packed:
            data, batch_sizes_t, sorted_indices, unsorted_indices = input
            batch_sizes = [int(v) for v in batch_sizes_t.tolist()]
            B = batch_sizes[0]
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D tensor "
                                 "instead")
            batched = input.dim() == 3
            if not batched:
                input = input.unsqueeze(1)
            elif self.batch_first:
                input = input.transpose(0, 1)
            T, B = input.shape[0], input.shape[1]
            data = input.reshape(T * B, input.shape[2])
            batch_sizes = [B] * T
            sorted_indices = unsorted_indices = None
        if data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{data.shape[-1]}")
        state_shape = (self.num_layers * directions, B, real_hidden)
        cell_shape = (self.num_layers * directions, B, self.hidden_size)
        if hx is None:
            from ... import zeros

            h0 = zeros(state_shape, dtype=data.dtype, device=data.device)
            c0 = zeros(cell_shape, dtype=data.dtype, device=data.device) if is_lstm else None
        else:
            if is_lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise RuntimeError("LSTM: expected hx to be a tuple (h_0, c_0)")
                h0, c0 = hx
            else:
                if not isinstance(hx, Tensor):
                    raise RuntimeError(f"{type(self).__name__}: expected hx to be a Tensor, got {type(hx).__name__}")
                h0, c0 = hx, None
            if not batched:
                if h0.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h0.dim()}-D tensor")
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            elif h0.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {h0.dim()}-D tensor")
            if sorted_indices is not None:
                h0 = h0.index_select(1, sorted_indices)
                c0 = c0.index_select(1, sorted_indices) if c0 is not None else None
            self._check_hidden(h0, state_shape)
            if c0 is not None:
                self._check_hidden(c0, cell_shape, "cell")
        hs, cs = [], []
        layer_in = data
        weights = self.all_weights
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                w = weights[k]
                w_ih, w_hh = w[0], w[1]
                b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
                w_hr = w[-1] if self.proj_size > 0 else None
                out, h, c = _run_direction(self.mode, layer_in, batch_sizes, h0[k], c0[k] if c0 is not None else None,
                                           w_ih, w_hh, b_ih, b_hh, w_hr, reverse=d == 1)
                outs.append(out)
                hs.append(h)
                if c is not None:
                    cs.append(c)
            layer_out = outs[0] if directions == 1 else _fns()[1](outs, 1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_out = F.dropout(layer_out, self.dropout, True)
            layer_in = layer_out
        from ... import stack

        h_n = stack(hs, 0)
        c_n = stack(cs, 0) if is_lstm else None
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = c_n.index_select(1, unsorted_indices) if c_n is not None else None
        if packed:
            output = PackedSequence(layer_in, tensor(batch_sizes, dtype=int64), sorted_indices, unsorted_indices)
        else:
            output = layer_in.reshape(len(batch_sizes), B, layer_in.shape[-1])
            if not batched:
                output = output.squeeze(1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
            elif self.batch_first:
                output = output.transpose(0, 1)
        return (output, (h_n, c_n)) if is_lstm else (output, h_n)


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu with nonlinearity='relu')."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)



class LSTM(RNNBase):
    """Long short-term memory: input, forget, cell and output gates; proj_size > 0 projects h_t to proj_size.
    Returns output and (h_n, c_n)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit: reset and update gates, n_t = tanh(W_in x + b_in + r (W_hn h + b_hn))."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    """The base of the cells: weight_ih, weight_hh and the biases of num_chunks gates."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        from ... import empty

        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, **kw))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        """Every weight and bias uniform in (-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx, n_states):
        from ... import zeros

        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        B = input.shape[0]
        if hx is None:
            states = [zeros(B, self.hidden_size, dtype=input.dtype, device=input.device) for _ in range(n_states)]
        else:
            states = list(hx) if n_states == 2 else [hx]
            if not batched:
                states = [s.unsqueeze(0) for s in states]
            for s in states:
                if s.dim() != 2 or s.shape[0] != B or s.shape[1] != self.hidden_size:
                    raise RuntimeError(f"hidden{'' if n_states == 1 else ' state'} has inconsistent size: expected "
                                       f"({B}, {self.hidden_size}), got {tuple(s.shape)}")
        return input, states, batched

    def _gates_x(self, input, bias):
        return F.linear(input, self.weight_ih, bias)


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        addmm, _, _, relu, tanh, _ = _fns()
        input, (h,), batched = self._prepare(input, hx, 1)
        b = self.bias_ih + self.bias_hh if self.bias else None
        pre = addmm(self._gates_x(input, b), h, self.weight_hh.t())
        out = tanh(pre) if self.nonlinearity == "tanh" else relu(pre)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        addmm = _fns()[0]
        input, (h, c), batched = self._prepare(input, hx, 2)
        b = self.bias_ih + self.bias_hh if self.bias else None
        hy, cy, _ = _C._functions._lstm_cell_fused(addmm(self._gates_x(input, b), h, self.weight_hh.t()), c)
        return (hy, cy) if batched else (hy.squeeze(0), cy.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        addmm, _, mm, _, _, _ = _fns()
        input, (h,), batched = self._prepare(input, hx, 1)
        hg = addmm(self.bias_hh, h, self.weight_hh.t()) if self.bias else mm(h, self.weight_hh.t())
        hy, _ = _C._functions._gru_cell_fused(self._gates_x(input, self.bias_ih), hg, h)
        return hy if batched else hy.squeeze(0)


# PyTorch's top-level cell functions (torch.lstm_cell, ...), written with ops: twice differentiable, for
# double backward through a recurrence (the fused kernels above are differentiable once).
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step with ops: returns (h', c') from hx = (h, c)."""
    h, c = hx
    gates = F.linear(input, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    cy = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * cy.tanh(), cy


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step with ops: returns h'."""
    ir, iz, i_n = F.linear(input, w_ih, b_ih).chunk(3, 1)
    hr, hz, hn = F.linear(hx, w_hh, b_hh).chunk(3, 1)
    r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
    n = (i_n + r * hn).tanh()
    return (1 - z) * n + z * hx


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with ops: tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return (F.linear(input, w_ih, b_ih) + F.linear(hx, w_hh, b_hh)).tanh()


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with ops: relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return (F.linear(input, w_ih, b_ih) + F.linear(hx, w_hh, b_hh)).relu()
