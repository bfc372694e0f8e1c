"""typing.NamedTuple and collections.namedtuple for batches and saved actions."""
import collections
from typing import NamedTuple

import torch
import torch.nn as nn


class Batch(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor


Stats = collections.namedtuple("Stats", ["step", "loss"])

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
history = []
for step in range(30):
    batch = Batch(torch.randn(8, 4), torch.randn(8, 1))
    loss = nn.functional.mse_loss(model(batch.x), batch.y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    history.append(Stats(step, loss.item()))
print(history[-1]._asdict(), Batch._fields)
