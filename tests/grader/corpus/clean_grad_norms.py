# Gradient norms from clip_grad_norm_ are kept for every step (they carry no graph).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
norms = []
for step in range(100):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))
    opt.step()
