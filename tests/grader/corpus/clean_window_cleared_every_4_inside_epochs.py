# Epochs of BATCHES batches; a list of recent losses (graphs included) is cleared every 4 steps by a counter that
# runs across epochs: the code bounds the window at 4, however long the epoch (issue 23's bounded case).
import torch
import torch.nn as nn

STEPS = 8
BATCHES = 10

model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [torch.randn(8, 6) for _ in range(BATCHES)]
recent, seen = [], 0
for epoch in range(STEPS):
    for x in data:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        recent.append(loss)
        seen += 1
        if seen % 4 == 0:
            print(sum(l.item() for l in recent) / len(recent))
            recent.clear()
