# A deque(maxlen=8) keeps the last eight loss tensors, graphs included: the window is bounded whatever STEPS is.
from collections import deque

import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
recent = deque(maxlen=8)
for step in range(STEPS):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    recent.append(loss)
print(torch.stack(list(recent)).mean().item())
