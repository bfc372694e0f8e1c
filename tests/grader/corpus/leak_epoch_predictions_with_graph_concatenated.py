# Each epoch's predictions are collected without detach and concatenated at epoch end to score the epoch: every
# batch's graph lives until the next epoch starts (issue 23).
import torch
import torch.nn as nn

STEPS = 6
BATCHES = 12

model = nn.Linear(6, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = [(torch.randn(16, 6), torch.randint(0, 2, (16,))) for _ in range(BATCHES)]
for epoch in range(STEPS):
    preds, labels = [], []
    for x, y in data:
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        preds.append(logits.argmax(1) * 0 + logits[:, 1])
        labels.append(y)
    score = (torch.cat(preds) > 0).float().mean().item()
    print(epoch, score)
