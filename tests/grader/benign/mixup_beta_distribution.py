# Mixup with a mixing coefficient drawn from torch.distributions.Beta.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 30

beta = torch.distributions.Beta(torch.tensor(0.4), torch.tensor(0.4))
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(STEPS):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    lam = beta.sample().item()
    perm = torch.randperm(16)
    logits = model(lam * x + (1 - lam) * x[perm])
    loss = lam * F.cross_entropy(logits, y) + (1 - lam) * F.cross_entropy(logits, y[perm])
    opt.zero_grad()
    loss.backward()
    opt.step()
