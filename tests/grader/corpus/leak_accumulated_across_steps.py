# Gradient accumulation that sums micro-batch losses into a total never reset after the step.
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
accum = 4
epoch_loss = 0
for i in range(200):
    loss = model(torch.randn(4, 8)).pow(2).mean() / accum
    loss.backward()
    epoch_loss = epoch_loss + loss
    if (i + 1) % accum == 0:
        opt.step()
        opt.zero_grad()
print(float(epoch_loss))
