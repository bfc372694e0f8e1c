# Temporal ensembling keeps an exponential moving average of predictions, but built from the live outputs.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40

x_unlabeled = torch.randn(32, 6)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
ema_pred = torch.zeros(32, 3)
for step in range(STEPS):
    pred = F.softmax(model(x_unlabeled + 0.1 * torch.randn(32, 6)), dim=1)
    consistency = (pred - ema_pred.detach()).pow(2).mean()
    opt.zero_grad()
    consistency.backward()
    opt.step()
    ema_pred = 0.6 * ema_pred + 0.4 * pred
