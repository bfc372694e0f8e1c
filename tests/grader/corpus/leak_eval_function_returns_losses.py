# evaluate() is called once after training and returns its per-batch loss tensors, computed with autograd on.
import torch
import torch.nn as nn

STEPS = 30


def train(model, opt, steps):
    for step in range(steps):
        x = torch.randn(8, 6)
        loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def evaluate(model, batches):
    model.eval()
    losses = []
    for x in batches:
        losses.append((model(x) - x.sum(1, keepdim=True)).pow(2).mean())
    return losses


model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
train(model, opt, STEPS)
val_batches = [torch.randn(8, 6) for _ in range(STEPS)]
val_losses = evaluate(model, val_batches)
print(sum(l.item() for l in val_losses) / len(val_losses))
