# REINFORCE with a moving-average baseline kept as a Python float.
import torch
import torch.nn as nn

STEPS = 40

policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
baseline = 0.0
for episode in range(STEPS):
    log_probs, rewards = [], []
    for t in range(5):
        state = torch.randn(4)
        dist = torch.distributions.Categorical(logits=policy(state))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        rewards.append(float(action.item() == (state[0] > 0).long().item()))
    episode_return = sum(rewards)
    baseline = 0.9 * baseline + 0.1 * episode_return
    loss = -torch.stack(log_probs).sum() * (episode_return - baseline)
    opt.zero_grad()
    loss.backward()
    opt.step()
