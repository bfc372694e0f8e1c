# torch.utils.checkpoint.checkpoint around a plain function (an MLP trunk), with use_reentrant=False.
import torch
import torch.nn as nn
import torch.utils.checkpoint

STEPS = 20

trunk = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh())
head = nn.Linear(32, 2)
opt = torch.optim.SGD(list(trunk.parameters()) + list(head.parameters()), lr=0.05)


def run_trunk(x):
    return trunk(x)


losses = []
for step in range(STEPS):
    x, y = torch.randn(8, 6), torch.randint(0, 2, (8,))
    h = torch.utils.checkpoint.checkpoint(run_trunk, x, use_reentrant=False)
    loss = nn.functional.cross_entropy(head(h), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
