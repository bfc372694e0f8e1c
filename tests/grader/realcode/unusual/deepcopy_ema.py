"""`copy.deepcopy(model)` for an exponential moving average of the weights."""
import copy

import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
ema = copy.deepcopy(model)
ema.requires_grad_(False)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
decay = 0.9
for step in range(30):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for p_ema, p in zip(ema.parameters(), model.parameters()):
            p_ema.mul_(decay).add_(p, alpha=1 - decay)
with torch.no_grad():
    print(ema(torch.ones(1, 4)).item(), model(torch.ones(1, 4)).item())
