# The same saved_tensors_hooks stash, started afresh every step: it never holds more than one step's tensors.
import torch
import torch.nn as nn

STEPS = 30

stash = []


def pack(t):
    stash.append(t)
    return len(stash) - 1


def unpack(index):
    return stash[index]


model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(STEPS):
    stash.clear()
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = model(torch.randn(8, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
