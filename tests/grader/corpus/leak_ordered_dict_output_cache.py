# An OrderedDict caches outputs by batch id "for reuse", but every batch id is new and nothing is ever evicted.
from collections import OrderedDict

import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
cache = OrderedDict()
for step in range(STEPS):
    batch_id = f"batch-{step}"
    x = torch.randn(8, 6)
    if batch_id not in cache:
        cache[batch_id] = model(x)
    loss = cache[batch_id].pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(cache))
