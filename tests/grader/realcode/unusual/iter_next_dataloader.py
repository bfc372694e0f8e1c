"""`it = iter(loader); next(it)` on a DataLoader, restarted on StopIteration."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(40, 6), torch.randn(40, 1)), batch_size=8, shuffle=True)
model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
first_x, first_y = next(iter(loader))
print("batch shape", tuple(first_x.shape))
it = iter(loader)
for step in range(30):
    try:
        x, y = next(it)
    except StopIteration:
        it = iter(loader)
        x, y = next(it)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
