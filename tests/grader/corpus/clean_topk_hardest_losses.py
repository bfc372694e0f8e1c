# Hard-example tracking keeps the 5 largest per-step losses (tensors with graphs) and drops the rest: bounded.
import torch
import torch.nn as nn

STEPS = 40
TOP = 5

model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
hardest = []
for step in range(STEPS):
    loss = model(torch.randn(8, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    hardest.append(loss)
    hardest = sorted(hardest, key=lambda t: t.item(), reverse=True)[:TOP]
print([round(t.item(), 3) for t in hardest])
