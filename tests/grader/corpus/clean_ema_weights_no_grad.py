# An EMA of the weights updated in place under torch.no_grad().
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
    with torch.no_grad():
        for name, p in model.named_parameters():
            ema[name].mul_(0.99).add_(p, alpha=0.01)
print(ema["weight"].norm().item())
