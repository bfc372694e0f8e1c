# A metrics tracker object stores the loss tensors in an attribute.
import torch
import torch.nn as nn


class Tracker:
    def __init__(self):
        self.history = []

    def log(self, value):
        self.history.append(value)


model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
tracker = Tracker()
for step in range(100):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    tracker.log(loss)
