"""Classify the 8x8 handwritten digits that scikit-learn ships with a small Transformer encoder.

The data (1797 grayscale 8x8 images, 10 classes) comes with scikit-learn, so nothing is downloaded.
Each image row is a token: a linear layer embeds the 8 pixels of a row, a learned positional embedding is
added, a stack of nn.TransformerEncoderLayer (batch_first=True) mixes the 8 tokens, and the mean over the tokens
goes through a linear head to the 10 classes. The script splits the data into train / validation / test sets,
trains with AdamW and a one-cycle learning-rate schedule, keeps the checkpoint with the best validation accuracy,
reloads it and reports the test accuracy.

    python examples/digits_transformer.py   # default settings (20 epochs)
    python examples/digits_transformer.py --epochs 40 --lr 1e-3 --out-dir runs/
    EXAMPLES_BACKEND=torch python examples/digits_transformer.py   # the very same code, run by PyTorch

It writes the best checkpoint (digits_transformer.pt) and the loss curve (digits_transformer_loss.png) to --out-dir
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


class DigitsTransformer(nn.Module):
    """Rows as tokens -> linear embedding + learned positions -> Transformer encoder -> mean pooling -> linear."""

    def __init__(self, row_size=8, num_rows=8, d_model=64, nhead=4, num_layers=2, dim_feedforward=128,
                 dropout=0.1, num_classes=10):
        super().__init__()
        self.embed = nn.Linear(row_size, d_model)
        self.pos_embedding = nn.Parameter(torch.zeros(1, num_rows, d_model))
        nn.init.normal_(self.pos_embedding, std=0.02)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=num_layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, x):  # x: (batch, 8 rows, 8 pixels)
        tokens = self.embed(x) + self.pos_embedding  # (batch, 8 tokens, d_model)
        encoded = self.encoder(tokens)
        return self.head(self.norm(encoded.mean(dim=1)))


def main(argv=None):
    return train_and_test(DigitsTransformer, "digits_transformer", "digits Transformer", __doc__.splitlines()[0],
                          image_shape=(8, 8),  # 8 rows of 8 pixels
                          epochs=20, batch_size=32, lr=2e-3, weight_decay=1e-4, argv=argv)


if __name__ == "__main__":
    main()
