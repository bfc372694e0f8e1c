# A fixed-length negatives queue torch.cat([k.detach(), queue])[:K]: bounded in size and free of history.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40
K = 24

encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
queue = torch.randn(K, 8)
for step in range(STEPS):
    x = torch.randn(6, 8)
    q = F.normalize(encoder(x), dim=1)
    k = F.normalize(encoder(x + 0.05 * torch.randn(6, 8)), dim=1)
    logits = torch.cat([(q * k.detach()).sum(1, keepdim=True), q @ queue.t()], 1)
    loss = F.cross_entropy(logits / 0.1, torch.zeros(6, dtype=torch.long))
    opt.zero_grad()
    loss.backward()
    opt.step()
    queue = torch.cat([k.detach(), queue])[:K]
