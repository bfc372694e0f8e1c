# A while loop that logs with .item().
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
step = 0
best = float("inf")
while step < 150:
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    best = min(best, loss.item())
    step += 1
