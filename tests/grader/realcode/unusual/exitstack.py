"""contextlib.ExitStack: enter_context for autocast/grad-mode contexts, callback at exit."""
import contextlib

import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
closed = []
for step in range(25):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.autocast("cpu", dtype=torch.bfloat16, enabled=step % 2 == 0))
        stack.enter_context(torch.enable_grad())
        stack.callback(closed.append, step)
        x = torch.randn(16, 8)
        loss = model(x).float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
with contextlib.suppress(KeyError):
    {}["missing"]
print(len(closed))
