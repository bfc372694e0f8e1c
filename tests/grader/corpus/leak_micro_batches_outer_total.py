# Nested micro-batch loop with backward() inside; the outer step adds the last loss to a tensor total.
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
total = 0
for step in range(40):
    for micro in range(4):
        loss = model(torch.randn(4, 8)).pow(2).mean() / 4
        loss.backward()
    opt.step()
    opt.zero_grad()
    total += loss
