# backward(create_graph=True) for a gradient-norm penalty, with zero_grad(set_to_none=True) every step: each .grad
# carries only its own step's graph.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(STEPS):
    x = torch.randn(8, 4)
    loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward(create_graph=True)
    grad_norm = sum(p.grad.pow(2).sum() for p in model.parameters())
    opt.step()
    if step % 10 == 0:
        print(step, grad_norm.item())
