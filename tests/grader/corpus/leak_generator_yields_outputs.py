# A training generator yields (loss value, output tensor); the caller stores the outputs for later analysis.
import torch
import torch.nn as nn

STEPS = 40


def training_steps(model, opt, steps):
    for step in range(steps):
        x = torch.randn(8, 5)
        out = model(x)
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        yield loss.item(), out


model = nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
kept = []
for value, out in training_steps(model, opt, STEPS):
    kept.append(out)
print(value, len(kept))
