"""Hogwild: several processes train one model in shared memory, without locks, on scikit-learn's 8x8 digits.

The pattern of PyTorch's mnist_hogwild example: the model's parameters are moved to shared memory
(`model.share_memory()`), then each process runs its own optimizer on its own share of the training set,
writing into the same parameters; the parent then measures the model on the test set. Processes are started
with `torch.multiprocessing` (here torchlite.multiprocessing), which sends the model and the data to spawned
processes as shared memory, not copies.

    python examples/digits_hogwild.py                      # 2 processes, spawned
    python examples/digits_hogwild.py --processes 4 --start-method fork
    EXAMPLES_BACKEND=torch python examples/digits_hogwild.py   # the very same code, run by PyTorch

Needs scikit-learn for its data set.
"""
import argparse
import os
import time

if os.environ.get("EXAMPLES_BACKEND", "torchlite") == "torch":
    import torch  # the same script, run under PyTorch for comparison
    import torch.multiprocessing as mp
else:
    import torchlite as torch
    import torchlite.multiprocessing as mp

from _digits import load_digits_dataset  # the data, as the other digits examples load it

nn = torch.nn
F = torch.nn.functional


class DigitsMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def train(rank, model, images, labels, epochs, lr, seed):
    """One process: SGD on its own share of the data, straight into the shared parameters."""
    torch.set_num_threads(1)  # the processes are the parallelism
    torch.manual_seed(seed + rank)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.5)
    n = len(images)
    for _ in range(epochs):
        for idx in torch.randperm(n).split(32):
            opt.zero_grad()
            F.cross_entropy(model(images[idx]), labels[idx]).backward()
            opt.step()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--start-method", default="spawn", choices=mp.get_all_start_methods())
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    torch.manual_seed(args.seed)
    data = load_digits_dataset((64,))
    images, labels = data.tensors
    order = torch.randperm(len(images))
    test, train_idx = order[:360], order[360:]
    model = DigitsMLP()
    model.share_memory()  # every process writes into these parameters

    ctx = mp.get_context(args.start_method)
    start = time.time()
    shares = train_idx.chunk(args.processes)
    procs = [ctx.Process(target=train, args=(rank, model, images[share], labels[share], args.epochs, args.lr,
                                             args.seed))
             for rank, share in enumerate(shares)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            raise SystemExit(f"a training process failed (exit code {proc.exitcode})")
    with torch.no_grad():
        accuracy = (model(images[test]).argmax(1) == labels[test]).float().mean().item()
    print(f"{args.processes} processes ({args.start_method}), {args.epochs} epochs each on its share: "
          f"{time.time() - start:.1f} s")
    print(f"test accuracy: {accuracy:.4f}")


if __name__ == "__main__":
    main()
