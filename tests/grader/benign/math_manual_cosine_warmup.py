# A hand-written warmup + cosine learning-rate schedule with math.cos, written into param_groups each step.
import math

import torch
import torch.nn as nn

STEPS = 40
WARMUP = 5
BASE_LR = 0.05


def lr_at(step):
    if step < WARMUP:
        return BASE_LR * (step + 1) / WARMUP
    progress = (step - WARMUP) / max(1, STEPS - WARMUP)
    return BASE_LR * 0.5 * (1 + math.cos(math.pi * progress))


model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=BASE_LR)
for step in range(STEPS):
    for group in opt.param_groups:
        group["lr"] = lr_at(step)
    x = torch.randn(16, 6)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
