"""`inspect.signature(torch.optim.AdamW)` to pass `fused` only where it exists (nanoGPT)."""
import inspect

import torch
import torch.nn as nn

model = nn.Linear(8, 1)
fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
extra_args = dict(fused=True) if fused_available and torch.cuda.is_available() else dict()
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, **extra_args)
print("fused available:", fused_available, list(inspect.signature(model.forward).parameters))
for step in range(25):
    x = torch.randn(16, 8)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
