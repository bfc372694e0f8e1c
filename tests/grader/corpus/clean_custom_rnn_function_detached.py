# The hand-written recurrent autograd.Function again, trained with truncated BPTT: the hidden state is detached at
# the end of every 5-step chunk, so the chain never outgrows a chunk.
import torch

STEPS = 40
CHUNK = 5


class TanhCell(torch.autograd.Function):
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
readout = torch.nn.Linear(8, 1)
opt = torch.optim.SGD([w_x, w_h] + list(readout.parameters()), lr=0.01)
h = torch.zeros(4, 8)
chunk_loss = 0
for step in range(STEPS):
    x = torch.randn(4, 3)
    h = TanhCell.apply(x, h, w_x, w_h)
    chunk_loss = chunk_loss + (readout(h) - x.sum(1, keepdim=True)).pow(2).mean()
    if (step + 1) % CHUNK == 0:
        opt.zero_grad()
        chunk_loss.backward()
        opt.step()
        h = h.detach()
        chunk_loss = 0
