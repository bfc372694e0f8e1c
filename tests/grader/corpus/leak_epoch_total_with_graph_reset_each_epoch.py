# The per-epoch loss is never detached but is reset each epoch: it holds one epoch of graphs, again and again. The
# window is as long as the epoch, so it grows with the data: a leak (issue 23; once labelled a bounded window).
import torch
import torch.nn as nn

STEPS = 10
BATCHES = 12

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(BATCHES)]
for epoch in range(STEPS):
    epoch_loss = 0.0
    for x, y in data:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        epoch_loss = epoch_loss + loss
    print(f"epoch {epoch}: {epoch_loss.item() / len(data):.4f}")
