"""`from __future__ import annotations` with type hints on a model and a training function."""
from __future__ import annotations

import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, width), nn.ReLU(), nn.Linear(width, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def train(model: Regressor, steps: int = 30) -> list[float]:
    opt: torch.optim.Optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    history: list[float] = []
    for _ in range(steps):
        x = torch.randn(16, 8)
        loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss.item())
    return history


print(train(Regressor())[-1])
