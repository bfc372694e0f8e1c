# A while loop over a sample budget; the sample-weighted loss total is a tensor.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
seen, weighted_total, step = 0, 0.0, 0
while step < STEPS:
    batch = 4 + step % 5
    x = torch.randn(batch, 3)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    weighted_total = weighted_total + loss * batch
    seen += batch
    step += 1
print(weighted_total.item() / seen)
