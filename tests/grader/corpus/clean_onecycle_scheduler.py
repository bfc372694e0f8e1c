# OneCycleLR stepped per batch with SGD + momentum; lr and loss logged as floats.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=STEPS)
lrs, losses = [], []
for step in range(STEPS):
    x = torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), x.mean(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
    losses.append(loss.item())
