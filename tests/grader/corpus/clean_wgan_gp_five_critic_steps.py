# WGAN-GP: 5 critic iterations per generator step, each with a gradient penalty built with create_graph=True.
import torch
import torch.nn as nn

STEPS = 20
N_CRITIC = 5

G = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.5, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.5, 0.9))


def gradient_penalty(critic, real, fake):
    eps = torch.rand(real.size(0), 1)
    mixed = (eps * real + (1 - eps) * fake).requires_grad_(True)
    (grads,) = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


log = []
for step in range(STEPS):
    for _ in range(N_CRITIC):
        real = torch.randn(16, 2) + 3
        fake = G(torch.randn(16, 2)).detach()
        d_loss = D(fake).mean() - D(real).mean() + 10 * gradient_penalty(D, real, fake)
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
    g_loss = -D(G(torch.randn(16, 2))).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    log.append((d_loss.item(), g_loss.item()))
