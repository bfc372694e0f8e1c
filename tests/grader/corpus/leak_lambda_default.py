# Deferred logging callbacks bind the loss as a default argument: every step's graph is kept.
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
pending = []
for step in range(100):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    pending.append(lambda value=loss: print(value.item()))
