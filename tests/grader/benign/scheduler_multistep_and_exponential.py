# Two schedulers on one optimizer: MultiStepLR milestones chained with ExponentialLR (ChainedScheduler).
import torch
import torch.nn as nn
from torch.optim import lr_scheduler

STEPS = 30

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = lr_scheduler.ChainedScheduler([
    lr_scheduler.MultiStepLR(opt, milestones=[10, 20], gamma=0.3),
    lr_scheduler.ExponentialLR(opt, gamma=0.99),
])
for step in range(STEPS):
    x = torch.randn(8, 3)
    loss = (model(x) - x[:, :1]).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
print(sched.get_last_lr())
