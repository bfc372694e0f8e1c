# Hyperparameters in a dataclass with dataclasses.field(default_factory=...) for the layer sizes.
from dataclasses import dataclass, field
from typing import List

import torch
import torch.nn as nn

STEPS = 30


@dataclass
class Config:
    lr: float = 1e-3
    hidden: List[int] = field(default_factory=lambda: [16, 16])
    weight_decay: float = 0.01
    batch_size: int = 16


def build(cfg: Config) -> nn.Module:
    layers, width = [], 8
    for h in cfg.hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, 1))
    return nn.Sequential(*layers)


cfg = Config()
model = build(cfg)
opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
for step in range(STEPS):
    x = torch.randn(cfg.batch_size, 8)
    loss = nn.functional.mse_loss(model(x), x.mean(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
