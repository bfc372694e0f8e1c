# Hand-written RNN training: a custom autograd.Function cell, manual SGD that rebinds fresh weight leaves each step,
# and a hidden state carried across steps without detach(), so every old cell stays in the graph.
import torch

STEPS = 50


class Cell(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, h, w_x, w_h):
        h_new = torch.tanh(x @ w_x + h @ w_h)
        ctx.save_for_backward(x, h, w_x, w_h, h_new)
        return h_new

    @staticmethod
    def backward(ctx, grad_h):
        x, h, w_x, w_h, h_new = ctx.saved_tensors
        g = grad_h * (1 - h_new.pow(2))
        return g @ w_x.t(), g @ w_h.t(), x.t() @ g, h.t() @ g


w_x = (0.3 * torch.randn(3, 8)).requires_grad_()
w_h = (0.3 * torch.randn(8, 8)).requires_grad_()
w_out = (0.3 * torch.randn(8, 1)).requires_grad_()
h = torch.zeros(2, 8)
lr = 0.01
for step in range(STEPS):
    x = torch.randn(2, 3)
    h = Cell.apply(x, h, w_x, w_h)
    loss = (h @ w_out - x.sum(1, keepdim=True)).pow(2).mean()
    g_x, g_h, g_out = torch.autograd.grad(loss, [w_x, w_h, w_out], retain_graph=True, allow_unused=True)
    w_x = (w_x - lr * g_x).detach().requires_grad_()
    w_h = (w_h - lr * g_h).detach().requires_grad_()
    w_out = (w_out - lr * g_out).detach().requires_grad_()
