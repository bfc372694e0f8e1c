# The common AverageMeter, fed loss tensors instead of floats: self.sum += val * n chains every step's graph.
import torch
import torch.nn as nn

STEPS = 40


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sum = 0
        self.count = 0
        self.avg = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
losses = AverageMeter()
for step in range(STEPS):
    x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.update(loss, x.size(0))
print(f"avg loss {losses.avg.item():.3f}")
