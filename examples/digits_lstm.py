"""Classify the 8x8 handwritten digits that scikit-learn ships with an LSTM that reads each image row by row.

The data (1797 grayscale 8x8 images, 10 classes) comes with scikit-learn, so nothing is downloaded.
Each image is a sequence of 8 steps (its rows) of 8 features (the pixels of a row); the LSTM's last hidden
state goes through a linear layer to the 10 classes. The script splits the data into train / validation / test
sets, trains with AdamW and a one-cycle learning-rate schedule, keeps the checkpoint with the best validation
accuracy, reloads it and reports the test accuracy.

    python examples/digits_lstm.py   # default settings (25 epochs)
    python examples/digits_lstm.py --epochs 40 --lr 1e-3 --out-dir runs/
    EXAMPLES_BACKEND=torch python examples/digits_lstm.py   # the very same code, run by PyTorch

It writes the best checkpoint (digits_lstm.pt) and the loss curve (digits_lstm_loss.png) to --out-dir
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


class DigitsLSTM(nn.Module):
    """An LSTM over the image rows; the last step's hidden state is classified by a linear layer."""

    def __init__(self, input_size=8, hidden_size=128, num_layers=1, num_classes=10):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers=num_layers, batch_first=True)
        self.head = nn.Linear(hidden_size, num_classes)

    def forward(self, x):  # x: (batch, 8 rows, 8 pixels)
        output, (h_n, c_n) = self.lstm(x)  # h_n: (num_layers, batch, hidden_size)
        return self.head(h_n[-1])


def main(argv=None):
    return train_and_test(DigitsLSTM, "digits_lstm", "digits LSTM", __doc__.splitlines()[0],
                          image_shape=(8, 8),  # 8 rows of 8 pixels
                          epochs=25, batch_size=64, lr=1e-2, weight_decay=1e-4, argv=argv)


if __name__ == "__main__":
    main()
