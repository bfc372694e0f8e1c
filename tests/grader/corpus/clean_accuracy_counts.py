# Counting correct predictions: argmax and comparisons carry no graph.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(10, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
correct = 0
seen = 0
for step in range(120):
    x = torch.randn(16, 10)
    y = torch.randint(0, 4, (16,))
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    correct += (logits.argmax(dim=1) == y).sum()
    seen += len(y)
print(correct.item() / seen)
