# Loss sums by group with sums[g] = sums.get(g, 0) + loss_g: each group's tensor chains its steps.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.02)
sums, counts = {}, {}
for step in range(STEPS):
    group = "even" if step % 2 == 0 else "odd"
    loss = (model(torch.randn(8, 5)) - step % 2).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sums[group] = sums.get(group, 0) + loss
    counts[group] = counts.get(group, 0) + 1
print({g: (sums[g] / counts[g]).item() for g in sums})
