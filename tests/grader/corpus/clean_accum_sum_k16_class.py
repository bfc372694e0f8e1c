# A trainer accumulates 16 micro-losses in self.pending and steps once per window; the sum is replaced after each step.
import torch
import torch.nn as nn

STEPS = 64


class Accumulator:
    def __init__(self, model, every=16):
        self.model = model
        self.every = every
        self.opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        self.pending = None
        self.count = 0

    def micro_step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y) / self.every
        self.pending = loss if self.pending is None else self.pending + loss
        self.count += 1
        if self.count == self.every:
            self.opt.zero_grad()
            self.pending.backward()
            self.opt.step()
            self.pending, self.count = None, 0


acc = Accumulator(nn.Linear(3, 1))
for step in range(STEPS):
    x = torch.randn(4, 3)
    acc.micro_step(x, x.sum(1, keepdim=True))
