# A forward hook closes over a list and appends each activation, graph and all.
import torch
import torch.nn as nn


def make_recorder():
    activations = []

    def record(module, inputs, output):
        activations.append(output)

    return record


model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model[1].register_forward_hook(make_recorder())
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(100):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
