# A GAN keeps a generated sample each step "for a progress grid": the samples carry the generator's graph.
import torch
import torch.nn as nn

STEPS = 30


class GAN:
    def __init__(self):
        self.G = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
        self.D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=1e-3)
        self.grid = []

    def step(self):
        real = torch.randn(8, 2) * 0.3
        fake = self.G(torch.randn(8, 2))
        d_loss = self.D(fake.detach()).mean() - self.D(real).mean()
        self.opt_d.zero_grad()
        d_loss.backward()
        self.opt_d.step()
        g_loss = -self.D(fake).mean()
        self.opt_g.zero_grad()
        g_loss.backward()
        self.opt_g.step()
        self.grid.append(fake[:2])


gan = GAN()
for step in range(STEPS):
    gan.step()
print(len(gan.grid))
