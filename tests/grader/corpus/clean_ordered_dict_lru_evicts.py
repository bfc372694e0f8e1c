# An OrderedDict output cache with LRU eviction (popitem(last=False) beyond 5 entries): bounded.
from collections import OrderedDict

import torch
import torch.nn as nn

STEPS = 40
CAPACITY = 5

model = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
cache = OrderedDict()
for step in range(STEPS):
    key = f"batch-{step}"
    cache[key] = model(torch.randn(8, 6))
    if len(cache) > CAPACITY:
        cache.popitem(last=False)
    loss = cache[key].pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
