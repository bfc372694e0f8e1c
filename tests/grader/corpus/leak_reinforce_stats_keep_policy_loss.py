# REINFORCE: policy.saved_log_probs is the episode's buffer (read back for the episode's loss, cleared each episode);
# the leak is stats['policy_loss'], which keeps every episode's loss tensor. grill must name stats, not the buffer,
# and must not tell the buffer to be detached (issue 23: it did, which would stop the policy gradient).
import torch
import torch.nn as nn

STEPS = 30


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, state):
        return torch.distributions.Categorical(logits=self.net(state))


policy = Policy()
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
stats = {"policy_loss": [], "return": []}
for episode in range(STEPS):
    state = torch.randn(4)
    for t in range(12):
        dist = policy(state)
        action = dist.sample()
        policy.saved_log_probs.append(dist.log_prob(action))
        policy.rewards.append(float(action.item() == 1))
        state = torch.randn(4)
    returns = torch.tensor(policy.rewards).flip(0).cumsum(0).flip(0)
    returns = (returns - returns.mean()) / (returns.std() + 1e-6)
    policy_loss = -(torch.stack(policy.saved_log_probs) * returns).sum()
    opt.zero_grad()
    policy_loss.backward()
    opt.step()
    stats["policy_loss"].append(policy_loss)
    stats["return"].append(sum(policy.rewards))
    del policy.saved_log_probs[:]
    del policy.rewards[:]
print(len(stats["policy_loss"]))
