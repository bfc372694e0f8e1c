# train_one_epoch() sums each batch's loss tensor and returns the epoch mean as a float: the running total keeps
# every batch's graph until the function returns, once per epoch, a climb as long as the epoch (issue 23).
import torch
import torch.nn as nn

STEPS = 6
BATCHES = 10

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(BATCHES)]


def train_one_epoch():
    total = 0
    for x, y in data:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss
    return total.item() / len(data)


for epoch in range(STEPS):
    print(epoch, train_one_epoch())
