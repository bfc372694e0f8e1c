# A Trainer whose evaluate() stores predictions on self for a report; it runs after fit() with grad enabled.
import torch
import torch.nn as nn

STEPS = 30


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters(), lr=lr)
        self.predictions = []

    def fit(self, steps):
        for step in range(steps):
            x = torch.randn(16, 4)
            y = x.prod(dim=1, keepdim=True)
            loss = nn.functional.smooth_l1_loss(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    def evaluate(self, n_batches):
        self.model.eval()
        for i in range(n_batches):
            self.predictions.append(self.model(torch.randn(16, 4)))
        return torch.cat(self.predictions).std().item()


trainer = Trainer(nn.Sequential(nn.Linear(4, 16), nn.SiLU(), nn.Linear(16, 1)))
trainer.fit(STEPS)
print(trainer.evaluate(STEPS))
