# CyclicLR (triangular2) with SGD and momentum cycling, stepped every batch.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.001, max_lr=0.05, step_size_up=5, mode="triangular2")
for step in range(STEPS):
    x = torch.randn(16, 5)
    loss = nn.functional.huber_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
