# One run_epoch(train: bool) function with torch.set_grad_enabled(train) for both training and validation.
import torch
import torch.nn as nn

STEPS = 10

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
train_data = [(torch.randn(8, 6), torch.randint(0, 2, (8,))) for _ in range(4)]
val_data = [(torch.randn(8, 6), torch.randint(0, 2, (8,))) for _ in range(2)]


def run_epoch(data, train):
    model.train(train)
    total = 0.0
    with torch.set_grad_enabled(train):
        for x, y in data:
            loss = nn.functional.cross_entropy(model(x), y)
            if train:
                opt.zero_grad()
                loss.backward()
                opt.step()
            total += loss.item()
    return total / len(data)


for epoch in range(STEPS):
    tr = run_epoch(train_data, True)
    va = run_epoch(val_data, False)
print(tr, va)
