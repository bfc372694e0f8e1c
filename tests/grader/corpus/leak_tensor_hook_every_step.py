# Gradient scaling by the current loss is done with a hook registered on every parameter each step; the hooks are
# never removed and each one closes over its step's loss tensor (computed with grad).
import torch
import torch.nn as nn

STEPS = 40


def scale_by(factor):
    def hook(grad):
        return grad * factor.detach()
    return hook


model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(STEPS):
    loss = nn.functional.mse_loss(model(torch.randn(16, 6)), torch.randn(16, 1))
    factor = 1.0 / (1.0 + loss)
    for p in model.parameters():
        p.register_hook(scale_by(factor))
    opt.zero_grad()
    loss.backward()
    opt.step()
