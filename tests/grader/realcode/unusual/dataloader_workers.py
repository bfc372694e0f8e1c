"""A DataLoader with `num_workers=2` over a custom Dataset (a `__main__` guard, as workers need)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        x = torch.tensor([i / 64.0])
        return x, x ** 2


def main():
    loader = DataLoader(Squares(), batch_size=16, shuffle=True, num_workers=2)
    model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(4):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("final loss", loss.item())


if __name__ == "__main__":
    main()
