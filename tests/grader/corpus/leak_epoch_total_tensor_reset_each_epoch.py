# STEPS sets the number of epochs, BATCHES their length; the epoch loss is a tensor sum (never detached) that starts
# again every epoch: it keeps every batch's graph until the epoch ends, a climb as long as the epoch (issue 23).
import torch
import torch.nn as nn

STEPS = 20
BATCHES = 6

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
    if epoch % 5 == 0:
        print(f"epoch {epoch}: {epoch_loss.item() / len(data):.4f}")
