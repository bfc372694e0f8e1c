# Appending the loss tensor itself keeps each step's graph in the list.
import torch
from torch import nn, optim

model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 1))
opt = optim.Adam(model.parameters(), lr=1e-3)
losses = []
for step in range(150):
    x = torch.randn(16, 10)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss)
print(len(losses))
