# A dataclass of training stats whose total field receives loss tensors.
from dataclasses import dataclass

import torch
import torch.nn as nn

STEPS = 40


@dataclass
class Stats:
    steps: int = 0
    total: object = 0.0

    def add(self, loss):
        self.steps += 1
        self.total = self.total + loss


model = nn.Linear(4, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
stats = Stats()
for step in range(STEPS):
    loss = (model(torch.randn(8, 4)) - 1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    stats.add(loss)
print(stats.steps, float(stats.total) / stats.steps)
