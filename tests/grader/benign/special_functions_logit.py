# A Bernoulli likelihood written with torch.special.expit and torch.special.xlogy.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(STEPS):
    x = torch.randn(32, 4)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).float()
    logits = model(x).squeeze(1)
    p = torch.special.expit(logits).clamp(1e-6, 1 - 1e-6)
    loss = -(torch.special.xlogy(y, p) + torch.special.xlogy(1 - y, 1 - p)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
