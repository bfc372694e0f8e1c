# Hessian-vector products (double backward) are logged per step as tensors that still hold the double graph.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
params = list(model.parameters())
opt = torch.optim.SGD(params, lr=0.01)
curvature = []
for step in range(STEPS):
    loss = model(torch.randn(16, 3)).pow(2).mean()
    grads = torch.autograd.grad(loss, params, create_graph=True)
    vs = [torch.randn_like(p) for p in params]
    gv = sum((g * v).sum() for g, v in zip(grads, vs))
    hv = torch.autograd.grad(gv, params, create_graph=True)
    curvature.append(sum((h * v).sum() for h, v in zip(hv, vs)))
    opt.zero_grad()
    loss.backward()
    opt.step()
print(curvature[-1].item())
