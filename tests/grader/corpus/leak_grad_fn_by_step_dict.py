# A debugging dict maps each step to its output's grad_fn, so every step's graph of nodes stays reachable.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(6, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
nodes_by_step = {}
for step in range(STEPS):
    out = model(torch.randn(4, 6)).log_softmax(-1)
    loss = -out[:, 0].mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    nodes_by_step[step] = loss.grad_fn
print(len(nodes_by_step))
