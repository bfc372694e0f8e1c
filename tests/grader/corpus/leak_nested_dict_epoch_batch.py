# logs[epoch][batch] = loss: a nested dict over epochs (STEPS of them) keeps every batch's loss tensor.
import torch
import torch.nn as nn

STEPS = 15

model = nn.Linear(5, 2)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
batches = [torch.randn(8, 5) for _ in range(4)]
logs = {}
for epoch in range(STEPS):
    logs[epoch] = {}
    for b, x in enumerate(batches):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        logs[epoch][b] = loss
print(len(logs))
