# The training loop lives in a function; its local list is scanned before the frame returns.
import torch
import torch.nn as nn


def train(model, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    history = []
    for step in range(steps):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss)
    return len(history)


print(train(nn.Linear(4, 1), 100))
