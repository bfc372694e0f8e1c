# MAML with three inner SGD steps (create_graph=True) per task and one meta update per batch of tasks.
import torch
import torch.nn.functional as F

STEPS = 20

w = (0.1 * torch.randn(1, 1)).requires_grad_()
b = torch.zeros(1, requires_grad=True)
meta_opt = torch.optim.Adam([w, b], lr=1e-2)


def task_batch(n):
    slope = torch.randn(())
    x = torch.randn(n, 1)
    return x, slope * x


for it in range(STEPS):
    meta_loss = 0
    for task in range(4):
        xs, ys = task_batch(8)
        xq, yq = task_batch(8)
        fw, fb = w, b
        for inner in range(3):
            inner_loss = F.mse_loss(F.linear(xs, fw, fb), ys)
            gw, gb = torch.autograd.grad(inner_loss, (fw, fb), create_graph=True)
            fw, fb = fw - 0.1 * gw, fb - 0.1 * gb
        meta_loss = meta_loss + F.mse_loss(F.linear(xq, fw, fb), yq)
    meta_opt.zero_grad()
    (meta_loss / 4).backward()
    meta_opt.step()
