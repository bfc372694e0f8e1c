# Gradient clipping with clip_grad_norm_ (its returned total norm logged as a float) and clip_grad_value_.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
norms = []
for step in range(STEPS):
    x = torch.randn(16, 8) * 3
    loss = nn.functional.mse_loss(model(x), x.pow(2).sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
    opt.step()
    norms.append(float(total_norm))
print(max(norms))
