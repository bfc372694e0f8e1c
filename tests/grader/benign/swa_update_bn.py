# SWA over a model with BatchNorm: swa_utils.update_bn recomputes the running statistics from a list of batches.
import torch
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel, update_bn

STEPS = 20

model = nn.Sequential(nn.Linear(5, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
swa_model = AveragedModel(model)
loader = [torch.randn(16, 5) for _ in range(4)]
for step in range(STEPS):
    for x in loader:
        loss = nn.functional.mse_loss(model(x), x.mean(1, keepdim=True))
        opt.zero_grad()
        loss.backward()
        opt.step()
    if step >= STEPS // 2:
        swa_model.update_parameters(model)
update_bn(loader, swa_model)
print(swa_model.module[1].running_mean[:3])
