# MoCo-style queue written in place with keys computed under no_grad by the momentum encoder.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40
K, B, D = 32, 8, 16

encoder_q = nn.Linear(10, D)
encoder_k = nn.Linear(10, D)
encoder_k.load_state_dict(encoder_q.state_dict())
for p in encoder_k.parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(encoder_q.parameters(), lr=0.05)
queue = F.normalize(torch.randn(K, D), dim=1)
ptr = 0
for step in range(STEPS):
    x = torch.randn(B, 10)
    q = F.normalize(encoder_q(x + 0.1 * torch.randn(B, 10)), dim=1)
    with torch.no_grad():
        for pq, pk in zip(encoder_q.parameters(), encoder_k.parameters()):
            pk.mul_(0.99).add_(0.01 * pq)
        k = F.normalize(encoder_k(x + 0.1 * torch.randn(B, 10)), dim=1)
    logits = torch.cat([(q * k).sum(1, keepdim=True), q @ queue.t()], dim=1) / 0.07
    loss = F.cross_entropy(logits, torch.zeros(B, dtype=torch.long))
    opt.zero_grad()
    loss.backward()
    opt.step()
    queue[ptr:ptr + B] = k
    ptr = (ptr + B) % K
