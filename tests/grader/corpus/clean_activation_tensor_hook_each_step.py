# A gradient hook is registered every step on a non-leaf activation: the hook dies with that step's graph.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
grad_norms = []
for step in range(STEPS):
    h = model[1](model[0](torch.randn(16, 4)))
    h.register_hook(lambda g: grad_norms.append(g.norm().item()))
    loss = model[2](h).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(grad_norms))
