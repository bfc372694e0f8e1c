# A Lightning-like module (training_step, validation_step, configure_optimizers) and a tiny hand-written fit loop.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 10


class LitModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        return (self(x).argmax(1) == y).float().mean()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


class MiniTrainer:
    def __init__(self, max_epochs):
        self.max_epochs = max_epochs
        self.logged = []

    def fit(self, module, train_batches, val_batches):
        opt = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            module.train()
            for i, batch in enumerate(train_batches):
                loss = module.training_step(batch, i)
                opt.zero_grad()
                loss.backward()
                opt.step()
            module.eval()
            with torch.no_grad():
                accs = [module.validation_step(b, i).item() for i, b in enumerate(val_batches)]
            self.logged.append({"epoch": epoch, "val_acc": sum(accs) / len(accs)})


def batches(n):
    return [(torch.randn(8, 8), torch.randint(0, 3, (8,))) for _ in range(n)]


trainer = MiniTrainer(max_epochs=STEPS)
trainer.fit(LitModel(), batches(4), batches(2))
print(trainer.logged[-1])
