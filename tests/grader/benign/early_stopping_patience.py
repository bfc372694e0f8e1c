# Early stopping with patience on a float validation loss (no_grad), breaking out of the loop.
import torch
import torch.nn as nn

STEPS = 60

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
xv = torch.randn(32, 4)
yv = xv @ torch.tensor([[1.0], [-1.0], [0.5], [0.0]])
best, bad, patience = float("inf"), 0, 5
for step in range(STEPS):
    x = torch.randn(16, 4)
    loss = nn.functional.mse_loss(model(x), x @ torch.tensor([[1.0], [-1.0], [0.5], [0.0]]))
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        val = nn.functional.mse_loss(model(xv), yv).item()
    if val < best - 1e-4:
        best, bad = val, 0
    else:
        bad += 1
        if bad >= patience:
            break
print(step, best)
