# list(map(...)) runs a training step per item and keeps every returned loss tensor: map's iterable is a loop.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(5, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def train_step(i):
    loss = model(torch.randn(8, 5)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


history = list(map(train_step, range(STEPS)))
print(len(history))
