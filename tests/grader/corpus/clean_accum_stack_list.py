# Micro-batch losses are collected in a list and torch.stack(...).mean().backward() runs every 4; the list is renewed.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(8, 2)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
micro_losses = []
for step in range(STEPS):
    x, y = torch.randn(4, 8), torch.randint(0, 2, (4,))
    micro_losses.append(nn.functional.cross_entropy(model(x), y))
    if len(micro_losses) == 4:
        loss = torch.stack(micro_losses).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        micro_losses = []
