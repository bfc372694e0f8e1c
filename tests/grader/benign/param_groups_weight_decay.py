# Two parameter groups: weight decay on weights only (biases and norm parameters excluded), AdamW.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(6, 16), nn.LayerNorm(16), nn.ReLU(), nn.Linear(16, 1))
decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if name.endswith("bias") or p.ndim == 1 else decay).append(p)
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}], lr=2e-3)
for step in range(STEPS):
    x = torch.randn(16, 6)
    loss = nn.functional.mse_loss(model(x), x.std(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
