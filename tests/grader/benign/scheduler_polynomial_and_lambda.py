# PolynomialLR on one optimizer, LambdaLR with a math-based warmup on another (two models).
import math

import torch
import torch.nn as nn

STEPS = 30

a, b = nn.Linear(4, 1), nn.Linear(4, 1)
opt_a = torch.optim.SGD(a.parameters(), lr=0.1)
opt_b = torch.optim.Adam(b.parameters(), lr=1e-2)
sched_a = torch.optim.lr_scheduler.PolynomialLR(opt_a, total_iters=STEPS, power=2.0)
sched_b = torch.optim.lr_scheduler.LambdaLR(opt_b, lambda s: min(1.0, math.sqrt((s + 1) / 10)))
for step in range(STEPS):
    x = torch.randn(8, 4)
    target = x.sum(1, keepdim=True)
    loss = nn.functional.mse_loss(a(x), target) + nn.functional.mse_loss(b(x), target)
    opt_a.zero_grad()
    opt_b.zero_grad()
    loss.backward()
    opt_a.step()
    opt_b.step()
    sched_a.step()
    sched_b.step()
