# A while loop pulls batches from an iterator with next() until it runs out.
import torch
import torch.nn as nn

data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(80)]
model = nn.Linear(4, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
it = iter(data)
total = 0.0
while True:
    try:
        x, y = next(it)
    except StopIteration:
        break
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
print(total / len(data))
