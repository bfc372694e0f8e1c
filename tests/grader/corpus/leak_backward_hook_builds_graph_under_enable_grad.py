# A tensor hook, run by autograd during backward, turns each gradient into a penalty term under enable_grad and keeps
# it: graph born inside backward, where no TorchFunctionMode is active (issue 23).
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scale = torch.ones(1, requires_grad=True)
penalties = []


def keep_penalty(grad):
    with torch.enable_grad():
        penalties.append((grad * scale).pow(2).sum())
    return grad


for step in range(STEPS):
    hidden = model[0](torch.randn(8, 6))
    hidden.register_hook(keep_penalty)
    loss = model[2](model[1](hidden)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(penalties))
