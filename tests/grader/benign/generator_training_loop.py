# The training loop is a generator yielding float losses; the caller consumes it with enumerate and stops early.
import torch
import torch.nn as nn

STEPS = 40


def training(model, opt):
    while True:
        x = torch.randn(8, 3)
        loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
        opt.zero_grad()
        loss.backward()
        opt.step()
        yield loss.item()


model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step, value in enumerate(training(model, opt)):
    if step + 1 >= STEPS or value < 1e-4:
        break
print(step, value)
