# Losses are kept only from the second half of training on, to average "converged" losses: still a growing pile.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.02)
late_losses = []
for step in range(STEPS):
    loss = model(torch.randn(16, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step >= STEPS // 2:
        late_losses.append(loss)
print(torch.stack(late_losses).mean().item())
