# Step timing with time.perf_counter for throughput logging; nothing but floats is kept.
import time

import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
durations = []
for step in range(STEPS):
    start = time.perf_counter()
    x = torch.randn(32, 32)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    durations.append(time.perf_counter() - start)
print(f"{32 * len(durations) / sum(durations):.0f} samples/s")
