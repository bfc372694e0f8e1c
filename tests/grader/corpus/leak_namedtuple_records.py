# Step records are collections.namedtuple instances whose loss field is the tensor itself.
from collections import namedtuple

import torch
import torch.nn as nn

STEPS = 40

Record = namedtuple("Record", ["step", "loss", "lr"])
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.99)
log = []
for step in range(STEPS):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    log.append(Record(step, loss, sched.get_last_lr()[0]))
print(log[-1].step, log[-1].loss.item())
