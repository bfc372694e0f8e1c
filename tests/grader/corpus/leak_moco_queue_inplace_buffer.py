# MoCo-style negatives queue: key-encoder outputs are computed with grad and written in place into a fixed-size
# buffer; each slice write adds a CopySlices node over the buffer's previous history, which never ends.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40
K, B, D = 32, 8, 16

encoder_q = nn.Linear(10, D)
encoder_k = nn.Linear(10, D)
opt = torch.optim.SGD(encoder_q.parameters(), lr=0.05)
queue = F.normalize(torch.randn(K, D), dim=1)
ptr = 0
for step in range(STEPS):
    x = torch.randn(B, 10)
    q = F.normalize(encoder_q(x + 0.1 * torch.randn(B, 10)), dim=1)
    k = F.normalize(encoder_k(x + 0.1 * torch.randn(B, 10)), dim=1)
    l_pos = (q * k.detach()).sum(1, keepdim=True)
    l_neg = q @ queue.detach().t()
    logits = torch.cat([l_pos, l_neg], dim=1) / 0.07
    loss = F.cross_entropy(logits, torch.zeros(B, dtype=torch.long))
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for pq, pk in zip(encoder_q.parameters(), encoder_k.parameters()):
            pk.mul_(0.99).add_(0.01 * pq)
    queue[ptr:ptr + B] = k
    ptr = (ptr + B) % K
