# Each epoch's detached predictions are concatenated at epoch end to score the epoch.
import torch
import torch.nn as nn

model = nn.Linear(6, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = [(torch.randn(16, 6), torch.randint(0, 2, (16,))) for _ in range(20)]
for epoch in range(5):
    preds, labels = [], []
    for x, y in data:
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        preds.append(logits.detach().argmax(1))
        labels.append(y)
    acc = (torch.cat(preds) == torch.cat(labels)).float().mean().item()
    print(epoch, acc)
