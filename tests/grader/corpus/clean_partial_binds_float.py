# Deferred logging with functools.partial binding loss.item() (a float), flushed at the end.
import functools

import torch
import torch.nn as nn

STEPS = 40


def log(step, value):
    return f"{step}: {value:.4f}"


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
pending = []
for step in range(STEPS):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    pending.append(functools.partial(log, step, loss.item()))
print(pending[-1]())
