# Warmup steps log floats; after warmup the main phase adds the loss tensor to a running total.
import torch
import torch.nn as nn

STEPS = 40
WARMUP = 5

model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / WARMUP))
warmup_log = []
main_total = 0
for step in range(STEPS):
    loss = model(torch.randn(8, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if step < WARMUP:
        warmup_log.append(loss.item())
    else:
        main_total = main_total + loss
print(main_total.item() / (STEPS - WARMUP))
