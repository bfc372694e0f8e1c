# Truncated BPTT with a GRUCell: per-timestep loop, one backward per chunk of 8 timesteps, then h.detach().
import torch
import torch.nn as nn

STEPS = 20
CHUNK = 8

cell = nn.GRUCell(2, 12)
head = nn.Linear(12, 2)
opt = torch.optim.Adam(list(cell.parameters()) + list(head.parameters()), lr=1e-3)
h = torch.zeros(3, 12)
for chunk in range(STEPS):
    seq = torch.randn(CHUNK + 1, 3, 2)
    loss = 0
    for t in range(CHUNK):
        h = cell(seq[t], h)
        loss = loss + (head(h) - seq[t + 1]).pow(2).mean()
    opt.zero_grad()
    (loss / CHUNK).backward()
    opt.step()
    h = h.detach()
