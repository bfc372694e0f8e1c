# WGAN-GP done right, but the critic loss tensors are kept in a list.
import torch
import torch.nn as nn

critic = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))
history = []
for step in range(100):
    real = torch.randn(32, 2) + 2
    fake = torch.randn(32, 2)
    eps = torch.rand(32, 1)
    mixed = (eps * real + (1 - eps) * fake).requires_grad_(True)
    grads = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)[0]
    penalty = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
    history.append(loss)
