# best = min(best, loss) over tensors keeps exactly one step's graph (the best one): bounded, not accumulating.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(6, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
best_loss = float("inf")
for step in range(STEPS):
    loss = model(torch.randn(16, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    best_loss = min(best_loss, loss)
print(float(best_loss))
