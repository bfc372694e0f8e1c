# A Trainer class logs each step's loss tensor into self.metrics['loss'].
import torch
import torch.nn as nn
from collections import defaultdict


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.metrics = defaultdict(list)

    def train_step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss

    def fit(self, steps):
        for step in range(steps):
            x, y = torch.randn(16, 8), torch.randn(16, 1)
            loss = self.train_step(x, y)
            self.metrics["loss"].append(loss)


trainer = Trainer(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)))
trainer.fit(100)
