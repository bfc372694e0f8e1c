# A frozen dataclass of hyperparameters and a mutable dataclass of run state.
from dataclasses import dataclass, field

import torch
import torch.nn as nn

STEPS = 30


@dataclass(frozen=True)
class HParams:
    lr: float = 0.05
    momentum: float = 0.9
    clip: float = 1.0


@dataclass
class RunState:
    step: int = 0
    losses: list = field(default_factory=list)
    best: float = float("inf")


hp = HParams()
state = RunState()
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=hp.lr, momentum=hp.momentum)
while state.step < STEPS:
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), hp.clip)
    opt.step()
    state.losses.append(loss.item())
    state.best = min(state.best, state.losses[-1])
    state.step += 1
print(state.best)
