# SequentialLR: LinearLR warmup followed by CosineAnnealingLR, per step.
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR

STEPS = 40
WARMUP = 5

model = nn.Linear(6, 3)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
sched = SequentialLR(
    opt,
    schedulers=[LinearLR(opt, start_factor=0.1, total_iters=WARMUP), CosineAnnealingLR(opt, T_max=STEPS - WARMUP)],
    milestones=[WARMUP],
)
for step in range(STEPS):
    x, y = torch.randn(16, 6), torch.randint(0, 3, (16,))
    loss = nn.functional.cross_entropy(model(x), y, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
