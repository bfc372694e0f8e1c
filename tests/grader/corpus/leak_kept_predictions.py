# Predictions collected for later evaluation still carry the forward graph.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(6, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
predictions = []
for step in range(120):
    x = torch.randn(8, 6)
    target = torch.randint(0, 3, (8,))
    logits = model(x)
    loss = F.cross_entropy(logits, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    predictions.append(logits.softmax(dim=1))
