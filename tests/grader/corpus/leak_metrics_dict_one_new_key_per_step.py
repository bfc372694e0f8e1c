# A dict given one new key per step, each value a dict holding that step's loss tensor: the dict is the holder (issue
# 23: grill blamed `loss` and said it chains the graphs of 1 iterations).
import torch
import torch.nn as nn

STEPS = 10
BATCHES = 4

model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
metrics = {}
for epoch in range(STEPS):
    for i in range(BATCHES):
        loss = model(torch.randn(8, 6)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        metrics[f"epoch{epoch}_step{i}"] = {"loss": loss, "lr": opt.param_groups[0]["lr"]}
print(len(metrics))
