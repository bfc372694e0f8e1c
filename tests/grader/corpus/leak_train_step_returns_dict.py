# train_step() returns a dict of loss tensors, and fit() appends each dict to a history list.
import torch
import torch.nn as nn

STEPS = 30

encoder = nn.Linear(6, 4)
decoder = nn.Linear(4, 6)
opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-3)


def train_step(x):
    z = encoder(x)
    recon = decoder(z)
    losses = {"recon": (recon - x).pow(2).mean(), "l1": 1e-3 * z.abs().mean()}
    total = sum(losses.values())
    opt.zero_grad()
    total.backward()
    opt.step()
    losses["total"] = total
    return losses


def fit(steps):
    history = []
    for step in range(steps):
        history.append(train_step(torch.randn(16, 6)))
    return history


history = fit(STEPS)
print(history[-1]["total"].item())
