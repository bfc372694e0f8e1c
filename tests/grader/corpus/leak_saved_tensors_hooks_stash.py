# A saved_tensors_hooks pack hook "offloads" every saved tensor into a list that is never emptied; the saved
# activations carry their own graphs, so each step's graph stays reachable from the stash.
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
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = model(torch.randn(8, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(stash))
