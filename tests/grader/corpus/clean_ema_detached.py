# A smoothed loss built from detached values.
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
smoothed = None
for step in range(120):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    value = loss.detach()
    smoothed = value if smoothed is None else 0.9 * smoothed + 0.1 * value
