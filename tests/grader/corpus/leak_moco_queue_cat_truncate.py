# A fixed-length queue kept as torch.cat([new_keys, queue])[:K]: the size is bounded but the slices chain every old
# queue's graph into the new one, since the keys were computed with grad.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40
K = 24

encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
queue = torch.zeros(0, 8)
for step in range(STEPS):
    x = torch.randn(6, 8)
    q = F.normalize(encoder(x), dim=1)
    k = F.normalize(encoder(x + 0.05 * torch.randn(6, 8)), dim=1)
    negatives = queue.detach() if len(queue) else torch.randn(K, 8)
    logits = torch.cat([(q * k.detach()).sum(1, keepdim=True), q @ negatives.t()], 1)
    loss = F.cross_entropy(logits / 0.1, torch.zeros(6, dtype=torch.long))
    opt.zero_grad()
    loss.backward()
    opt.step()
    queue = torch.cat([k, queue])[:K]
