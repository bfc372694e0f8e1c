# Losses configured with functools.partial, and layers composed with functools.reduce.
import functools

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 30

criterion = functools.partial(F.smooth_l1_loss, beta=0.5, reduction="mean")
layers = [nn.Linear(4, 8), nn.Linear(8, 8), nn.Linear(8, 1)]
params = [p for layer in layers for p in layer.parameters()]
opt = torch.optim.Adam(params, lr=1e-3)


def forward(x):
    return functools.reduce(lambda h, layer: torch.tanh(layer(h)), layers[:-1], x)


for step in range(STEPS):
    x = torch.randn(16, 4)
    loss = criterion(layers[-1](forward(x)), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
