# A discriminator whose layers use torch.nn.utils.spectral_norm, trained against a fixed target distribution.
import torch
import torch.nn as nn
from torch.nn.utils import spectral_norm

STEPS = 20

D = nn.Sequential(spectral_norm(nn.Linear(2, 16)), nn.LeakyReLU(0.2), spectral_norm(nn.Linear(16, 1)))
opt = torch.optim.Adam(D.parameters(), lr=1e-3)
for step in range(STEPS):
    real = torch.randn(16, 2) + 2
    fake = torch.randn(16, 2)
    loss = nn.functional.softplus(-D(real)).mean() + nn.functional.softplus(D(fake)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
