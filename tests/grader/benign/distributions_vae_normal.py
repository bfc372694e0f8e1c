# A tiny VAE with torch.distributions: Normal.rsample for the reparameterisation and kl_divergence to the prior.
import torch
import torch.nn as nn
from torch.distributions import Normal, kl_divergence

STEPS = 30


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 2 * 3)
        self.dec = nn.Linear(3, 8)

    def forward(self, x):
        mu, log_std = self.enc(x).chunk(2, dim=-1)
        q = Normal(mu, log_std.exp())
        z = q.rsample()
        return self.dec(z), q


model = VAE()
prior = Normal(torch.zeros(3), torch.ones(3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(16, 8)
    recon, q = model(x)
    loss = (recon - x).pow(2).sum(1).mean() + kl_divergence(q, prior).sum(1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
