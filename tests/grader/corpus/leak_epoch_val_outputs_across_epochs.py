# STEPS sets the number of epochs; each epoch's validation outputs (no no_grad) are appended to one list for all epochs.
import torch
import torch.nn as nn

STEPS = 20

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
train_data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
val_x = torch.randn(16, 4)
val_outputs_per_epoch = []
for epoch in range(STEPS):
    for x, y in train_data:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    val_outputs_per_epoch.append(model(val_x))
drift = [(a - b).abs().mean().item() for a, b in zip(val_outputs_per_epoch, val_outputs_per_epoch[1:])]
print(drift[-1])
