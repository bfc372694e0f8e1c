# Recent losses (graphs and all) are collected and the list is cleared every 5 steps: a bounded window.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
window = []
for step in range(STEPS):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    window.append(loss)
    if len(window) == 5:
        print(sum(l.item() for l in window) / 5)
        window.clear()
