# A replay buffer of encoded states (computed with grad, by mistake) capped at 16 entries: old entries are popped, so
# at most 16 graphs are ever held.
import random

import torch
import torch.nn as nn

STEPS = 40
CAPACITY = 16

encoder = nn.Linear(4, 8)
q_head = nn.Linear(8, 2)
opt = torch.optim.Adam(list(encoder.parameters()) + list(q_head.parameters()), lr=1e-3)
buffer = []
for step in range(STEPS):
    obs = torch.randn(4)
    z = torch.relu(encoder(obs))
    action = q_head(z).argmax().item()
    buffer.append((z, action, float(action == int(obs[0] > 0))))
    if len(buffer) > CAPACITY:
        buffer.pop(0)
    batch = random.sample(buffer, min(4, len(buffer)))
    q = torch.stack([q_head(torch.relu(encoder(torch.randn(4))))[a] for _, a, _ in batch])
    loss = nn.functional.smooth_l1_loss(q, torch.tensor([r for _, _, r in batch]))
    opt.zero_grad()
    loss.backward()
    opt.step()
