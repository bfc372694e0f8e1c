# A GAN keeps a progress grid of generated samples, produced under no_grad from a fixed noise vector.
import torch
import torch.nn as nn

STEPS = 30

G = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
fixed_noise = torch.randn(4, 2)
grid = []
for step in range(STEPS):
    real = torch.randn(8, 2) * 0.3
    fake = G(torch.randn(8, 2))
    d_loss = D(fake.detach()).mean() - D(real).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = -D(fake).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    with torch.no_grad():
        grid.append(G(fixed_noise))
