# A torchmetrics-style metric whose list states keep each batch's detached predictions until reset() at epoch end.
import torch
import torch.nn as nn

STEPS = 8
BATCHES = 10


class Accuracy:
    def __init__(self):
        self.reset()

    def update(self, preds, target):
        self.preds.append(preds.detach().softmax(dim=1))
        self.target.append(target)

    def compute(self):
        preds, target = torch.cat(self.preds), torch.cat(self.target)
        return (preds.argmax(dim=1) == target).float().mean().item()

    def reset(self):
        self.preds, self.target = [], []


model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
metric = Accuracy()
data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(BATCHES)]
for epoch in range(STEPS):
    for x, y in data:
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        metric.update(logits, y)
    print(epoch, metric.compute())
    metric.reset()
