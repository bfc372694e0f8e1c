# The Lightning-style loop again, but validation runs under no_grad and the outputs list is cleared at epoch end.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 20
BATCHES = 4


class LitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
        self.validation_step_outputs = []

    def training_step(self, batch):
        x, y = batch
        return F.cross_entropy(self.net(x), y)

    def validation_step(self, batch):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.validation_step_outputs.append(loss)
        return loss

    def on_validation_epoch_end(self):
        mean = torch.stack(self.validation_step_outputs).mean().item()
        self.validation_step_outputs.clear()
        return mean

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


model = LitClassifier()
opt = model.configure_optimizers()
train_batches = [(torch.randn(8, 6), torch.randint(0, 2, (8,))) for _ in range(BATCHES)]
val_batches = [(torch.randn(8, 6), torch.randint(0, 2, (8,))) for _ in range(2)]
for epoch in range(STEPS):
    model.train()
    for batch in train_batches:
        loss = model.training_step(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        for batch in val_batches:
            model.validation_step(batch)
    val_loss = model.on_validation_epoch_end()
print(val_loss)
