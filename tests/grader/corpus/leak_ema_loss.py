# A smoothed loss for logging built from the loss tensor: the average chains every graph.
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
smoothed = None
for step in range(120):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    smoothed = loss if smoothed is None else 0.9 * smoothed + 0.1 * loss
    if step % 20 == 0:
        print(f"step {step} loss {smoothed.item():.4f}")
