# Accumulation windows of varying length (2, 3 or 5 micro-batches, cycling): bounded, whatever the training length.
import itertools

import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.02)
windows = itertools.cycle([2, 3, 5])
for step in range(STEPS):
    k = next(windows)
    summed = sum(model(torch.randn(4, 4)).pow(2).mean() for _ in range(k))
    opt.zero_grad()
    (summed / k).backward()
    opt.step()
