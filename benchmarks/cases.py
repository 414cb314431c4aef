"""The benchmark cases and their targets (torchlite time / PyTorch time; lower is better).

A case builds, for one library, a Bench: a statement and its inputs. Inputs come
from NumPy once per case (same values for every library) and are copied into each
library. A case that has no meaning for a library (autograd on NumPy) builds None.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from benchmarks.libs import Library
from benchmarks.timing import Bench


@dataclass(frozen=True)
class Sizes:
    numel: int = 16 * 2**20  # the large elementwise and reduction cases
    rows: int = 4096  # sum(dim=1) of a rows x rows matrix
    matmul: tuple[int, int, int] = (256, 1024, 2048)
    mlp: tuple[int, ...] = (784, 512, 512, 10)  # layer widths, input first
    batch: int = 128
    softmax: tuple[int, int] = (4096, 1000)  # softmax, log_softmax and cross-entropy logits, rows x classes
    conv: tuple[int, int, int] = (8, 64, 56)  # conv2d: batch, channels in and out, height = width (3x3, pad 1)
    layer_norm: tuple[int, int] = (4096, 1024)  # rows x normalized features
    batch_norm: tuple[int, int, int] = (64, 64, 28)  # batch, channels, height = width
    pool: tuple[int, int, int] = (64, 64, 56)  # max/avg_pool2d 2x2: batch, channels, height = width
    blitz: int = 64  # the batch of the 60-minute blitz's CIFAR-10 net (3x32x32 images)
    lstm: tuple[int, int, int] = (64, 32, 256)  # nn.LSTM: sequence, batch, hidden (= input) size
    encoder: tuple[int, int, int, int] = (128, 16, 256, 4)  # TransformerEncoderLayer: sequence, batch, d_model, heads
    loader: tuple[int, int, int] = (8192, 784, 64)  # DataLoader over a TensorDataset: samples, features, batch
    linalg: tuple[int, int, int] = (512, 256, 512)  # n of linalg.solve, linalg.svd, linalg.eigh (n x n float32)
    fft: tuple[int, int] = (2**20, 1024)  # fft.rfft length (float32), fft.fft2 n x n (complex64)


FULL = Sizes()
# For the smoke test: every code path, meaningless numbers.
TINY = replace(FULL, numel=4096, rows=64, matmul=(8, 16, 32), mlp=(32, 16, 16, 10), batch=8, softmax=(64, 100),
               conv=(2, 4, 8), layer_norm=(16, 32), batch_norm=(4, 3, 6), pool=(2, 3, 8), blitz=2, lstm=(3, 2, 8),
               encoder=(4, 2, 8, 2), loader=(64, 4, 8), linalg=(8, 8, 8), fft=(64, 8))


class Inputs:
    """NumPy inputs made once per case from a fixed seed, shared by all libraries."""

    def __init__(self, seed: int = 0):
        self._rng = np.random.default_rng(seed)
        self._cache: dict = {}

    def get(self, key: str, make: Callable[[np.random.Generator], object]):
        if key not in self._cache:
            self._cache[key] = make(self._rng)
        return self._cache[key]

    def normal(self, key: str, shape) -> np.ndarray:
        return self.get(key, lambda rng: rng.standard_normal(shape, dtype=np.float32))


def convert(lib: Library, array: np.ndarray, requires_grad: bool = False):
    """A copy of `array` in `lib` (each library owns its memory, so in-place cases stay separate)."""
    if lib.name == "numpy":
        return array.copy()
    return lib.module.tensor(array, requires_grad=requires_grad)


def to_numpy(value) -> np.ndarray:
    if isinstance(value, np.ndarray) or np.isscalar(value):
        return np.asarray(value)
    return np.asarray(value.detach().numpy())


@dataclass
class Case:
    id: str  # "group.name", what --cases selects
    label: Callable[[Sizes], str]  # what the table shows
    target: float | None  # the bound on torchlite / PyTorch
    build: Callable[[Library, Sizes, Inputs], Bench | None] | None  # None: a special case (import)
    per_thread: bool = True  # runs at each --threads count
    notes: list[str] = field(default_factory=list)

    @property
    def group(self) -> str:
        return self.id.split(".")[0]


def _stmt_case(stmts: dict[str, str | None], make_env: Callable, has_reference: bool = True):
    """A build function for a one-statement case; `stmts` maps a library name (or "*") to its statement."""

    def build(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
        stmt = stmts.get(lib.name, stmts.get("*"))
        if stmt is None:
            return None
        env = make_env(lib, sizes, inputs)
        env["m"] = lib.module
        reference = (lambda: to_numpy(eval(stmt, dict(env)))) if has_reference else None
        return Bench(stmt, env, reference)

    return build


def _one_element(names: str, requires_grad: bool):
    def make_env(lib, sizes, inputs):
        return {name: convert(lib, inputs.normal(name, (1,)), requires_grad) for name in names}

    return make_env


def _vectors(lib, sizes, inputs):
    return {name: convert(lib, inputs.normal(name, (sizes.numel,))) for name in "ab"}


def _square(lib, sizes, inputs):
    return {"a": convert(lib, inputs.normal("square", (sizes.rows, sizes.rows)))}


def _matmul_env(which: int):
    def make_env(lib, sizes, inputs):
        n = sizes.matmul[which]
        return {name: convert(lib, inputs.normal(f"{name}{n}", (n, n))) for name in "ab"}

    return make_env


def _build_linalg(which: str):
    """linalg.solve(A, b) with a vector b, linalg.svd(A) (full matrices, the default of both libraries) or
    linalg.eigh(A + A^T): the same statement in every library (NumPy's numpy.linalg has the three). The
    libraries agree on the solution, the singular values and the eigenvalues (vectors differ in sign)."""
    index = {"solve": 0, "svd": 1, "eigh": 2}[which]

    def build(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
        n = sizes.linalg[index]
        a = inputs.normal(f"linalg_a{n}", (n, n))
        if which == "eigh":
            a = a + a.T
        env = {"a": convert(lib, a), "b": convert(lib, inputs.normal(f"linalg_b{n}", (n,))), "m": lib.module}
        stmt = {"solve": "m.linalg.solve(a, b)", "svd": "m.linalg.svd(a)", "eigh": "m.linalg.eigh(a)"}[which]
        part = {"solve": None, "svd": 1, "eigh": 0}[which]

        def reference():
            out = eval(stmt, dict(env))
            return to_numpy(out if part is None else out[part])

        return Bench(stmt, env, reference)

    return build


def _complex_normal(inputs: Inputs, key: str, shape) -> np.ndarray:
    """complex64 values whose real and imaginary parts are standard normal."""
    def make(rng):
        parts = rng.standard_normal((2,) + tuple(shape), dtype=np.float32)
        return (parts[0] + 1j * parts[1]).astype(np.complex64)

    return inputs.get(key, make)


def _complex_vectors(lib, sizes, inputs):
    return {name: convert(lib, _complex_normal(inputs, f"c{name}{sizes.numel}", (sizes.numel,))) for name in "ab"}


def _fft_env(which: str):
    """fft.rfft of a float32 signal of sizes.fft[0] points, or fft.fft2 of a complex64 sizes.fft[1] square."""
    def make_env(lib, sizes, inputs):
        if which == "rfft":
            return {"a": convert(lib, inputs.normal(f"signal{sizes.fft[0]}", (sizes.fft[0],)))}
        n = sizes.fft[1]
        return {"a": convert(lib, _complex_normal(inputs, f"image{n}", (n, n)))}

    return make_env


def _random_env(lib, sizes, inputs):
    """A float32 vector to fill, and for NumPy a Generator (its Philox, as torchlite's and PyTorch's)."""
    return {"a": convert(lib, inputs.normal("a", (sizes.numel,))), "rng": np.random.Generator(np.random.Philox(0))}


def _millions(numel: int) -> str:
    return f"{numel // 2**20}M" if numel % 2**20 == 0 else str(numel)


# ---- nn.functional ---------------------------------------------------------------------------

# NumPy's softmax and log_softmax along dim 1, as one expression each (the statement of the NumPy column).
NUMPY_NN = {
    "softmax": "(lambda e: e / e.sum(1, keepdims=True))(m.exp(a - a.max(1, keepdims=True)))",
    "log_softmax": "(lambda z: z - m.log(m.exp(z).sum(1, keepdims=True)))(a - a.max(1, keepdims=True))",
}


def _logits(lib, sizes, inputs):
    return {"a": convert(lib, inputs.normal("logits", sizes.softmax))}


def _nn_forward_backward(fn: str):
    """`fn(a, 1)` and its backward from a fixed upstream gradient; the gradient is the reference."""

    def build(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
        if lib.name == "numpy":  # no autograd
            return None
        a = convert(lib, inputs.normal("logits", sizes.softmax), requires_grad=True)
        g = convert(lib, inputs.normal("upstream", sizes.softmax))
        f = getattr(lib.module, fn)

        def step():
            f(a, 1).backward(g)
            grad = a.grad
            a.grad = None
            return grad

        return Bench("step()", {"step": step}, lambda: to_numpy(step()))

    return build


def _build_cross_entropy(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
    """cross_entropy of the logits against class indices, forward and backward; the gradient is the reference."""
    if lib.name == "numpy":  # no autograd
        return None
    a = convert(lib, inputs.normal("logits", sizes.softmax), requires_grad=True)
    classes = inputs.get("classes", lambda rng: rng.integers(0, sizes.softmax[1], size=sizes.softmax[0]))
    target = lib.module.tensor(classes)
    cross_entropy = lib.module.nn.functional.cross_entropy

    def step():
        cross_entropy(a, target).backward()
        grad = a.grad
        a.grad = None
        return grad

    return Bench("step()", {"step": step}, lambda: to_numpy(step()))


def _build_conv2d(backward: bool):
    """conv2d with bias, 3x3, padding 1; with backward, the gradients of input, weight and bias (the weight's is
    the reference)."""

    def build(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
        if lib.name == "numpy":  # no convolution
            return None
        n, c, hw = sizes.conv
        x = convert(lib, inputs.normal("conv_x", (n, c, hw, hw)), requires_grad=backward)
        w = convert(lib, inputs.get("conv_w", lambda rng: (0.05 * rng.standard_normal((c, c, 3, 3))).astype(np.float32)),
                    requires_grad=backward)
        b = convert(lib, inputs.normal("conv_b", (c,)), requires_grad=backward)
        conv2d = lib.module.nn.functional.conv2d
        if not backward:
            return Bench("conv2d(x, w, b, padding=1)", {"conv2d": conv2d, "x": x, "w": w, "b": b},
                         lambda: to_numpy(conv2d(x, w, b, padding=1)))

        def step():
            conv2d(x, w, b, padding=1).sum().backward()
            grad = w.grad
            x.grad = w.grad = b.grad = None
            return grad

        return Bench("step()", {"step": step}, lambda: to_numpy(step()))

    return build


def _grad_step(f, inputs: list, reference_input):
    """f(*inputs) then its backward from ones (sum()); grads set to None after; the gradient of
    reference_input is the reference."""

    def step():
        f(*inputs).sum().backward()
        grad = reference_input.grad
        for t in inputs:
            t.grad = None
        return grad

    return Bench("step()", {"step": step}, lambda: to_numpy(step()))


def _build_layer_norm(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
    """layer_norm over the last dim with weight and bias, forward and backward (the input's gradient is the
    reference)."""
    if lib.name == "numpy":  # no autograd
        return None
    rows, n = sizes.layer_norm
    x = convert(lib, inputs.normal("ln_x", (rows, n)), requires_grad=True)
    w = convert(lib, inputs.get("ln_w", lambda rng: rng.uniform(0.5, 1.5, n).astype(np.float32)), requires_grad=True)
    b = convert(lib, inputs.normal("ln_b", (n,)), requires_grad=True)
    layer_norm = lib.module.nn.functional.layer_norm
    g = convert(lib, inputs.normal("ln_g", (rows, n)))
    return _grad_step(lambda x, w, b: layer_norm(x, (n,), w, b) * g, [x, w, b], x)


def _build_batch_norm(backward: bool):
    """batch_norm in training mode (batch statistics, running statistics updated) with weight and bias; with
    backward, the gradients of input, weight and bias (the input's is the reference)."""

    def build(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
        if lib.name == "numpy":  # no batch norm
            return None
        n, c, hw = sizes.batch_norm
        x = convert(lib, inputs.normal("bn_x", (n, c, hw, hw)), requires_grad=backward)
        w = convert(lib, inputs.get("bn_w", lambda rng: rng.uniform(0.5, 1.5, c).astype(np.float32)),
                    requires_grad=backward)
        b = convert(lib, inputs.normal("bn_b", (c,)), requires_grad=backward)
        rm, rv = lib.module.zeros(c), lib.module.ones(c)
        batch_norm = lib.module.nn.functional.batch_norm
        if not backward:
            return Bench("batch_norm(x, rm, rv, w, b, training=True)",
                         {"batch_norm": batch_norm, "x": x, "rm": rm, "rv": rv, "w": w, "b": b},
                         lambda: to_numpy(batch_norm(x, rm, rv, w, b, training=True)))
        g = convert(lib, inputs.normal("bn_g", (n, c, hw, hw)))
        return _grad_step(lambda x, w, b: batch_norm(x, rm, rv, w, b, training=True) * g, [x, w, b], x)

    return build


def _build_pool(fn: str):
    """max_pool2d or avg_pool2d, 2x2, stride 2."""

    def build(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
        if lib.name == "numpy":  # no pooling
            return None
        n, c, hw = sizes.pool
        x = convert(lib, inputs.normal("pool_x", (n, c, hw, hw)))
        pool = getattr(lib.module.nn.functional, fn)
        return Bench(f"{fn}(x, 2)", {fn: pool, "x": x}, lambda: to_numpy(pool(x, 2)))

    return build


def blitz_step_function(m, x, target, params: list, lr: float) -> Callable:
    """One SGD step of the CIFAR-10 net of PyTorch's 60-minute blitz, written with nn.functional: conv 3->6
    5x5, relu, max_pool 2, conv 6->16 5x5, relu, max_pool 2, flatten, fc 120, relu, fc 84, relu, fc 10,
    cross_entropy. Works for torchlite and PyTorch alike."""
    F = m.nn.functional
    c1, c1b, c2, c2b, f1, f1b, f2, f2b, f3, f3b = params

    def step():
        h = F.max_pool2d(F.relu(F.conv2d(x, c1, c1b)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, c2, c2b)), 2)
        h = h.reshape(h.shape[0], -1)
        h = F.relu(F.linear(h, f1, f1b))
        h = F.relu(F.linear(h, f2, f2b))
        loss = F.cross_entropy(F.linear(h, f3, f3b), target)
        return sgd_update(m, loss, params, lr)

    return step


def _build_blitz(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
    if lib.name == "numpy":  # no autograd
        return None
    shapes = [(6, 3, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 400), (120,), (84, 120), (84,), (10, 84), (10,)]

    def make(rng):
        arrays = {"x": rng.standard_normal((sizes.blitz, 3, 32, 32), dtype=np.float32),
                  "y": rng.integers(0, 10, sizes.blitz)}
        for i, shape in enumerate(shapes):
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(np.prod(shapes[i - 1][1:]))
            bound = 1 / np.sqrt(fan_in)  # nn.Conv2d's and nn.Linear's default bound
            arrays[i] = rng.uniform(-bound, bound, shape).astype(np.float32)
        return arrays

    arrays = inputs.get("blitz", make)

    def make_step():
        params = [convert(lib, arrays[i], requires_grad=True) for i in range(len(shapes))]
        return blitz_step_function(lib.module, convert(lib, arrays["x"]), lib.module.tensor(arrays["y"]), params,
                                   MLP_LR)

    def reference() -> np.ndarray:  # the losses of the first steps from the shared init, on fresh weights
        step = make_step()
        return np.array([float(step().item()) for _ in range(MLP_CHECK_STEPS)])

    return Bench("step()", {"step": make_step()}, reference)


def _conv_label(what: str):
    return lambda s: f"{what}, {s.conv[1]}→{s.conv[1]} 3×3, {s.conv[2]}×{s.conv[2]}, batch {s.conv[0]} float32"


def _softmax_label(what: str):
    return lambda s: f"{what}, {s.softmax[0]}×{s.softmax[1]} float32"


# ---- the MLP training step -------------------------------------------------------------------

MLP_LR = 0.01
MLP_CHECK_STEPS = 3


def _mlp_arrays(sizes: Sizes, inputs: Inputs) -> dict[str, np.ndarray]:
    def make(rng: np.random.Generator) -> dict[str, np.ndarray]:
        arrays = {"x": rng.standard_normal((sizes.batch, sizes.mlp[0]), dtype=np.float32)}
        labels = rng.integers(0, sizes.mlp[-1], sizes.batch)
        arrays["y"] = np.eye(sizes.mlp[-1], dtype=np.float32)[labels]  # one-hot targets
        for i, (fan_in, fan_out) in enumerate(zip(sizes.mlp[:-1], sizes.mlp[1:]), start=1):
            bound = 1 / np.sqrt(fan_in)  # nn.Linear's default init
            arrays[f"w{i}"] = rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32)
            arrays[f"b{i}"] = rng.uniform(-bound, bound, fan_out).astype(np.float32)
        return arrays

    return inputs.get("mlp", make)


def sgd_update(m, loss, params: list, lr: float):
    """loss.backward(), then p -= lr * p.grad under no_grad and the gradients reset to None; returns loss."""
    loss.backward()
    with m.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
    return loss


def mlp_step_function(m, x, y, params: list, lr: float) -> Callable:
    """One training step of the MLP in `params` (w1, b1, w2, b2, ...) on batch x with one-hot targets y.

    ReLU between layers; cross-entropy as log-softmax (x - logsumexp) against the one-hot target;
    manual SGD under no_grad; gradients reset to None. Works for torchlite and PyTorch alike.
    """
    layers = list(zip(params[0::2], params[1::2]))
    relu, logsumexp = m.relu, m.logsumexp

    def step():
        h = x
        for w, b in layers[:-1]:
            h = relu(h @ w + b)
        w, b = layers[-1]
        logits = h @ w + b
        log_probs = logits - logsumexp(logits, dim=1, keepdim=True)
        loss = -(log_probs * y).sum(dim=1).mean()
        return sgd_update(m, loss, params, lr)

    return step


def _build_mlp(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
    if lib.name == "numpy":  # no autograd
        return None
    arrays = _mlp_arrays(sizes, inputs)
    param_names = [f"{kind}{i}" for i in range(1, len(sizes.mlp)) for kind in "wb"]

    def make_step():
        params = [convert(lib, arrays[name], requires_grad=True) for name in param_names]
        return mlp_step_function(lib.module, convert(lib, arrays["x"]), convert(lib, arrays["y"]), params, MLP_LR)

    def reference() -> np.ndarray:  # the losses of the first steps from the shared init, on fresh weights
        step = make_step()
        return np.array([float(step().item()) for _ in range(MLP_CHECK_STEPS)])

    return Bench("step()", {"step": make_step()}, reference)


def _mlp_parameter_count(sizes: Sizes) -> int:
    return sum(a * b + b for a, b in zip(sizes.mlp[:-1], sizes.mlp[1:]))


def _mlp_label(sizes: Sizes) -> str:
    return f"MLP train step {'-'.join(map(str, sizes.mlp))}, batch {sizes.batch}"


# ---- training with nn modules and optimizers ---------------------------------------------------

def _load_weights(lib: Library, model, arrays: dict[str, np.ndarray]):
    """Loads the shared initial weights (NumPy arrays by state_dict key) into a library's model."""
    model.load_state_dict({k: lib.module.tensor(v) for k, v in arrays.items()})
    return model


def _shared_weights(inputs: Inputs, key: str, lib: Library, make_model):
    """The initial weights every library starts from: one model's init (from whichever library builds
    first), kept as NumPy arrays."""
    return inputs.get(key, lambda rng: {k: to_numpy(v).copy() for k, v in make_model(lib.module).state_dict().items()})


def _mlp_module(m, sizes: Sizes):
    layers = []
    for i, (a, b) in enumerate(zip(sizes.mlp[:-1], sizes.mlp[1:])):
        layers.append(m.nn.Linear(a, b))
        if i < len(sizes.mlp) - 2:
            layers.append(m.nn.ReLU())
    return m.nn.Sequential(*layers)


def _build_module_mlp(optimizer: str):
    def build(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
        if lib.name == "numpy":
            return None
        m = lib.module
        weights = _shared_weights(inputs, "mlp_module", lib, lambda mod: _mlp_module(mod, sizes))
        rng_arrays = inputs.get("mlp_module_batch", lambda rng: {
            "x": rng.standard_normal((sizes.batch, sizes.mlp[0]), dtype=np.float32),
            "y": rng.integers(0, sizes.mlp[-1], sizes.batch)})

        def make_step():
            model = _load_weights(lib, _mlp_module(m, sizes), weights)
            opt = (m.optim.SGD(model.parameters(), lr=MLP_LR, momentum=0.9) if optimizer == "sgd"
                   else m.optim.AdamW(model.parameters(), lr=1e-3))
            loss_fn = m.nn.CrossEntropyLoss()
            x, y = convert(lib, rng_arrays["x"]), m.tensor(rng_arrays["y"])

            def step():
                opt.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
                return loss

            return step

        def reference() -> np.ndarray:
            step = make_step()
            return np.array([float(step().item()) for _ in range(MLP_CHECK_STEPS)])

        return Bench("step()", {"step": make_step()}, reference)

    return build


OPTIMIZERS = {  # the optimizer-step cases: constructor arguments besides lr
    "SGD": {"momentum": 0.9}, "Adam": {}, "AdamW": {}, "Adagrad": {}, "RMSprop": {}, "Adadelta": {}, "Adamax": {},
    "NAdam": {}, "RAdam": {}, "ASGD": {}, "Rprop": {},
}


def _build_optimizer_step(name: str):
    """optimizer.step() alone over the MLP's parameters with fixed gradients."""
    def build(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
        if lib.name == "numpy":
            return None
        m = lib.module
        shapes = [s for a, b in zip(sizes.mlp[:-1], sizes.mlp[1:]) for s in ((b, a), (b,))]
        arrays = inputs.get("optim_step", lambda rng: [
            (rng.standard_normal(s, dtype=np.float32), rng.standard_normal(s, dtype=np.float32)) for s in shapes])

        def make():
            params = []
            for value, grad in arrays:
                p = m.nn.Parameter(m.tensor(value))
                p.grad = m.tensor(grad)
                params.append(p)
            return params, getattr(m.optim, name)(params, lr=1e-3, **OPTIMIZERS[name])

        def reference() -> np.ndarray:  # the parameters after a few steps from the shared values
            params, opt = make()
            for _ in range(3):
                opt.step()
            return np.concatenate([to_numpy(p.detach()).ravel() for p in params])

        params, opt = make()
        return Bench("opt.step()", {"opt": opt}, reference)

    return build


def _build_lstm(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
    if lib.name == "numpy":
        return None
    m = lib.module
    T, B, H = sizes.lstm
    weights = _shared_weights(inputs, "lstm", lib, lambda mod: mod.nn.LSTM(H, H))
    x_np = inputs.normal("lstm_x", (T, B, H))
    model = _load_weights(lib, m.nn.LSTM(H, H), weights)
    x = convert(lib, x_np, requires_grad=True)

    def step():
        out, (h, c) = model(x)
        (out.sum() + h.sum()).backward()
        grad = x.grad
        x.grad = None
        model.zero_grad()
        return grad

    return Bench("step()", {"step": step}, lambda: to_numpy(step()))


def _build_encoder(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
    if lib.name == "numpy" or not hasattr(lib.module.nn, "TransformerEncoderLayer"):
        return None
    m = lib.module
    T, B, D, heads = sizes.encoder

    def make(mod):
        return mod.nn.TransformerEncoderLayer(D, heads, dim_feedforward=4 * D, dropout=0.0)

    weights = _shared_weights(inputs, "encoder", lib, make)
    model = _load_weights(lib, make(m), weights)
    x = convert(lib, inputs.normal("encoder_x", (T, B, D)), requires_grad=True)

    def step():
        model(x).sum().backward()
        grad = x.grad
        x.grad = None
        model.zero_grad()
        return grad

    return Bench("step()", {"step": step}, lambda: to_numpy(step()))


def _build_loader(workers: int):
    def build(lib: Library, sizes: Sizes, inputs: Inputs) -> Bench | None:
        if lib.name == "numpy":
            return None
        m = lib.module
        n, features, batch = sizes.loader
        arrays = inputs.get("loader", lambda rng: {"x": rng.standard_normal((n, features), dtype=np.float32),
                                                   "y": rng.integers(0, 10, n)})
        data = m.utils.data.TensorDataset(m.tensor(arrays["x"]), m.tensor(arrays["y"]))
        loader = m.utils.data.DataLoader(data, batch_size=batch, shuffle=False, num_workers=workers,
                                         persistent_workers=workers > 0)

        def epoch():
            total = 0.0
            for x, _ in loader:
                total += float(x[0, 0])
            return total

        return Bench("epoch()", {"epoch": epoch}, lambda: np.array(epoch()))

    return build


# ---- the table of cases ----------------------------------------------------------------------

OUT_OF_PLACE = 0.7
INPLACE_AND_REDUCTIONS = 1.0

CASES: list[Case] = [
    Case("overhead.add", lambda s: "`a + b`, 1 element", 0.5,
         _stmt_case({"*": "a + b"}, _one_element("ab", False))),
    Case("overhead.add_requires_grad", lambda s: "`a + b`, 1 element, requires_grad", 0.5,
         _stmt_case({"*": "a + b", "numpy": None}, _one_element("ab", True)),
         notes=["a and b both require grad, so each call records a graph node"]),
    Case("overhead.forward_backward", lambda s: "`(a*b+c).sum().backward()`, 1 element", 0.3,
         _stmt_case({"*": "(a * b + c).sum().backward()", "numpy": None}, _one_element("abc", True),
                    has_reference=False),
         notes=["a, b, c require grad; their .grad accumulates across calls"]),
    Case("elementwise.add", lambda s: f"`a + b`, {_millions(s.numel)} float32", OUT_OF_PLACE,
         _stmt_case({"*": "a + b"}, _vectors)),
    Case("elementwise.mul", lambda s: f"`a * b`, {_millions(s.numel)} float32", OUT_OF_PLACE,
         _stmt_case({"*": "a * b"}, _vectors)),
    Case("elementwise.exp", lambda s: f"`exp(a)`, {_millions(s.numel)} float32", OUT_OF_PLACE,
         _stmt_case({"*": "m.exp(a)"}, _vectors)),
    Case("elementwise.relu", lambda s: f"`relu(a)`, {_millions(s.numel)} float32", OUT_OF_PLACE,
         _stmt_case({"*": "m.relu(a)", "numpy": "m.maximum(a, 0)"}, _vectors),
         notes=["NumPy: np.maximum(a, 0)"]),
    Case("elementwise.iadd", lambda s: f"`a += b`, {_millions(s.numel)} float32", INPLACE_AND_REDUCTIONS,
         _stmt_case({"*": "a += b"}, _vectors, has_reference=False)),
    Case("reduction.sum", lambda s: f"`a.sum()`, {_millions(s.numel)} float32", INPLACE_AND_REDUCTIONS,
         _stmt_case({"*": "a.sum()"}, _vectors)),
    Case("reduction.max", lambda s: f"`a.max()`, {_millions(s.numel)} float32", INPLACE_AND_REDUCTIONS,
         _stmt_case({"*": "a.max()"}, _vectors)),
    Case("reduction.mean", lambda s: f"`a.mean()`, {_millions(s.numel)} float32", INPLACE_AND_REDUCTIONS,
         _stmt_case({"*": "a.mean()"}, _vectors)),
    Case("reduction.sum_dim1", lambda s: f"`a.sum(dim=1)`, {s.rows}×{s.rows} float32", INPLACE_AND_REDUCTIONS,
         _stmt_case({"*": "a.sum(dim=1)", "numpy": "a.sum(axis=1)"}, _square)),
    Case("random.uniform", lambda s: f"`a.uniform_()`, {_millions(s.numel)} float32", INPLACE_AND_REDUCTIONS,
         _stmt_case({"*": "a.uniform_()", "numpy": "rng.random(out=a, dtype=m.float32)"}, _random_env,
                    has_reference=False),
         notes=["draws differ between libraries (no reference); NumPy: Generator(Philox).random(out=a)"]),
    Case("random.normal", lambda s: f"`a.normal_()`, {_millions(s.numel)} float32", INPLACE_AND_REDUCTIONS,
         _stmt_case({"*": "a.normal_()", "numpy": "rng.standard_normal(out=a, dtype=m.float32)"}, _random_env,
                    has_reference=False),
         notes=["NumPy: Generator(Philox).standard_normal(out=a)"]),
    Case("random.bernoulli", lambda s: f"`a.bernoulli_(0.3)`, {_millions(s.numel)} float32", INPLACE_AND_REDUCTIONS,
         _stmt_case({"*": "a.bernoulli_(0.3)", "numpy": "m.less(rng.random(a.shape), 0.3, out=a, casting='unsafe')"},
                    _random_env, has_reference=False),
         notes=["NumPy: a float64 uniform draw compared with p, cast into a"]),
    *[
        Case(f"matmul.{n}", lambda s, i=i: f"`a @ b`, {s.matmul[i]}×{s.matmul[i]} float32", 1.05,
             _stmt_case({"*": "a @ b"}, _matmul_env(i)))
        for i, n in enumerate(FULL.matmul)
    ],
    Case("linalg.solve", lambda s: f"`linalg.solve(a, b)`, {s.linalg[0]}×{s.linalg[0]} float32, vector b", 1.2,
         _build_linalg("solve")),
    Case("linalg.svd", lambda s: f"`linalg.svd(a)`, {s.linalg[1]}×{s.linalg[1]} float32", 1.2, _build_linalg("svd")),
    Case("linalg.eigh", lambda s: f"`linalg.eigh(a)`, {s.linalg[2]}×{s.linalg[2]} float32 symmetric", 1.2,
         _build_linalg("eigh")),
    Case("fft.rfft", lambda s: f"`fft.rfft(a)`, {_millions(s.fft[0])} float32", 1.2,
         _stmt_case({"*": "m.fft.rfft(a)"}, _fft_env("rfft")),
         notes=["NumPy's pocketfft computes in float64 (a complex128 result)"]),
    Case("fft.fft2", lambda s: f"`fft.fft2(a)`, {s.fft[1]}×{s.fft[1]} complex64", 1.2,
         _stmt_case({"*": "m.fft.fft2(a)"}, _fft_env("fft2")),
         notes=["NumPy's pocketfft computes in complex128"]),
    Case("elementwise.cmul", lambda s: f"`a * b`, {_millions(s.numel)} complex64", 1.0,
         _stmt_case({"*": "a * b"}, _complex_vectors)),
    *[
        Case(f"nn.{fn}", _softmax_label(f"`{fn}(a, 1)`"), 0.8,
             _stmt_case({"*": f"m.{fn}(a, 1)", "numpy": NUMPY_NN[fn]}, _logits),
             notes=[f"NumPy: {NUMPY_NN[fn]}"])
        for fn in ("softmax", "log_softmax")
    ],
    *[
        Case(f"nn.{fn}_backward", _softmax_label(f"`{fn}(a, 1).backward(g)`"), 0.8, _nn_forward_backward(fn),
             notes=["forward and backward, a.grad set to None after each; NumPy: no autograd, skipped"])
        for fn in ("softmax", "log_softmax")
    ],
    Case("nn.cross_entropy_backward", _softmax_label("`cross_entropy(a, target).backward()`"), 0.7,
         _build_cross_entropy, notes=["class-index targets, mean reduction; a.grad set to None after each; "
                                      "NumPy: no autograd, skipped"]),
    Case("nn.conv2d", _conv_label("`conv2d(x, w, b, padding=1)`"), 1.0, _build_conv2d(False),
         notes=["NumPy: no convolution, skipped"]),
    Case("nn.conv2d_backward", _conv_label("`conv2d(...).sum().backward()`"), 1.0, _build_conv2d(True),
         notes=["x, w, b require grad; grads set to None after each; NumPy: skipped"]),
    Case("nn.layer_norm_backward",
         lambda s: f"`layer_norm(x, ({s.layer_norm[1]},), w, b)` and backward, {s.layer_norm[0]}×{s.layer_norm[1]} float32",
         1.0, _build_layer_norm, notes=["x, w, b require grad; upstream gradient fixed; grads set to None after each; "
                                        "NumPy: skipped"]),
    Case("nn.batch_norm", lambda s: f"`batch_norm(x, rm, rv, w, b, training=True)`, "
                                    f"{s.batch_norm[0]}×{s.batch_norm[1]}×{s.batch_norm[2]}×{s.batch_norm[2]} float32",
         1.0, _build_batch_norm(False), notes=["running statistics updated in place; NumPy: skipped"]),
    Case("nn.batch_norm_backward", lambda s: f"`batch_norm(..., training=True)` and backward, "
                                             f"{s.batch_norm[0]}×{s.batch_norm[1]}×{s.batch_norm[2]}×{s.batch_norm[2]} "
                                             "float32",
         1.0, _build_batch_norm(True), notes=["x, w, b require grad; grads set to None after each; NumPy: skipped"]),
    *[
        Case(f"nn.{fn}", lambda s, fn=fn: f"`{fn}(x, 2)`, {s.pool[0]}×{s.pool[1]}×{s.pool[2]}×{s.pool[2]} float32",
             1.0, _build_pool(fn), notes=["NumPy: no pooling, skipped"])
        for fn in ("max_pool2d", "avg_pool2d")
    ],
    Case("nn.blitz_step", lambda s: f"60-minute blitz CIFAR-10 net train step, batch {s.blitz}", 1.0, _build_blitz,
         notes=["conv 3→6 5×5, pool, conv 6→16 5×5, pool, fc 120/84/10, cross_entropy, SGD (lr "
                f"{MLP_LR}) under no_grad, grads set to None; written with nn.functional; NumPy: skipped"]),
    Case("mlp.step", _mlp_label, 1.0, _build_mlp,
         notes=["forward, log-softmax cross-entropy against one-hot targets, backward, "
                f"SGD (lr {MLP_LR}) under no_grad, grads set to None; NumPy: no autograd, skipped"]),
    Case("train.mlp_sgd", lambda s: f"nn.Linear MLP {'-'.join(map(str, s.mlp))} + CrossEntropyLoss + SGD(momentum) "
                                    f"step, batch {s.batch}", 1.0, _build_module_mlp("sgd"),
         notes=["zero_grad, forward, loss, backward, optimizer step; same initial weights; NumPy: skipped"]),
    Case("train.mlp_adamw", lambda s: f"the same MLP step with AdamW, batch {s.batch}", 0.8,
         _build_module_mlp("adamw"), notes=["NumPy: skipped"]),
    *[
        Case(f"train.optim_{name.lower()}", lambda s, name=name: f"optim.{name} step over the MLP's "
                                                                 f"{_mlp_parameter_count(s)} float32 parameters",
             1.0, _build_optimizer_step(name),
             notes=[f"{kw or 'defaults'}, lr 1e-3; fixed gradients; NumPy: skipped"])
        for name, kw in OPTIMIZERS.items()
    ],
    Case("train.lstm", lambda s: f"nn.LSTM({s.lstm[2]}, {s.lstm[2]}) forward+backward, sequence {s.lstm[0]}, "
                                 f"batch {s.lstm[1]}", 1.0, _build_lstm,
         notes=["1 layer; output.sum() + h_n.sum() backward, gradients of the input and every weight; NumPy: skipped"]),
    Case("train.encoder_layer", lambda s: f"nn.TransformerEncoderLayer(d_model {s.encoder[2]}, {s.encoder[3]} heads) "
                                          f"forward+backward, sequence {s.encoder[0]}, batch {s.encoder[1]}", 1.0,
         _build_encoder, notes=["dim_feedforward 4×d_model, dropout 0; NumPy: skipped"]),
    *[
        Case(f"train.dataloader_{w}", lambda s, w=w: f"DataLoader over a TensorDataset {s.loader[0]}×{s.loader[1]}, "
                                                     f"batch {s.loader[2]}, num_workers={w}, one epoch", 1.0,
             _build_loader(w), notes=["persistent workers (started once, outside the timing); NumPy: skipped"])
        for w in (0, 2)
    ],
    Case("import.import", lambda s: "`import` (fresh process)", 0.2, None, per_thread=False,
         notes=["median of the in-process time of `import X` in fresh interpreters"]),
]


def select(spec: str | None) -> list[Case]:
    """The cases that `--cases` names: comma-separated groups, ids, or substrings of ids.

    A token that is a whole id selects that case only (`overhead.add` is not `overhead.add_requires_grad`).
    """
    if not spec:
        return list(CASES)
    tokens = [token.strip() for token in spec.split(",") if token.strip()]
    ids = {case.id for case in CASES}

    def matches(token: str, case: Case) -> bool:
        if token in ids:
            return token == case.id
        return token == case.group or token in case.id

    unmatched = [token for token in tokens if not any(matches(token, case) for case in CASES)]
    if unmatched or not tokens:
        known = ", ".join(case.id for case in CASES)
        raise SystemExit(f"--cases: nothing matches {', '.join(unmatched) or repr(spec)}; cases are: {known}")
    return [case for case in CASES if any(matches(token, case) for token in tokens)]
