# REINFORCE with a moving-average baseline built from the critic's live outputs: the baseline's graph chains episodes.
import torch
import torch.nn as nn

STEPS = 80

policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
critic = nn.Linear(4, 1)
opt = torch.optim.Adam(list(policy.parameters()) + list(critic.parameters()), lr=1e-2)
baseline = torch.zeros(())
for episode in range(STEPS):
    state = torch.randn(4)
    log_probs, rewards = [], []
    for t in range(5):
        dist = torch.distributions.Categorical(logits=policy(state))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        rewards.append(float(action.item() == (state[0] > 0).long().item()))
        state = torch.randn(4)
    episode_return = sum(rewards)
    value = critic(state).squeeze()
    baseline = 0.9 * baseline + 0.1 * value
    advantage = episode_return - baseline.detach()
    loss = -(torch.stack(log_probs).sum() * advantage) + (value - episode_return).pow(2)
    opt.zero_grad()
    loss.backward()
    opt.step()
