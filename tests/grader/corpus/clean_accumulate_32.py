# Large gradient accumulation: 32 micro-batch losses summed, one backward() and step per 32.
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
accum = 32
total = 0
for i in range(200):
    total = total + model(torch.randn(4, 8)).pow(2).mean() / accum
    if (i + 1) % accum == 0:
        opt.zero_grad()
        total.backward()
        opt.step()
        total = 0
