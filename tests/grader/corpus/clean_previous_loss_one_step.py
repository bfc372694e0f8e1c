# The previous step's loss tensor is kept for one step to compute a loss-change signal, then replaced.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(6, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
prev_loss = None
deltas = []
for step in range(STEPS):
    loss = model(torch.randn(8, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if prev_loss is not None:
        deltas.append((loss - prev_loss).item())
    prev_loss = loss
