# The last loss, output and features live until the next step rebinds the names, and after the loop for a summary.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(16, 8)
    features = model[1](model[0](x))
    out = model[2](features)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("final loss", loss.item(), "output scale", out.abs().mean().item())
