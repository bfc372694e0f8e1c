# Backpropagating a growing total with retain_graph=True: each step re-runs all old graphs.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
total = torch.zeros(())
for step in range(100):
    x = torch.randn(4, 3)
    loss = model(x).abs().mean()
    total = total + loss
    opt.zero_grad()
    total.backward(retain_graph=True)
    opt.step()
