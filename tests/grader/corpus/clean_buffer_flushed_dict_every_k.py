# A dict of per-metric lists of tensors is flushed to floats and reset every 8 steps.
import torch
import torch.nn as nn

STEPS = 48

model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
buffer = {"loss": [], "out_mean": []}
summaries = []
for step in range(STEPS):
    out = model(torch.randn(8, 5))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    buffer["loss"].append(loss)
    buffer["out_mean"].append(out.mean())
    if (step + 1) % 8 == 0:
        summaries.append({k: torch.stack(v).mean().item() for k, v in buffer.items()})
        buffer = {"loss": [], "out_mean": []}
