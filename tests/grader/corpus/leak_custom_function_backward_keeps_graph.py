# A custom autograd Function's backward computes, under enable_grad, a diagnostic from the incoming gradient and a
# parameter and keeps it in a list: graph born in a backward torch runs itself (issue 23).
import torch
import torch.nn as nn

STEPS = 30

weight = nn.Parameter(torch.ones(4))
diagnostics = []


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        with torch.enable_grad():
            diagnostics.append((grad * weight).sum())
        return grad * 2


model = nn.Linear(4, 4)
opt = torch.optim.SGD(list(model.parameters()) + [weight], lr=0.01)
for step in range(STEPS):
    loss = Scale.apply(model(torch.randn(8, 4))).pow(2).mean() + weight.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(diagnostics))
