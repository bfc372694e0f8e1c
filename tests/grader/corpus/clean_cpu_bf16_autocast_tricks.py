# CPU tricks: bfloat16 autocast, set_to_none zero_grad, foreach AdamW, in-place ReLU, gradient clipping.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(inplace=True), nn.Linear(32, 4))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
for step in range(STEPS):
    x, y = torch.randn(32, 16), torch.randint(0, 4, (32,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x)
    loss = nn.functional.cross_entropy(logits.float(), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
