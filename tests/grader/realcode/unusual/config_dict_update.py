"""A config class that fills itself with `self.__dict__.update(kwargs)` (minGPT's CfgNode)."""
import torch
import torch.nn as nn


class Config:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def merge(self, d):
        self.__dict__.update(d)

    def __repr__(self):
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items()) + ")"


cfg = Config(lr=0.05, steps=30, width=16)
cfg.merge({"steps": 25})
print(cfg)
model = nn.Sequential(nn.Linear(4, cfg.width), nn.Tanh(), nn.Linear(cfg.width, 1))
opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
for step in range(cfg.steps):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
