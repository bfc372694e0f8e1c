# REINFORCE with a while-not-done episode loop in an env class; the update happens at episode end, lengths vary.
import torch
import torch.nn as nn


STEPS = 30


class Corridor:
    def __init__(self, length=4):
        self.length = length

    def reset(self):
        self.pos = 0
        return self.obs()

    def obs(self):
        return torch.tensor([self.pos / self.length, 1.0])

    def step(self, action):
        self.pos += 1 if action == 1 else -1
        done = self.pos >= self.length or self.pos <= -self.length
        return self.obs(), (1.0 if self.pos >= self.length else 0.0), done


def run_episode(env, policy):
    obs, done, log_probs, rewards = env.reset(), False, [], []
    while not done and len(rewards) < 30:
        dist = torch.distributions.Categorical(logits=policy(obs))
        action = dist.sample()
        obs, reward, done = env.step(action.item())
        log_probs.append(dist.log_prob(action))
        rewards.append(reward)
    return log_probs, rewards


env = Corridor()
policy = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=5e-3)
lengths = []
for episode in range(STEPS):
    log_probs, rewards = run_episode(env, policy)
    ret = sum(rewards)
    loss = -torch.stack(log_probs).sum() * (ret - 0.5)
    opt.zero_grad()
    loss.backward()
    opt.step()
    lengths.append(len(rewards))
print(sum(lengths) / len(lengths))
