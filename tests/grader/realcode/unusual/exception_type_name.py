"""Errors caught and reported with `type(exc).__name__` (a bad batch is skipped)."""
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
skipped = []
for step in range(30):
    x = torch.randn(8, 4 if step % 7 else 5)  # every seventh batch has the wrong width
    try:
        loss = model(x).pow(2).mean()
    except RuntimeError as exc:
        skipped.append(f"step {step}: {type(exc).__name__}: {str(exc).splitlines()[0][:40]}")
        continue
    opt.zero_grad()
    loss.backward()
    opt.step()
try:
    raise ValueError("done")
except Exception as exc:
    print(type(exc).__name__, exc.__class__.__name__, len(skipped))
