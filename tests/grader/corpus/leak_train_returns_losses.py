# A train() function returns its list of loss tensors.
import torch
import torch.nn as nn


def train(model, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for _ in range(steps):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses


history = train(nn.Linear(4, 1), 30)
