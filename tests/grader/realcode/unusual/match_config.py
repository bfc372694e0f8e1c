"""`match` on a config string to pick the optimizer and activation."""
import torch
import torch.nn as nn


def make_optimizer(name, params):
    match name:
        case "sgd":
            return torch.optim.SGD(params, lr=0.05, momentum=0.9)
        case "adam" | "adamw":
            return torch.optim.AdamW(params, lr=1e-2)
        case _:
            raise ValueError(name)


def activation(spec):
    match spec.split(":"):
        case ["relu"]:
            return nn.ReLU()
        case ["leaky", slope]:
            return nn.LeakyReLU(float(slope))
        case other:
            raise ValueError(other)


for opt_name in ("sgd", "adamw"):
    model = nn.Sequential(nn.Linear(4, 8), activation("leaky:0.1"), nn.Linear(8, 1))
    opt = make_optimizer(opt_name, model.parameters())
    for step in range(15):
        x = torch.randn(8, 4)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
