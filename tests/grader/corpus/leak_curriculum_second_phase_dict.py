# A curriculum: easy examples first, then hard ones; the hard phase keeps per-sample losses by sample id.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
hard_losses = {}
sample_id = 0
for phase, noise in (("easy", 0.1), ("hard", 1.0)):
    for step in range(STEPS // 2):
        x = torch.randn(8, 4)
        y = x.sum(1, keepdim=True) + noise * torch.randn(8, 1)
        per_sample = (model(x) - y).pow(2).squeeze(1)
        loss = per_sample.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if phase == "hard":
            for value in per_sample:
                hard_losses[sample_id] = value
                sample_id += 1
print(len(hard_losses))
