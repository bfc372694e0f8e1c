# Batches from a generator sliced with itertools.islice; loss values logged with .item() via a dict of lists.
import itertools
from collections import defaultdict

import torch
import torch.nn as nn

STEPS = 40


def batches(size=8):
    while True:
        x = torch.randn(size, 4)
        yield x, (x.sum(1) > 0).long()


model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
history = defaultdict(list)
for step, (x, y) in enumerate(itertools.islice(batches(), STEPS)):
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    history["loss"].append(loss.item())
    history["acc"].append((logits.argmax(1) == y).float().mean().item())
