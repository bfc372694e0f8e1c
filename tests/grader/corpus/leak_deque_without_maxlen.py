# A collections.deque used as a "recent losses" window, but created without maxlen: it never drops anything.
from collections import deque

import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
recent = deque()
for step in range(STEPS):
    loss = model(torch.randn(8, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    recent.appendleft(loss)
    window_mean = sum(v.item() for v in list(recent)[:10]) / min(10, len(recent))
print(window_mean)
