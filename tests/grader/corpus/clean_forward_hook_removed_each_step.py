# A forward hook is registered inside the step to grab an activation and its handle is removed right after.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(STEPS):
    store = []
    handle = model[1].register_forward_hook(lambda m, i, o: store.append(o))
    x = torch.randn(8, 6)
    out = model(x)
    handle.remove()
    loss = out.pow(2).mean() + 0.01 * store[0].abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
