# A Jacobian regulariser on a tiny model via torch.autograd.functional.jacobian(create_graph=True), one sample a step.
import torch
import torch.nn as nn
from torch.autograd.functional import jacobian

STEPS = 20

model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(8, 3)
    task = nn.functional.mse_loss(model(x), x[:, :2])
    jac = jacobian(model, x[0], create_graph=True)
    loss = task + 0.01 * jac.pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
