# An nn.Module wraps a custom recurrent Function and stores the hidden state on self between batches, undetached.
import torch
import torch.nn as nn

STEPS = 30


class GatedStep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h, u, gate):
        g = torch.sigmoid(gate)
        out = g * h + (1 - g) * torch.tanh(u)
        ctx.save_for_backward(h, u, g)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        h, u, g = ctx.saved_tensors
        t = torch.tanh(u)
        grad_h = grad_out * g
        grad_u = grad_out * (1 - g) * (1 - t.pow(2))
        grad_gate = grad_out * (h - t) * g * (1 - g)
        return grad_h, grad_u, grad_gate


class StatefulRNN(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.inp = nn.Linear(n_in, n_hidden)
        self.gate = nn.Linear(n_in, n_hidden)
        self.out = nn.Linear(n_hidden, 1)
        self.h = torch.zeros(1, n_hidden)

    def forward(self, x):
        self.h = GatedStep.apply(self.h, self.inp(x), self.gate(x))
        return self.out(self.h)


model = StatefulRNN(4, 8)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(1, 4)
    loss = (model(x) - x.mean()).pow(2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
