"""`class Phase(enum.Enum)`, `enum.IntEnum` and `enum.auto()` steering a loop."""
import enum

import torch
import torch.nn as nn


class Phase(enum.Enum):
    TRAIN = enum.auto()
    EVAL = enum.auto()


class Reduction(enum.IntEnum):
    MEAN = 0
    SUM = 1


class Summary(str, enum.Enum):
    NONE = "none"
    AVERAGE = "avg"


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
reduction = Reduction.MEAN
for epoch in range(6):
    for phase in Phase:
        model.train(phase is Phase.TRAIN)
        for _ in range(4):
            x = torch.randn(8, 4)
            with torch.set_grad_enabled(phase == Phase.TRAIN):
                err = model(x).pow(2)
                loss = err.mean() if reduction == Reduction.MEAN else err.sum()
            if phase is Phase.TRAIN:
                opt.zero_grad()
                loss.backward()
                opt.step()
print(Phase.TRAIN.name, int(Reduction.SUM), Summary("avg"), [p.value for p in Phase])
