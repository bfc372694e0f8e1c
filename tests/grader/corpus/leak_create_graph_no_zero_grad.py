# backward(create_graph=True) for a gradient-norm penalty, but the grads are never zeroed: each .grad is the previous
# .grad plus a new differentiable term, so the parameters' .grad carry a graph that grows every step.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Linear(4, 1)
lr = 0.01
for step in range(STEPS):
    x = torch.randn(8, 4)
    loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
    loss.backward(create_graph=True)
    grad_norm = sum(p.grad.pow(2).sum() for p in model.parameters())
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    print_every = max(1, STEPS // 3)
    if step % print_every == 0:
        print(step, grad_norm.item())
