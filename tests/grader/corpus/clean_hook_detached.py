# A forward hook that keeps the latest activation, detached, for monitoring.
import torch
import torch.nn as nn

latest = {}


def record(module, inputs, output):
    latest["tanh"] = output.detach()


model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model[1].register_forward_hook(record)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(100):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
