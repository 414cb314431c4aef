"""A short tour of torchlite: tensors, broadcasting, dtypes, views, reductions, matmul, autograd."""
import torchlite as tl

x = tl.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
print("x =", x)
print("x.shape =", x.shape, " x.dtype =", x.dtype)
print("x + 1 =", x + 1)
print("x * [10, 20, 30] (broadcast) =", x * tl.tensor([10.0, 20.0, 30.0]))
print("add with alpha: x + 2 * x =", tl.add(x, x, alpha=2))
print("sigmoid(x) =", x.sigmoid())
print("sum over dim 1 =", x.sum(1), " total =", x.sum().item())
print("x @ x^T =", tl.mm(x, x.transpose(0, 1)))
v = x.view(3, 2)
v.mul_(10)  # writes through the view
print("after v.mul_(10), x =", x, " versions:", x._version, v._version, " v._base is x:", v._base is x)
i = tl.ones(2, 3, dtype=tl.int32)
print("int32 + 2.5 promotes like PyTorch:", (i + 2.5).dtype, "; int32 + 1 stays", (i + 1).dtype)
print("numpy interop:", x.numpy().sum(), tl.tensor(x.numpy()).tolist())
print("CUDA available:", tl.cuda.is_available(), " built with CUDA:", tl.version.cuda)
if tl.cuda.is_available():
    xc = x.cuda()
    print(tl.cuda.get_device_name(), ":", (xc @ xc.t()).sigmoid().sum(1), "->", (xc * 2).cpu().tolist())

# autograd: formulas from native_functions.yaml, run by the C++ engine
w = tl.tensor([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]], requires_grad=True)
loss = (tl.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]) @ w).relu().sum()
loss.backward()
print("loss =", loss, " grad_fn:", loss.grad_fn.name(), " w.grad =", w.grad)
print("gradcheck(sin * exp):", tl.autograd.gradcheck(lambda t: t.sin() * t.exp(),
                                                    (tl.randn(3, dtype=tl.float64, requires_grad=True),)))
