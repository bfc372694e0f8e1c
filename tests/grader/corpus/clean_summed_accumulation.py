# Losses of four micro-batches are summed and backpropagated together: the graph spans four
# steps on purpose, and is freed after each backward().
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
pending = 0
for micro_step in range(160):
    pending = pending + model(torch.randn(4, 8)).pow(2).mean()
    if (micro_step + 1) % 4 == 0:
        opt.zero_grad()
        (pending / 4).backward()
        opt.step()
        pending = 0
