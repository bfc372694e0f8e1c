# Keeping parameters (leaf tensors) and detached snapshots of them is not a leak.
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
watched = [model.weight, model.bias]
snapshots = []
for step in range(100):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        snapshots.append(model.weight.detach().clone())
