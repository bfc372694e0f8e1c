# An EMA of the weights with torch.optim.swa_utils.AveragedModel(multi_avg_fn=get_ema_multi_avg_fn(0.99)).
import torch
import torch.nn as nn
from torch.optim import swa_utils

STEPS = 30

model = nn.Linear(6, 2)
ema = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.99))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(STEPS):
    x, y = torch.randn(16, 6), torch.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema.update_parameters(model)
with torch.no_grad():
    print((ema(torch.randn(4, 6)) - model(torch.randn(4, 6))).abs().mean().item())
