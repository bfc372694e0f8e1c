"""`from torch.nn.utils import parametrizations`: weight_norm and orthogonal layers."""
import torch
import torch.nn as nn
from torch.nn.utils import parametrizations

model = nn.Sequential(
    parametrizations.weight_norm(nn.Linear(8, 8)),
    nn.ReLU(),
    parametrizations.orthogonal(nn.Linear(8, 8)),
    nn.Linear(8, 1),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(25):
    x = torch.randn(16, 8)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(model[0].parametrizations.weight.original0.shape)
