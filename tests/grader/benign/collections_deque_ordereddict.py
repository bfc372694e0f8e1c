# A deque(maxlen=20) of float losses for a moving average and an OrderedDict of per-epoch summaries.
from collections import OrderedDict, deque

import torch
import torch.nn as nn

STEPS = 8

model = nn.Linear(4, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
recent = deque(maxlen=20)
summary = OrderedDict()
for epoch in range(STEPS):
    for b in range(5):
        x = torch.randn(8, 4)
        loss = nn.functional.mse_loss(model(x), x.mean(1, keepdim=True))
        opt.zero_grad()
        loss.backward()
        opt.step()
        recent.append(loss.item())
    summary[f"epoch{epoch}"] = sum(recent) / len(recent)
print(list(summary.items())[-1])
