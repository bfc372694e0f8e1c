# A class-balanced WeightedRandomSampler feeding a DataLoader over an imbalanced TensorDataset.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

STEPS = 4

y = torch.cat([torch.zeros(48), torch.ones(8)]).long()
x = torch.randn(56, 3) + y.unsqueeze(1).float()
class_weight = 1.0 / torch.bincount(y).float()
sampler = WeightedRandomSampler(class_weight[y], num_samples=len(y), replacement=True)
loader = DataLoader(TensorDataset(x, y), batch_size=14, sampler=sampler)
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(STEPS):
    for xb, yb in loader:
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
