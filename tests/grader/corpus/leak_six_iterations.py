# A short run of six steps that keeps each loss: even six steps show the trend.
import torch
import torch.nn as nn

STEPS = 6

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
losses = []
for step in range(STEPS):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss)
