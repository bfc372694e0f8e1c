# An echo-state cell written as an autograd.Function (save_for_backward, hand-written backward) over a trainable
# input projection; the hidden state is never detached and backward(retain_graph=True) walks the ever-longer chain.
import torch
import torch.nn as nn

STEPS = 30


class ReservoirStep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u, h, w_res):
        h_new = torch.tanh(u + h @ w_res)
        ctx.save_for_backward(w_res, h_new)
        return h_new

    @staticmethod
    def backward(ctx, grad_h):
        w_res, h_new = ctx.saved_tensors
        g = grad_h * (1 - h_new.pow(2))
        return g, g @ w_res.t(), None


w_res = 0.9 * torch.linalg.qr(torch.randn(16, 16))[0]
inp = nn.Linear(3, 16)
readout = nn.Linear(16, 1)
opt = torch.optim.SGD(list(inp.parameters()) + list(readout.parameters()), lr=0.01)
h = torch.zeros(4, 16)
for step in range(STEPS):
    x = torch.randn(4, 3)
    h = ReservoirStep.apply(inp(x), h, w_res)
    loss = (readout(h) - x.sum(1, keepdim=True)).pow(2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
