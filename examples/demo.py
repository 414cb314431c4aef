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

# a small convnet trained with torchlite.nn.functional: tell horizontal from vertical bars in 8x8 images
import torchlite.nn.functional as F

tl.manual_seed(0)
labels = tl.randint(0, 2, (64,))
images = tl.randn(64, 1, 8, 8) * 0.3
for k in range(64):
    pos = k % 8
    if labels[k].item() == 0:
        images[k, 0, pos, :] += 1.0  # a horizontal bar
    else:
        images[k, 0, :, pos] += 1.0  # a vertical bar
conv_w = (tl.randn(4, 1, 3, 3) * 0.5).requires_grad_()
conv_b = tl.zeros(4, requires_grad=True)
fc_w = (tl.randn(2, 4 * 4 * 4) * 0.1).requires_grad_()
fc_b = tl.zeros(2, requires_grad=True)
params = [conv_w, conv_b, fc_w, fc_b]


def logits(x):
    h = F.max_pool2d(F.relu(F.conv2d(x, conv_w, conv_b, padding=1)), 2)  # (N, 4, 4, 4)
    return F.linear(h.flatten(1), fc_w, fc_b)


for step in range(60):
    loss = F.cross_entropy(logits(images), labels)
    if step in (0, 59):
        print(f"convnet step {step}: loss {loss.item():.4f}")
    loss.backward()
    with tl.no_grad():
        for p in params:
            p -= 0.5 * p.grad
            p.grad = None
accuracy = (logits(images).argmax(1) == labels).float().mean().item()
print(f"convnet training accuracy: {accuracy:.2f}")
