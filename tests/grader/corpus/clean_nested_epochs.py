# Nested epochs and batches, with a manual parameter update loop inside the step.
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(10)]
for epoch in range(12):
    total = 0.0
    for x, y in batches:
        loss = (model(x) - y).pow(2).mean()
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.01 * p.grad
        total += loss.item()
