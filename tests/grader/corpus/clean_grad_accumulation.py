# Gradient accumulation: backward() every micro-batch, an optimizer step every four.
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
accumulate = 4
for micro_step in range(160):
    loss = model(torch.randn(4, 8)).pow(2).mean() / accumulate
    loss.backward()
    if (micro_step + 1) % accumulate == 0:
        opt.step()
        opt.zero_grad()
