# Nested epochs and batches; the batch loop is the step, and its losses pile up across epochs.
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [torch.randn(8, 4) for _ in range(10)]
losses = []
for epoch in range(20):
    for x in batches:
        for p in model.parameters():
            p.requires_grad_(True)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
