# Unique "seen" losses are collected in a set; tensors hash by identity, so each step's loss (and graph) is added.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
seen = set()
for step in range(STEPS):
    loss = model(torch.randn(8, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    seen.add(loss)
print(len(seen))
