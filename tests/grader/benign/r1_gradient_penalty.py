# A discriminator with the R1 penalty: gradients of D(real) w.r.t. real inputs with create_graph=True, every step.
import torch
import torch.nn as nn

STEPS = 30

D = nn.Sequential(nn.Linear(2, 32), nn.SiLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.0, 0.99))
for step in range(STEPS):
    real = (torch.randn(16, 2) + 1).requires_grad_(True)
    fake = torch.randn(16, 2)
    d_real = D(real)
    (grad_real,) = torch.autograd.grad(d_real.sum(), real, create_graph=True)
    r1 = grad_real.pow(2).sum(1).mean()
    loss = nn.functional.softplus(-d_real).mean() + nn.functional.softplus(D(fake)).mean() + 5.0 * r1
    opt.zero_grad()
    loss.backward()
    opt.step()
