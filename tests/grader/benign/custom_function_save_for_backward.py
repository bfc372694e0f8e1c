# A custom smooth activation as an autograd.Function with ctx.save_for_backward and a hand-written backward.
import torch
import torch.nn as nn

STEPS = 30


class SoftSign(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (1 + x.abs())

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / (1 + x.abs()).pow(2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 16)
        self.b = nn.Linear(16, 1)

    def forward(self, x):
        return self.b(SoftSign.apply(self.a(x)))


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(16, 4)
    loss = nn.functional.mse_loss(model(x), torch.sin(x).sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
