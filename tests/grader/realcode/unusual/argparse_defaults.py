"""argparse with defaults, parsed from an empty command line, then vars(args)."""
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser(description="toy regression")
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--hidden", type=int, default=16)
parser.add_argument("--no-bias", action="store_true")
args = parser.parse_args([])
print(vars(args))

model = nn.Sequential(nn.Linear(4, args.hidden, bias=not args.no_bias), nn.ReLU(), nn.Linear(args.hidden, 1))
opt = torch.optim.SGD(model.parameters(), lr=args.lr)
for step in range(args.steps):
    x = torch.randn(8, 4)
    loss = (model(x) - x[:, :1]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
