# A Transformer-XL-style memory of the last M hidden rows, detached before it is stored.
import torch
import torch.nn as nn

STEPS = 40
M = 12

proj = nn.Linear(8, 8)
attn_out = nn.Linear(8, 1)
opt = torch.optim.SGD(list(proj.parameters()) + list(attn_out.parameters()), lr=0.01)
memory = torch.zeros(M, 8)
for step in range(STEPS):
    x = torch.randn(4, 8)
    h = torch.tanh(proj(x))
    context = torch.cat([memory, h])
    weights = torch.softmax(h @ context.t() / 8 ** 0.5, dim=-1)
    loss = attn_out(weights @ context).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    memory = torch.cat([memory, h.detach()])[-M:]
