# Per-metric history in collections.defaultdict(list); the accuracy is a float but the losses are tensors.
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40

model = nn.Linear(10, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
history = defaultdict(list)
for step in range(STEPS):
    x, y = torch.randn(16, 10), torch.randint(0, 3, (16,))
    logits = model(x)
    ce = F.cross_entropy(logits, y)
    reg = 1e-3 * logits.pow(2).mean()
    loss = ce + reg
    opt.zero_grad()
    loss.backward()
    opt.step()
    history["ce"].append(ce)
    history["reg"].append(reg)
    history["acc"].append((logits.argmax(1) == y).float().mean().item())
print({k: len(v) for k, v in history.items()})
