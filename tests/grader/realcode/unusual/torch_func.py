"""torch.func: `functional_call` with `grad` and `vmap` for per-sample gradient norms, then an ordinary step."""
import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap

model = nn.Linear(4, 1)
params = {k: v.detach() for k, v in model.named_parameters()}


def loss_fn(p, x, y):
    out = functional_call(model, p, (x.unsqueeze(0),))
    return nn.functional.mse_loss(out, y.unsqueeze(0))


per_sample_grads = vmap(grad(loss_fn), in_dims=(None, 0, 0))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(20):
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    g = per_sample_grads(params, x, y)
    norms = torch.stack([v.flatten(1).norm(dim=1) for v in g.values()]).sum(0)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    params = {k: v.detach() for k, v in model.named_parameters()}
print("last per-sample grad norms", norms[:3].tolist())
