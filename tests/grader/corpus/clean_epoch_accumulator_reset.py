# A per-epoch total that is reset every epoch and only ever adds detached values.
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(12)]
for epoch in range(10):
    epoch_loss = torch.zeros(())
    for x, y in data:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        epoch_loss += loss.detach()
    print(f"epoch {epoch}: {epoch_loss.item() / len(data):.4f}")
