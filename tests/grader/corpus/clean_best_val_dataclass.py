# A dataclass tracks the best validation loss (a float from no_grad evaluation) and the step it happened at.
from dataclasses import dataclass

import torch
import torch.nn as nn

STEPS = 40


@dataclass
class Best:
    loss: float = float("inf")
    step: int = -1

    def update(self, loss, step):
        if loss < self.loss:
            self.loss, self.step = loss, step
            return True
        return False


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
xv = torch.randn(32, 4)
yv = xv.sum(1, keepdim=True)
best = Best()
for step in range(STEPS):
    x = torch.randn(16, 4)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        best.update(nn.functional.mse_loss(model(xv), yv).item(), step)
print(best)
