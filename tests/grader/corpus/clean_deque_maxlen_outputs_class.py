# A monitor class keeps the last 4 outputs in a deque(maxlen=4) to compute prediction drift.
from collections import deque

import torch
import torch.nn as nn

STEPS = 40


class DriftMonitor:
    def __init__(self, size=4):
        self.outputs = deque(maxlen=size)

    def update(self, out):
        self.outputs.append(out)
        if len(self.outputs) < 2:
            return 0.0
        return (self.outputs[-1] - self.outputs[0]).abs().mean().item()


model = nn.Linear(3, 2)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
probe = torch.randn(4, 3)
monitor = DriftMonitor()
for step in range(STEPS):
    loss = model(torch.randn(8, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    drift = monitor.update(model(probe))
print(drift)
