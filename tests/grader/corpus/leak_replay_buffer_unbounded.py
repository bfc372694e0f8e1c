# A DQN-like replay buffer stores encoded states computed with grad, and has no capacity limit.
import random

import torch
import torch.nn as nn

STEPS = 40

encoder = nn.Linear(4, 8)
q_head = nn.Linear(8, 2)
opt = torch.optim.Adam(list(encoder.parameters()) + list(q_head.parameters()), lr=1e-3)
buffer = []
for step in range(STEPS):
    obs = torch.randn(4)
    z = torch.relu(encoder(obs))
    action = q_head(z).argmax().item()
    reward = float(action == int(obs[0] > 0))
    buffer.append((z, action, reward))
    batch = random.sample(buffer, min(4, len(buffer)))
    q = torch.stack([q_head(torch.relu(encoder(torch.randn(4))))[a] for _, a, _ in batch])
    target = torch.tensor([r for _, _, r in batch])
    loss = nn.functional.smooth_l1_loss(q, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
