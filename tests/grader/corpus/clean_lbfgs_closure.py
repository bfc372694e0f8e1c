# LBFGS with a closure that calls backward(); opt.step(closure) returns the loss.
import torch
import torch.nn as nn

model = nn.Linear(5, 1)
opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)
x, y = torch.randn(64, 5), torch.randn(64, 1)
losses = []


def closure():
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss


for step in range(60):
    loss = opt.step(closure)
    losses.append(loss.item())
