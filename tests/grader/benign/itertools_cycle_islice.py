# A finite dataset cycled with itertools.cycle and cut to STEPS batches with itertools.islice.
import itertools

import torch
import torch.nn as nn

STEPS = 40

dataset = [(torch.randn(8, 5), torch.randint(0, 2, (8,))) for _ in range(6)]
model = nn.Linear(5, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step, (x, y) in enumerate(itertools.islice(itertools.cycle(dataset), STEPS)):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, round(loss.item(), 4))
