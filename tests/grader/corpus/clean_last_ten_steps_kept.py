# Only the last ten steps' losses are kept, graphs included, from step STEPS - 10 on: a window of fixed size,
# the same whatever the training length.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
final_losses = []
for step in range(STEPS):
    loss = model(torch.randn(8, 5)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step >= STEPS - 10:
        final_losses.append(loss)
print(torch.stack(final_losses).mean().item())
