# torch.optim.lr_scheduler.StepLR stepped once per epoch of a few batches.
import torch
import torch.nn as nn

STEPS = 12

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
data = [(torch.randn(8, 8), torch.randn(8, 1)) for _ in range(3)]
for epoch in range(STEPS):
    for x, y in data:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    sched.step()
print(sched.get_last_lr())
