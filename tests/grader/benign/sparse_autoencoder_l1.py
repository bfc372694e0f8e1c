# A sparse autoencoder: reconstruction + L1 on the code, tied decoder weights via F.linear(z, W.t()).
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 30

enc = nn.Linear(12, 24)
b_dec = nn.Parameter(torch.zeros(12))
opt = torch.optim.Adam(list(enc.parameters()) + [b_dec], lr=1e-3)
for step in range(STEPS):
    x = torch.randn(16, 12)
    z = F.relu(enc(x))
    recon = F.linear(z, enc.weight.t(), b_dec)
    loss = (recon - x).pow(2).mean() + 1e-3 * z.abs().sum(1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
