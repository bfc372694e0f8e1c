# Loss summaries with the statistics module (mean, median, pstdev) over float losses.
import statistics

import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.02)
values = []
for step in range(STEPS):
    x = torch.randn(8, 4)
    loss = nn.functional.l1_loss(model(x), x.max(1, keepdim=True).values)
    opt.zero_grad()
    loss.backward()
    opt.step()
    values.append(loss.item())
print(statistics.mean(values), statistics.median(values), statistics.pstdev(values))
