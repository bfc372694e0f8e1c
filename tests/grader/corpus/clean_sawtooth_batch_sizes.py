# Batch sizes change every step, so memory rises and falls; nothing is kept.
import random

import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(150):
    batch = random.choice([4, 64, 256, 1024])
    x = torch.randn(batch, 32)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
