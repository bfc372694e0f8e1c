# Epochs of BATCHES batches; the last 5 losses (graphs included) sit in a deque(maxlen=5) for a smoothed log: bounded
# by the code at 5 graphs, however long the epoch.
from collections import deque

import torch
import torch.nn as nn

STEPS = 6
BATCHES = 12

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [torch.randn(8, 4) for _ in range(BATCHES)]
smooth = deque(maxlen=5)
for epoch in range(STEPS):
    for x in data:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        smooth.append(loss)
    print(epoch, sum(l.item() for l in smooth) / len(smooth))
