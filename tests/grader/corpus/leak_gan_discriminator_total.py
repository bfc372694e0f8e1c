# GAN training where the discriminator's epoch-less running loss is a tensor sum.
import torch
import torch.nn as nn

STEPS = 30

generator = nn.Sequential(nn.Linear(3, 12), nn.Tanh(), nn.Linear(12, 2))
critic = nn.Sequential(nn.Linear(2, 12), nn.ReLU(), nn.Linear(12, 1))
g_opt = torch.optim.RMSprop(generator.parameters(), lr=5e-4)
d_opt = torch.optim.RMSprop(critic.parameters(), lr=5e-4)
d_running = 0
for step in range(STEPS):
    real = torch.randn(32, 2) + torch.tensor([2.0, 0.0])
    fake = generator(torch.randn(32, 3))
    d_loss = nn.functional.softplus(-critic(real)).mean() + nn.functional.softplus(critic(fake.detach())).mean()
    d_opt.zero_grad()
    d_loss.backward()
    d_opt.step()
    d_running = d_running + d_loss
    g_loss = nn.functional.softplus(-critic(fake)).mean()
    g_opt.zero_grad()
    g_loss.backward()
    g_opt.step()
print((d_running / STEPS).item())
