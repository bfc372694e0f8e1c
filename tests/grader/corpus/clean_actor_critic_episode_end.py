# A2C-style actor-critic on random episodes: values and log-probs kept for one episode, one update at its end.
import torch
import torch.nn as nn

STEPS = 30


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 16)
        self.pi = nn.Linear(16, 2)
        self.v = nn.Linear(16, 1)

    def forward(self, s):
        h = torch.relu(self.body(s))
        return torch.distributions.Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


net = ActorCritic()
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
for episode in range(STEPS):
    log_probs, values, rewards = [], [], []
    for t in range(4 + episode % 6):
        s = torch.randn(4)
        dist, value = net(s)
        a = dist.sample()
        log_probs.append(dist.log_prob(a))
        values.append(value)
        rewards.append(float(a.item() == (s[1] > 0)))
    returns = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
    values = torch.stack(values)
    advantage = returns - values.detach()
    loss = -(torch.stack(log_probs) * advantage).mean() + 0.5 * (values - returns).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
