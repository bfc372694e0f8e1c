# A mixture density network trained by NLL with torch.distributions.MixtureSameFamily.
import torch
import torch.nn as nn
import torch.distributions as D

STEPS = 30
K = 3

net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 3 * K))
opt = torch.optim.Adam(net.parameters(), lr=5e-3)
for step in range(STEPS):
    x = torch.rand(32, 1) * 2 - 1
    y = torch.sin(4 * x).squeeze(1) + 0.1 * torch.randn(32)
    logits, mu, log_sigma = net(x).split(K, dim=-1)
    mixture = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(mu, log_sigma.exp()))
    loss = -mixture.log_prob(y).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
