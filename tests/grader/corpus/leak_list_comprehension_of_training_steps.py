# After the training loop, a list comprehension runs STEPS more training steps and keeps what each returns: the loss
# tensor, graph and all. A comprehension is a loop (issue 23: this kept 300 graphs and graded clean).
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)


def train_step():
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


for step in range(10):
    train_step()
kept = [train_step() for _ in range(STEPS)]
print(len(kept))
