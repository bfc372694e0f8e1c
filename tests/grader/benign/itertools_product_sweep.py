# A small hyperparameter sweep over itertools.product(lrs, widths), each run short; results kept as floats.
import itertools

import torch
import torch.nn as nn

STEPS = 10

results = {}
for lr, width in itertools.product([0.01, 0.1], [4, 8]):
    model = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, 1))
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for step in range(STEPS):
        x = torch.randn(16, 3)
        loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
        opt.zero_grad()
        loss.backward()
        opt.step()
    results[(lr, width)] = loss.item()
print(min(results, key=results.get))
