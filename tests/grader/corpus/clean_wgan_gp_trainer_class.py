# A WGAN-GP trainer class; the critic loop runs n_critic=5 times per generator update and keeps only floats.
import torch
import torch.nn as nn

STEPS = 16


class WGANGP:
    def __init__(self, n_critic=5, lam=10.0):
        self.gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
        self.critic = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
        self.g_opt = torch.optim.Adam(self.gen.parameters(), lr=2e-4, betas=(0.0, 0.9))
        self.c_opt = torch.optim.Adam(self.critic.parameters(), lr=2e-4, betas=(0.0, 0.9))
        self.n_critic, self.lam = n_critic, lam
        self.history = {"critic": [], "gen": [], "gp": []}

    def penalty(self, real, fake):
        alpha = torch.rand(real.size(0), 1)
        x_hat = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        grad = torch.autograd.grad(self.critic(x_hat).sum(), x_hat, create_graph=True)[0]
        return (grad.norm(dim=1) - 1).pow(2).mean()

    def step(self):
        for _ in range(self.n_critic):
            real = torch.randn(8, 3) * 0.5 + 1
            fake = self.gen(torch.randn(8, 4)).detach()
            gp = self.penalty(real, fake)
            c_loss = self.critic(fake).mean() - self.critic(real).mean() + self.lam * gp
            self.c_opt.zero_grad()
            c_loss.backward()
            self.c_opt.step()
        g_loss = -self.critic(self.gen(torch.randn(8, 4))).mean()
        self.g_opt.zero_grad()
        g_loss.backward()
        self.g_opt.step()
        self.history["critic"].append(c_loss.item())
        self.history["gp"].append(gp.item())
        self.history["gen"].append(g_loss.item())


gan = WGANGP()
for step in range(STEPS):
    gan.step()
