# Each step registers a fresh forward hook (feeding its own store) and never removes the handle: every later forward
# call runs all old hooks, and each old store keeps collecting activations with their graphs.
import torch
import torch.nn as nn

STEPS = 30


def make_hook(store):
    def hook(module, inputs, output):
        store.append(output)
    return hook


model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(STEPS):
    store = []
    model[1].register_forward_hook(make_hook(store))
    x = torch.randn(8, 6)
    out = model(x)
    sparsity_penalty = store[-1].abs().mean()
    loss = out.pow(2).mean() + 0.01 * sparsity_penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
