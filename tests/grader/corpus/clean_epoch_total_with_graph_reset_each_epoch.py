# The per-epoch loss is never detached but is reset each epoch: it holds up to one epoch of graphs, again and again,
# and no more as training goes on (a bounded window; grill notes it).
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(12)]
for epoch in range(10):
    epoch_loss = 0.0
    for x, y in data:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        epoch_loss = epoch_loss + loss
    print(f"epoch {epoch}: {epoch_loss.item() / len(data):.4f}")
