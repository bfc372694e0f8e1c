"""Weight-decay groups built from a set of `id(p)` (no decay for biases and norms)."""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.ReLU(), nn.Linear(16, 1))
no_decay_ids = set()
for module in model.modules():
    if isinstance(module, nn.LayerNorm):
        no_decay_ids.update(id(p) for p in module.parameters())
for name, p in model.named_parameters():
    if name.endswith("bias"):
        no_decay_ids.add(id(p))
decay = [p for p in model.parameters() if id(p) not in no_decay_ids]
no_decay = [p for p in model.parameters() if id(p) in no_decay_ids]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-2)
for step in range(25):
    x = torch.randn(16, 8)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(decay), len(no_decay))
