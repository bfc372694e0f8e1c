# Positive-class probabilities are sliced out of softmax and kept for an AUC at the end.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(10, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scores, targets = [], []
for step in range(100):
    x, y = torch.randn(32, 10), torch.randint(0, 2, (32,))
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    scores.append(F.softmax(logits, dim=-1)[:, 1])
    targets.append(y)
