# Gradient norms from create_graph=True gradients are differentiable, so the kept norms hold
# both the forward graph and the gradient graph.
import torch
import torch.nn as nn

model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
grad_norms = []
for step in range(80):
    x = torch.randn(8, 5)
    loss = model(x).pow(2).mean()
    grads = torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
    penalty = sum(g.pow(2).sum() for g in grads)
    opt.zero_grad()
    (loss + 0.1 * penalty).backward()
    opt.step()
    grad_norms.append(penalty.sqrt())
