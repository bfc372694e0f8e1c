# Input-gradient saliency maps are computed with create_graph=True (to reuse them in a penalty) and also kept in a list.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(6, 16), nn.Softplus(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
saliency = []
for step in range(STEPS):
    x = torch.randn(8, 6, requires_grad=True)
    out = model(x)
    (grad_x,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    loss = out.pow(2).mean() + 0.1 * grad_x.pow(2).sum(1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    saliency.append(grad_x.abs().mean(0))
print(torch.stack(saliency).shape)
