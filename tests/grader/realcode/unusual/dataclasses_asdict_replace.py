"""A dataclass config with `dataclasses.asdict` for logging and `dataclasses.replace` for a sweep."""
import dataclasses
from dataclasses import dataclass, field

import torch
import torch.nn as nn


@dataclass(frozen=True)
class TrainConfig:
    lr: float = 0.05
    steps: int = 15
    hidden: int = 8
    tags: tuple = field(default_factory=tuple)


base = TrainConfig(tags=("toy",))
for cfg in [base, dataclasses.replace(base, lr=0.1, hidden=16)]:
    print(dataclasses.asdict(cfg), [f.name for f in dataclasses.fields(cfg)])
    model = nn.Sequential(nn.Linear(4, cfg.hidden), nn.ReLU(), nn.Linear(cfg.hidden, 1))
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    for step in range(cfg.steps):
        x = torch.randn(8, 4)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
