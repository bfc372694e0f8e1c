# The best weights are copied with copy.deepcopy(model.state_dict()) when the loss improves.
import copy
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
best, best_state = float("inf"), None
for step in range(100):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if loss.item() < best:
        best = loss.item()
        best_state = copy.deepcopy(model.state_dict())
