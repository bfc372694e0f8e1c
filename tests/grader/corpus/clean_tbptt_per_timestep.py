# Per-timestep loop over a long stream: backward() every 25 timesteps, then the state is detached.
import torch
import torch.nn as nn

cell = nn.GRUCell(3, 8)
head = nn.Linear(8, 3)
opt = torch.optim.Adam(list(cell.parameters()) + list(head.parameters()), lr=1e-3)
stream = torch.randn(400, 2, 3)
h = torch.zeros(2, 8)
loss = 0
for t in range(399):
    h = cell(stream[t], h)
    loss = loss + (head(h) - stream[t + 1]).pow(2).mean()
    if (t + 1) % 25 == 0:
        opt.zero_grad()
        loss.backward()
        opt.step()
        h = h.detach()
        loss = 0
