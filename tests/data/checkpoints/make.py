"""Writes the PyTorch checkpoints that tests/test_serialization.py loads without PyTorch. Run with PyTorch
installed: python3 tests/data/checkpoints/make.py (the values are deterministic: aranges, not random)."""
import os
from collections import OrderedDict

import torch

here = os.path.dirname(os.path.abspath(__file__))

# A Linear(3, 2) state_dict with known weights.
lin = torch.nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.arange(6.0).reshape(2, 3) / 10)
    lin.bias.copy_(torch.tensor([0.5, -0.5]))
torch.save(lin.state_dict(), os.path.join(here, "linear_state_dict.pt"))

# An SGD-with-momentum optimizer state after one step on that model.
opt = torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
lin(torch.ones(1, 3)).sum().backward()
opt.step()
torch.save(opt.state_dict(), os.path.join(here, "sgd_state_dict.pt"))

# Nested containers, every dtype, a view sharing its base's storage, a Parameter, dtypes and devices.
base = torch.arange(12, dtype=torch.float32)
obj = {
    "base": base,
    "view": base[2:8].view(2, 3),
    "t": base.view(3, 4).t(),
    "dtypes": [torch.arange(5).to(d) for d in (torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
                                                torch.int16, torch.int8, torch.uint8, torch.bool)],
    "param": torch.nn.Parameter(torch.ones(2, 2)),
    "frozen": torch.nn.Parameter(torch.zeros(3), requires_grad=False),
    "scalar": torch.tensor(7),
    "meta": (torch.float16, torch.device("cpu"), torch.Size([2, 3]), "text", 1.5, None, True),
    "ordered": OrderedDict([("b", 1), ("a", 2)]),
}
torch.save(obj, os.path.join(here, "nested.pt"))
