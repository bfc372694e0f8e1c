# A map-style Dataset subclass (__len__, __getitem__) served by a DataLoader with a batch size.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

STEPS = 4


class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.linspace(-1, 1, n).unsqueeze(1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.x[i] ** 2


loader = DataLoader(Squares(48), batch_size=12, shuffle=True)
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(STEPS):
    for xb, yb in loader:
        loss = nn.functional.mse_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
