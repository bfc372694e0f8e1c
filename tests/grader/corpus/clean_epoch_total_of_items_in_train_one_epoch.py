# train_one_epoch() sums loss.item() per batch: a number, so no graph outlives its batch whatever the epoch's length.
import torch
import torch.nn as nn

STEPS = 6
BATCHES = 10

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(BATCHES)]


def train_one_epoch():
    total = 0.0
    for x, y in data:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(data)


for epoch in range(STEPS):
    print(epoch, train_one_epoch())
