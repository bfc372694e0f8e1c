# The running total takes loss.item(), a Python float: nothing of the graph survives.
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
running = 0.0
for step in range(200):
    x = torch.randn(8, 4)
    y = torch.randn(8, 1)
    loss = ((model(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()
print("mean loss", running / 200)
