# A hand-rolled EMA of the weights updated outside no_grad: ema = 0.99 * ema + 0.01 * weight chains every step.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
ema = {name: p.detach().clone() for name, p in model.named_parameters()}
for step in range(STEPS):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    for name, p in model.named_parameters():
        ema[name] = 0.99 * ema[name] + 0.01 * p
print(ema["weight"].norm().item())
