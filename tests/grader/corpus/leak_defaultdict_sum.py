# Logging loss.sum() into a collections.defaultdict(float) keeps a growing graph.
import collections
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
stats = collections.defaultdict(float)
for step in range(100):
    per_sample = model(torch.randn(16, 8)).pow(2).squeeze(1)
    loss = per_sample.mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    stats["loss_sum"] += per_sample.sum()
    stats["count"] += 16
