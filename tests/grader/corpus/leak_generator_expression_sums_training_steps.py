# sum() over a generator expression of training steps: each step's loss tensor is added to the running sum, so the
# sum chains every step's graph (a generator expression is a loop too).
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)


def train_step(i):
    loss = model(torch.randn(8, 5)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


total = sum(train_step(i) for i in range(STEPS))
print(total.item() / STEPS)
