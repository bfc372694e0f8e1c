# A saved_tensors_hooks pack hook builds, under enable_grad, a scaled copy of every tensor autograd saves and keeps it
# in a list: graph born inside torch's own call, where no TorchFunctionMode is active (issue 23: graded clean).
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
shift = torch.zeros(1, requires_grad=True)
copies = []


def pack(t):
    with torch.enable_grad():
        copies.append(t + shift)  # an add saves nothing, so this hook does not call itself
    return t


def unpack(t):
    return t


for step in range(STEPS):
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = model(torch.randn(8, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(copies))
