# A coroutine-style meter keeps a tensor total inside the generator's frame.
import torch
import torch.nn as nn


def meter():
    total = 0
    while True:
        loss = yield total
        total = total + loss


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
m = meter()
next(m)
for step in range(100):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    m.send(loss)
