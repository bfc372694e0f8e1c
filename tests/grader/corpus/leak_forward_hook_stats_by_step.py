# A monitoring forward hook is attached inside the loop with functools.partial(step=...) and never removed; each hook
# writes the layer's mean activation (with graph) under its own step key at every later forward.
import functools
import torch
import torch.nn as nn

STEPS = 30

stats = {}


def record(step, module, inputs, output):
    stats.setdefault(step, []).append(output.mean(0))


model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    model[0].register_forward_hook(functools.partial(record, step))
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(stats))
