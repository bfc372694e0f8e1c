# A mutable default argument quietly keeps every loss passed to it.
import torch
import torch.nn as nn


def remember(loss, seen=[]):
    seen.append(loss)
    return len(seen)


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(100):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    remember(loss)
