# An orthogonality penalty ||W W^T - I|| via torch.linalg.matrix_norm, plus a torch.linalg.svdvals readout.
import torch
import torch.nn as nn

STEPS = 30

layer = nn.Linear(6, 6, bias=False)
opt = torch.optim.SGD(layer.parameters(), lr=0.05)
for step in range(STEPS):
    x = torch.randn(16, 6)
    w = layer.weight
    penalty = torch.linalg.matrix_norm(w @ w.t() - torch.eye(6))
    loss = (layer(x) - x.flip(1)).pow(2).mean() + 0.1 * penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    print(torch.linalg.svdvals(layer.weight))
