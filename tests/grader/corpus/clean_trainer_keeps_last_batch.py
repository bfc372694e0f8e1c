# A trainer stores the last batch's outputs on self.last_outputs for a callback: one step's graph, replaced each step.
import torch
import torch.nn as nn

STEPS = 40


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05)
        self.last_outputs = None
        self.last_loss = None

    def step(self, x, y):
        self.last_outputs = self.model(x)
        self.last_loss = nn.functional.cross_entropy(self.last_outputs, y)
        self.opt.zero_grad()
        self.last_loss.backward()
        self.opt.step()


trainer = Trainer(nn.Linear(6, 3))
for step in range(STEPS):
    trainer.step(torch.randn(8, 6), torch.randint(0, 3, (8,)))
print(trainer.last_outputs.shape, trainer.last_loss.item())
