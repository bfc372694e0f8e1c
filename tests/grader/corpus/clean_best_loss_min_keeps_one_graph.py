# The best loss so far is tracked with min() over tensors: one step's graph stays alive, however long training
# runs (bounded, so not a leak; .item() would still be better).
import torch
import torch.nn as nn

model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
best_loss = float("inf")
for step in range(100):
    loss = model(torch.randn(16, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    best_loss = min(best_loss, loss)
print(best_loss)
