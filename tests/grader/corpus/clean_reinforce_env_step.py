# REINFORCE on a toy environment: env.step() runs per timestep, backward() once per episode.
import torch
import torch.nn as nn


class LineWorld:
    def reset(self):
        self.pos = 0.0
        return torch.tensor([self.pos])

    def step(self, action):
        self.pos += 1.0 if action == 1 else -1.0
        reward = 1.0 if self.pos > 0 else 0.0
        return torch.tensor([self.pos]), reward, abs(self.pos) >= 5


policy = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
env = LineWorld()
returns_log = []
for episode in range(80):
    state, log_probs, rewards = env.reset(), [], []
    for t in range(20):
        logp = torch.log_softmax(policy(state), dim=-1)
        action = torch.multinomial(logp.exp().detach(), 1).item()
        log_probs.append(logp[action])
        state, reward, done = env.step(action)
        rewards.append(reward)
        if done:
            break
    ret = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
    loss = -(torch.stack(log_probs) * ret).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    returns_log.append(sum(rewards))
