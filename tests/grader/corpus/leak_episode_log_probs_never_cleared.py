# REINFORCE that slices the current episode out of one log-prob list created before the episode loop and never cleared.
import torch
import torch.nn as nn

STEPS = 30

policy = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
log_probs = []
for episode in range(STEPS):
    start = len(log_probs)
    rewards = []
    position = 0.0
    for t in range(8):
        logits = policy(torch.tensor([position, t / 8.0]))
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        position += 1.0 if action.item() == 1 else -1.0
        rewards.append(position)
        if abs(position) >= 3:
            break
    returns = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
    loss = -(torch.stack(log_probs[start:]) * returns).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
