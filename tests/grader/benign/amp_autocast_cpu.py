# torch.amp.autocast on CPU with bfloat16 around the forward pass; the loss is computed in float32.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x, y = torch.randn(16, 16), torch.randint(0, 4, (16,))
    with torch.amp.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x)
    loss = nn.functional.cross_entropy(logits.float(), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
