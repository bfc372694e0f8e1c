# MAML: an inner adaptation step with create_graph=True, one meta update per task batch.
import torch
import torch.nn as nn
import torch.nn.functional as F

w = torch.randn(1, 4, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
meta_opt = torch.optim.Adam([w, b], lr=1e-3)
meta_losses = []
for it in range(80):
    meta_loss = 0.0
    for task in range(3):
        xs, ys = torch.randn(10, 4), torch.randn(10, 1)
        xq, yq = torch.randn(10, 4), torch.randn(10, 1)
        inner = F.mse_loss(F.linear(xs, w, b), ys)
        gw, gb = torch.autograd.grad(inner, (w, b), create_graph=True)
        fw, fb = w - 0.1 * gw, b - 0.1 * gb
        meta_loss = meta_loss + F.mse_loss(F.linear(xq, fw, fb), yq)
    meta_opt.zero_grad()
    meta_loss.backward()
    meta_opt.step()
    meta_losses.append(meta_loss.item())
