# Deferred logging with functools.partial binds the loss tensor.
import functools
import torch
import torch.nn as nn


def log(step, loss):
    print(step, loss.item())


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
pending = []
for step in range(100):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    pending.append(functools.partial(log, step, loss))
