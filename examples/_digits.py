"""Shared part of the digits examples (examples/digits_*.py): backend switch, data, training loop, evaluation.

Each digits_*.py script defines only its model and its default hyper-parameters and calls `train_and_test`.
The scripts import this module as `_digits`, which works however they are started (`python examples/digits_cnn.py`
from the repository root or `python digits_cnn.py` from inside examples/): Python puts a script's own folder
first on sys.path.

The data (1797 grayscale 8x8 images, 10 classes) comes with scikit-learn, so nothing is downloaded. It is split
into train / validation / test sets; the model is trained with AdamW and a one-cycle learning-rate schedule, the
checkpoint with the best validation accuracy is kept, reloaded into a fresh model and measured on the test set.
"""
import argparse
import os
import sys
import time

# The same switch as in the scripts (the models they define and this training code use the same backend).
if os.environ.get("EXAMPLES_BACKEND", "torchlite") == "torch":
    import torch  # the same scripts, run under PyTorch for comparison
else:
    import torchlite as torch

nn = torch.nn
DataLoader = torch.utils.data.DataLoader
TensorDataset = torch.utils.data.TensorDataset
random_split = torch.utils.data.random_split

try:
    from tqdm import tqdm
except ImportError:  # optional: plain prints instead of a progress bar
    tqdm = None


def parse_args(argv, description, epochs, batch_size, lr, weight_decay):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--epochs", type=int, default=epochs)
    p.add_argument("--batch-size", type=int, default=batch_size)
    p.add_argument("--lr", type=float, default=lr, help="peak learning rate of the one-cycle schedule")
    p.add_argument("--weight-decay", type=float, default=weight_decay)
    p.add_argument("--out-dir", default=".", help="where the checkpoint and the loss-curve PNG are written")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def load_digits_dataset(image_shape):
    """The digits as a TensorDataset of float images of `image_shape` (e.g. (1, 8, 8) or (8, 8)) with pixel
    values in [0, 1], and int64 labels."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("this example needs scikit-learn for its data set: pip install scikit-learn")
    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32) / 16.0  # pixel values are 0..16
    images = images.reshape(len(images), *image_shape)
    labels = torch.tensor(digits.target, dtype=torch.long)
    return TensorDataset(images, labels)


def evaluate(model, loader, criterion):
    """Mean loss and accuracy of `model` over `loader`."""
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for images, labels in loader:
            logits = model(images)
            total_loss += criterion(logits, labels).item() * labels.size(0)
            correct += (logits.argmax(dim=1) == labels).sum().item()
            count += labels.size(0)
    return total_loss / count, correct / count


def plot_losses(train_losses, val_losses, path, title):
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: no loss curve plotted")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = range(1, len(train_losses) + 1)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(epochs, train_losses, marker="o", label="train")
    ax.plot(epochs, val_losses, marker="o", label="validation")
    ax.set_xlabel("epoch")
    ax.set_ylabel("cross-entropy loss")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"loss curve written to {path}")


def train_and_test(model_class, name, title, description, *, image_shape, epochs, batch_size, lr,
                   weight_decay=1e-4, argv=None):
    """Parse the command line (`argv`, default sys.argv[1:]; the keyword arguments are the defaults of its
    options), train `model_class()` on the digits, write `<name>.pt` (best checkpoint) and `<name>_loss.png`
    (loss curve, titled `title`) to --out-dir, and return the test accuracy of the best checkpoint."""
    args = parse_args(argv, description, epochs, batch_size, lr, weight_decay)
    start = time.perf_counter()
    torch.manual_seed(args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    checkpoint_path = os.path.join(args.out_dir, name + ".pt")

    dataset = load_digits_dataset(image_shape)
    n_test = len(dataset) // 5
    n_val = len(dataset) // 10
    n_train = len(dataset) - n_val - n_test
    train_set, val_set, test_set = random_split(
        dataset, [n_train, n_val, n_test], generator=torch.Generator().manual_seed(args.seed))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=256)
    test_loader = DataLoader(test_set, batch_size=256)
    print(f"{torch.__name__}: {n_train} training, {n_val} validation, {n_test} test images")

    model = model_class()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader))

    train_losses, val_losses = [], []
    best_val_acc = -1.0
    epoch_range = range(1, args.epochs + 1)
    bar = tqdm(epoch_range, desc="training", unit="epoch") if tqdm is not None else None
    for epoch in bar if bar is not None else epoch_range:
        model.train()
        running_loss, seen = 0.0, 0
        for images, labels in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            scheduler.step()  # one-cycle schedules step once per batch
            running_loss += loss.item() * labels.size(0)
            seen += labels.size(0)
        train_losses.append(running_loss / seen)

        val_loss, val_acc = evaluate(model, val_loader, criterion)
        val_losses.append(val_loss)
        if val_acc > best_val_acc:
            best_val_acc = val_acc
            torch.save(model.state_dict(), checkpoint_path)
        stats = dict(train_loss=f"{train_losses[-1]:.4f}", val_loss=f"{val_loss:.4f}", val_acc=f"{val_acc:.4f}")
        if bar is not None:
            bar.set_postfix(stats)
        else:
            print(f"epoch {epoch}/{args.epochs}: " + ", ".join(f"{k} {v}" for k, v in stats.items()), flush=True)
    if bar is not None:
        bar.close()

    plot_losses(train_losses, val_losses, os.path.join(args.out_dir, name + "_loss.png"),
                f"{title} ({torch.__name__})")

    # Reload the best checkpoint into a fresh model and measure it on the held-out test set.
    best_model = model_class()
    best_model.load_state_dict(torch.load(checkpoint_path))
    _, test_acc = evaluate(best_model, test_loader, criterion)
    print(f"best validation accuracy: {best_val_acc:.4f} (checkpoint {checkpoint_path})")
    print(f"test accuracy: {test_acc:.4f}")
    print(f"wall time: {time.perf_counter() - start:.1f} s")
    return test_acc
