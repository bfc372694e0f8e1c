# A list of dataclass StepRecord objects, each holding the step's logits tensor.
from dataclasses import dataclass, field
from typing import List

import torch
import torch.nn as nn

STEPS = 30


@dataclass
class StepRecord:
    step: int
    logits: torch.Tensor
    tags: List[str] = field(default_factory=list)


model = nn.Linear(6, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
records: List[StepRecord] = []
for step in range(STEPS):
    logits = model(torch.randn(8, 6))
    loss = logits.logsumexp(1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    records.append(StepRecord(step, logits, ["train"]))
print(len(records))
