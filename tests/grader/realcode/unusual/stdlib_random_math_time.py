"""random, math and time in a loop: shuffled indices, a cosine schedule, wall-clock timing."""
import math
import random
import time

import torch
import torch.nn as nn

random.seed(0)
data = [(torch.randn(4), random.random()) for _ in range(64)]
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
t0 = time.time()
total = 24
for step in range(total):
    batch = random.sample(data, 8)
    x = torch.stack([b[0] for b in batch])
    y = torch.tensor([[b[1]] for b in batch])
    for g in opt.param_groups:
        g["lr"] = 0.05 * 0.5 * (1 + math.cos(math.pi * step / total))
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"{time.time() - t0:.3f}s", math.isfinite(loss.item()), time.perf_counter() > 0, random.choice([1, 2]))
