# collections.Counter of predicted classes and a namedtuple Batch type.
from collections import Counter, namedtuple

import torch
import torch.nn as nn

STEPS = 30

Batch = namedtuple("Batch", ["inputs", "targets"])
model = nn.Linear(6, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
predicted = Counter()
for step in range(STEPS):
    batch = Batch(torch.randn(8, 6), torch.randint(0, 3, (8,)))
    logits = model(batch.inputs)
    loss = nn.functional.cross_entropy(logits, batch.targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    predicted.update(logits.argmax(1).tolist())
print(predicted.most_common(1))
