# torch.utils.data: TensorDataset and a shuffling single-process DataLoader, epochs set by STEPS.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

STEPS = 5

x = torch.randn(64, 4)
y = (x.sum(1) > 0).long()
loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(STEPS):
    running = 0.0
    for xb, yb in loader:
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item() * len(yb)
    print(epoch, running / len(loader.dataset))
