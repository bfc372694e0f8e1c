# Keeping the best model with copy.deepcopy(model) whenever the no_grad validation loss improves.
import copy

import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
xv = torch.randn(32, 4)
yv = xv.sum(1, keepdim=True)
best_loss, best_model = float("inf"), None
for step in range(STEPS):
    x = torch.randn(16, 4)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        val = nn.functional.mse_loss(model(xv), yv).item()
    if val < best_loss:
        best_loss, best_model = val, copy.deepcopy(model)
print(best_loss)
