"""`from torch.utils.data.dataloader import DataLoader` (the module path minGPT imports from)."""
import torch
import torch.nn as nn
from torch.utils.data.dataloader import DataLoader
from torch.utils.data.dataset import TensorDataset
from torch.utils.data.sampler import RandomSampler

ds = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
loader = DataLoader(ds, batch_size=8, sampler=RandomSampler(ds, replacement=True, num_samples=64))
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
