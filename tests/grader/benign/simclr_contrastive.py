# A SimCLR-style NT-Xent loss between two augmented views, computed within the batch.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 30
TAU = 0.2

encoder = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 8))
opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(8, 10)
    z = F.normalize(encoder(torch.cat([x + 0.1 * torch.randn_like(x), x * 0.9])), dim=1)
    sim = z @ z.t() / TAU
    sim = sim.masked_fill(torch.eye(16, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(8, 16), torch.arange(0, 8)])
    loss = F.cross_entropy(sim, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
