# Stochastic weight averaging: AveragedModel and SWALR from torch.optim.swa_utils for the last third of training.
import torch
import torch.nn as nn
from torch.optim.swa_utils import SWALR, AveragedModel

STEPS = 30

model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
swa_model = AveragedModel(model)
swa_start = 2 * STEPS // 3
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=swa_start)
swa_sched = SWALR(opt, swa_lr=0.01, anneal_epochs=3)
for step in range(STEPS):
    x = torch.randn(16, 4)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step >= swa_start:
        swa_model.update_parameters(model)
        swa_sched.step()
    else:
        sched.step()
with torch.no_grad():
    x = torch.randn(32, 4)
    print(nn.functional.mse_loss(swa_model(x), x.sum(1, keepdim=True)).item())
