# Per-class loss lists (a dict of lists keyed by label) receive slices of the per-sample loss tensor.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 30

model = nn.Linear(8, 4)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
per_class = {c: [] for c in range(4)}
for step in range(STEPS):
    x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
    per_sample = F.cross_entropy(model(x), y, reduction="none")
    loss = per_sample.mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    for c in range(4):
        mask = y == c
        if mask.any():
            per_class[c].append(per_sample[mask].mean())
print({c: len(v) for c, v in per_class.items()})
