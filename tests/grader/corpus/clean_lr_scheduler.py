# A cosine LR schedule stepped every batch, logging the loss and the learning rate as floats.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(12, 24), nn.GELU(), nn.Linear(24, 3))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)
log = []
for step in range(100):
    x = torch.randn(32, 12)
    y = torch.randint(0, 3, (32,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    log.append((step, loss.item(), sched.get_last_lr()[0]))
