# Gradient accumulation over 2 micro-batches: the summed loss lives until the window's backward(), then is reassigned.
import torch
import torch.nn as nn

STEPS = 40
ACCUM = 2

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
window_loss = 0
for step in range(STEPS):
    for micro in range(ACCUM):
        x = torch.randn(4, 6)
        window_loss = window_loss + model(x).pow(2).mean() / ACCUM
    opt.zero_grad()
    window_loss.backward()
    opt.step()
    window_loss = 0
