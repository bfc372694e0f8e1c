# A Lightning-style module appends each training_step's loss to self.training_step_outputs and clears it in
# on_train_epoch_end: every batch's graph is kept until the epoch ends (issue 23).
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 8
BATCHES = 8


class LitRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 1))
        self.training_step_outputs = []

    def training_step(self, batch):
        x, y = batch
        loss = F.mse_loss(self.net(x), y)
        self.training_step_outputs.append(loss)
        return loss

    def on_train_epoch_end(self):
        mean = torch.stack(self.training_step_outputs).mean().item()
        self.training_step_outputs.clear()
        return mean


model = LitRegressor()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
batches = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(BATCHES)]
for epoch in range(STEPS):
    for batch in batches:
        loss = model.training_step(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, model.on_train_epoch_end())
