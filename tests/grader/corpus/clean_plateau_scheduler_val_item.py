# ReduceLROnPlateau driven by a validation loss computed under no_grad and passed as a float.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(5, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2)
xv = torch.randn(32, 5)
yv = xv @ torch.ones(5, 1)
for step in range(STEPS):
    x = torch.randn(16, 5)
    loss = nn.functional.mse_loss(model(x), x @ torch.ones(5, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 3:
        with torch.no_grad():
            val = nn.functional.mse_loss(model(xv), yv).item()
        sched.step(val)
print(opt.param_groups[0]["lr"])
