# One-step actor-critic with torch.distributions.Normal for a continuous action, updated every timestep.
import torch
import torch.nn as nn
from torch.distributions import Normal

STEPS = 40

actor = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(list(actor.parameters()) + list(critic.parameters()), lr=3e-3)
state = torch.zeros(2)
for step in range(STEPS):
    mu, log_std = actor(state)
    dist = Normal(mu, log_std.clamp(-2, 1).exp())
    action = dist.sample()
    next_state = (state + 0.1 * torch.stack([action, -action])).clamp(-1, 1)
    reward = -next_state.pow(2).sum()
    with torch.no_grad():
        target = reward + 0.9 * critic(next_state).squeeze()
    value = critic(state).squeeze()
    advantage = (target - value).detach()
    loss = -dist.log_prob(action) * advantage + (target - value).pow(2) - 0.01 * dist.entropy()
    opt.zero_grad()
    loss.backward()
    opt.step()
    state = next_state
