"""A generator-based data pipeline: read -> batch -> augment, chained with yield and yield from."""
import random

import torch
import torch.nn as nn


def read_samples(n):
    for i in range(n):
        x = torch.randn(4)
        yield x, x.sum().unsqueeze(0)


def batched(samples, size):
    buf = []
    for sample in samples:
        buf.append(sample)
        if len(buf) == size:
            xs, ys = zip(*buf)
            yield torch.stack(xs), torch.stack(ys)
            buf = []


def augmented(batches):
    for x, y in batches:
        yield x + 0.01 * torch.randn_like(x), y


def epochs(n, per_epoch):
    for _ in range(n):
        yield from augmented(batched(read_samples(per_epoch), 8))


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
random.seed(0)
for step, (x, y) in enumerate(epochs(3, 80)):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(step + 1, "batches")
