# REINFORCE that updates inside the timestep loop when the episode ends; episodes have varying lengths and the
# log-prob list is started afresh for each episode.
import random

import torch
import torch.nn as nn

STEPS = 30

policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
returns = []
for episode in range(STEPS):
    horizon = random.randint(3, 12)
    log_probs, rewards = [], []
    for t in range(horizon):
        state = torch.randn(3)
        dist = torch.distributions.Categorical(logits=policy(state))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        rewards.append(1.0 if action.item() == int(state.sum() > 0) else 0.0)
        if t == horizon - 1:
            g = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
            loss = -(torch.stack(log_probs) * (g - g.mean())).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            returns.append(sum(rewards))
