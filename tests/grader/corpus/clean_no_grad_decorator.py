# An evaluate() function decorated with @torch.no_grad() runs every 20 steps.
import torch
import torch.nn as nn

model = nn.Linear(8, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
val_x, val_y = torch.randn(100, 8), torch.randint(0, 3, (100,))


@torch.no_grad()
def evaluate():
    return nn.functional.cross_entropy(model(val_x), val_y)


val_losses = []
for step in range(100):
    loss = nn.functional.cross_entropy(model(torch.randn(16, 8)), torch.randint(0, 3, (16,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        val_losses.append(evaluate())
