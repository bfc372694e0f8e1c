# A closure accumulates the loss with nonlocal total; total += loss.
import torch
import torch.nn as nn


def make_meter():
    total = 0

    def update(loss):
        nonlocal total
        total += loss
        return total

    return update


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
meter = make_meter()
for step in range(100):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    meter(loss)
