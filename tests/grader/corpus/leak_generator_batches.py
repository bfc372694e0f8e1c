# Batches come from a generator function; the per-batch losses are kept as tensors.
import torch
import torch.nn as nn


def batches(n, size=16):
    for _ in range(n):
        x = torch.randn(size, 10)
        yield x, x.sum(dim=1, keepdim=True)


model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
losses = []
for x, y in batches(100):
    loss = (model(x) - y).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss)
