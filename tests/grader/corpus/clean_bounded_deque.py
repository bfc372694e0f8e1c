# A moving window of recent losses, detached, in a bounded deque.
from collections import deque

import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
recent = deque(maxlen=10)
for step in range(150):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    recent.append(loss.detach())
    if step % 50 == 0:
        print(sum(x.item() for x in recent) / len(recent))
