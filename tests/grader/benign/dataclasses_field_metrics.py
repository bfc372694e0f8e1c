# A metrics dataclass with field(default_factory=dict) and field(default_factory=list), updated with floats.
from dataclasses import dataclass, field

import torch
import torch.nn as nn

STEPS = 30


@dataclass
class Metrics:
    history: dict = field(default_factory=dict)
    steps: list = field(default_factory=list)

    def log(self, step, **values):
        self.steps.append(step)
        for name, value in values.items():
            self.history.setdefault(name, []).append(value)


metrics = Metrics()
model = nn.Linear(5, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(STEPS):
    x, y = torch.randn(8, 5), torch.randint(0, 3, (8,))
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    metrics.log(step, loss=loss.item(), acc=(logits.argmax(1) == y).float().mean().item())
print(len(metrics.steps))
