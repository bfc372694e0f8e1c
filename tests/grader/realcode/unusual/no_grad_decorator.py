"""`@torch.no_grad()` (and `@torch.inference_mode()`) as decorators on evaluation functions."""
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.no_grad()
def evaluate(x):
    return model(x).pow(2).mean().item()


@torch.inference_mode()
def predict(x):
    return model(x)


val = torch.randn(32, 4)
for step in range(30):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, evaluate(val), predict(val).requires_grad)
