"""LambdaLR with a warmup lambda, plus a lambda-based MultiplicativeLR."""
import math

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import LambdaLR, MultiplicativeLR

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
warmup, total = 5, 30
sched = LambdaLR(opt, lr_lambda=lambda step: min(1.0, (step + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * step / total)))
head = nn.Linear(4, 1)
opt2 = torch.optim.SGD(head.parameters(), lr=0.1)
sched2 = MultiplicativeLR(opt2, lr_lambda=lambda epoch: 0.95)
for step in range(total):
    x = torch.randn(8, 4)
    loss = (model(x) + head(x)).pow(2).mean()
    opt.zero_grad()
    opt2.zero_grad()
    loss.backward()
    opt.step()
    opt2.step()
    sched.step()
    sched2.step()
print(sched.get_last_lr(), sched2.get_last_lr())
