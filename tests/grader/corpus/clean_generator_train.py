# The training loop lives in a generator that yields each step's loss as a float.
import torch
import torch.nn as nn


def train(model, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(steps):
        loss = model(torch.randn(16, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        yield loss.item()


curve = [value for value in train(nn.Linear(4, 1), 100)]
