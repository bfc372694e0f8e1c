# After training, the test pass over STEPS batches runs under torch.no_grad() and keeps all its logits: no graph.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40

model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x, y = torch.randn(16, 10), torch.randint(0, 3, (16,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

model.eval()
all_logits, all_targets = [], []
with torch.no_grad():
    for batch in range(STEPS):
        x, y = torch.randn(16, 10), torch.randint(0, 3, (16,))
        all_logits.append(model(x))
        all_targets.append(y)
accuracy = (torch.cat(all_logits).argmax(1) == torch.cat(all_targets)).float().mean()
print(f"test accuracy {accuracy.item():.3f}")
