# An EarlyStopping helper keeps every validation loss it is given; validation runs without no_grad, every 2 steps.
import torch
import torch.nn as nn

STEPS = 60


class EarlyStopping:
    def __init__(self, patience=1000):
        self.patience = patience
        self.history = []

    def should_stop(self, val_loss):
        self.history.append(val_loss)
        best = min(range(len(self.history)), key=lambda i: self.history[i].item())
        return len(self.history) - 1 - best > self.patience


model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x_val = torch.randn(64, 5)
y_val = x_val.sum(1, keepdim=True)
stopper = EarlyStopping()
for step in range(STEPS):
    x = torch.randn(16, 5)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 0:
        if stopper.should_stop(nn.functional.mse_loss(model(x_val), y_val)):
            break
