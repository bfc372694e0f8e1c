# Activation checkpointing: each residual block runs through torch.utils.checkpoint.checkpoint(use_reentrant=False).
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

STEPS = 20


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.ff(x)


class Net(nn.Module):
    def __init__(self, d=8, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)
        return self.head(x)


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
