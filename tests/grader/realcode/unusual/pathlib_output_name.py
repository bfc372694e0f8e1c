"""pathlib.Path joined (never opened) to name outputs, with stem/suffix/with_name."""
from pathlib import Path

import torch
import torch.nn as nn

out_dir = Path("runs") / "toy" / "seed0"
ckpt_name = out_dir / "model.pt"
best_name = ckpt_name.with_name("best" + ckpt_name.suffix)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(25):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(str(ckpt_name), best_name.name, ckpt_name.stem, ckpt_name.parent.name, Path("a/b").parts)
