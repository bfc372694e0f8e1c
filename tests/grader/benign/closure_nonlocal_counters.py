# A closure-based meter using nonlocal float counters.
import torch
import torch.nn as nn

STEPS = 30


def make_meter():
    total, count = 0.0, 0

    def update(value, n=1):
        nonlocal total, count
        total += value * n
        count += n
        return total / count

    return update


meter = make_meter()
model = nn.Linear(5, 2)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(STEPS):
    x, y = torch.randn(8, 5), torch.randint(0, 2, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    avg = meter(loss.item(), len(y))
print(avg)
