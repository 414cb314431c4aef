"""Train a small convolutional network on the 8x8 handwritten digits that scikit-learn ships.

The data (1797 grayscale 8x8 images, 10 classes) comes with scikit-learn, so nothing is downloaded.
The script splits it into train / validation / test sets, trains with AdamW and a one-cycle learning-rate
schedule, keeps the checkpoint with the best validation accuracy, reloads it and reports the test accuracy.

    python examples/digits_cnn.py   # default settings (12 epochs)
    python examples/digits_cnn.py --epochs 40 --lr 1e-3 --out-dir runs/
    EXAMPLES_BACKEND=torch python examples/digits_cnn.py   # the very same code, run by PyTorch

It writes the best checkpoint (digits_cnn.pt) and the loss curve (digits_cnn_loss.png) to --out-dir
(default: the current directory). Needs scikit-learn; uses tqdm (progress bar) and matplotlib (loss curve
PNG) when they are installed.
"""
import os

if os.environ.get("EXAMPLES_BACKEND", "torchlite") == "torch":
    import torch  # the same script, run under PyTorch for comparison
else:
    import torchlite as torch

from _digits import train_and_test  # data, training loop, evaluation, checkpoint and plot shared by digits_*.py

nn = torch.nn


class DigitsCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, kernel_size=3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.Conv2d(32, 32, kernel_size=3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),  # 8x8 -> 4x4
            nn.Conv2d(32, 64, kernel_size=3, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(),
            nn.MaxPool2d(2),  # 4x4 -> 2x2
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(0.3),
            nn.Linear(64 * 2 * 2, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def main(argv=None):
    return train_and_test(DigitsCNN, "digits_cnn", "digits CNN", __doc__.splitlines()[0],
                          image_shape=(1, 8, 8),  # one channel of 8x8 pixels
                          epochs=12, batch_size=64, lr=3e-3, weight_decay=1e-4, argv=argv)


if __name__ == "__main__":
    main()
