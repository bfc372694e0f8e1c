# A logger keeps only a weakref.ref to the model it reports on.
import weakref

import torch
import torch.nn as nn

STEPS = 30


class WeightLogger:
    def __init__(self, model):
        self.model_ref = weakref.ref(model)
        self.norms = []

    def log(self):
        model = self.model_ref()
        if model is not None:
            self.norms.append(sum(p.detach().norm().item() for p in model.parameters()))


model = nn.Linear(5, 2)
logger = WeightLogger(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(STEPS):
    loss = model(torch.randn(8, 5)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    logger.log()
print(logger.norms[-1])
