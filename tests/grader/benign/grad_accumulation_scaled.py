# Gradient accumulation done the usual way: loss / accum_steps, backward every micro-batch, step every 4.
import torch
import torch.nn as nn

STEPS = 40
ACCUM = 4

model = nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
opt.zero_grad()
for micro_step in range(STEPS):
    x, y = torch.randn(4, 8), torch.randint(0, 2, (4,))
    loss = nn.functional.cross_entropy(model(x), y) / ACCUM
    loss.backward()
    if (micro_step + 1) % ACCUM == 0:
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        opt.zero_grad()
