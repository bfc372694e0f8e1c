# An AverageMeter fed loss tensors, reset every epoch (STEPS epochs of BATCHES batches): it keeps every batch's graph
# until the epoch ends, so the climb is an epoch long and grows with the epoch (issue 23; once labelled clean).
import torch
import torch.nn as nn

STEPS = 20
BATCHES = 5


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sum, self.count = 0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(1, self.count)


model = nn.Linear(6, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
meter = AverageMeter()
for epoch in range(STEPS):
    meter.reset()
    for b in range(BATCHES):
        x, y = torch.randn(8, 6), torch.randint(0, 2, (8,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.update(loss, 8)
    last = float(meter.avg)
print(last)
