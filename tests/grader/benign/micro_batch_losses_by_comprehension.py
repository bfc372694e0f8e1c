# Each step splits the batch into micro-batches with a list comprehension of losses, sums them and runs one backward.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Linear(16, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x, y = torch.randn(32, 6), torch.randn(32, 1)
    losses = [nn.functional.mse_loss(model(xb), yb) for xb, yb in zip(x.chunk(4), y.chunk(4))]
    loss = sum(losses) / len(losses)
    opt.zero_grad()
    loss.backward()
    opt.step()
