# A straight-through estimator written as a torch.autograd.Function (round in forward, identity gradient).
import torch
import torch.nn as nn

STEPS = 30


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class QuantLinear(nn.Linear):
    def forward(self, x):
        scale = self.weight.abs().max() / 7
        w_q = RoundSTE.apply(self.weight / scale) * scale
        return nn.functional.linear(x, w_q, self.bias)


model = nn.Sequential(QuantLinear(6, 16), nn.ReLU(), QuantLinear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(16, 6)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
