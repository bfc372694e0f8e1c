# Predictions for later evaluation are computed under no_grad, so they carry no graph.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(6, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
predictions = []
for step in range(120):
    x = torch.randn(8, 6)
    target = torch.randint(0, 3, (8,))
    loss = F.cross_entropy(model(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        predictions.append(model(x).softmax(dim=1))
