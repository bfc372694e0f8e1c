# CosineAnnealingWarmRestarts stepped with a fractional epoch every batch.
import torch
import torch.nn as nn

STEPS = 8
BATCHES = 5

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=1e-4)
lrs = []
for epoch in range(STEPS):
    for i in range(BATCHES):
        x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step(epoch + i / BATCHES)
        lrs.append(opt.param_groups[0]["lr"])
print(min(lrs), max(lrs))
