# A gradient penalty with create_graph=True, used inside the step; only floats are kept.
import torch
import torch.nn as nn

model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
penalties = []
for step in range(80):
    x = torch.randn(8, 5, requires_grad=True)
    out = model(x).sum()
    (grad_x,) = torch.autograd.grad(out, x, create_graph=True)
    penalty = (grad_x.norm(dim=1) - 1).pow(2).mean()
    loss = out.pow(2) / 64 + penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
    penalties.append(penalty.item())
