"""`operator.add/sub/mul/getitem` (and functools.reduce) building a loss."""
import functools
import operator

import torch
import torch.nn as nn

model = nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(25):
    x = torch.randn(8, 4)
    out = model(x)
    parts = [operator.getitem(out, (slice(None), i)) for i in range(3)]
    total = functools.reduce(operator.add, parts)
    loss = operator.mul(operator.sub(total, 1.0).pow(2).mean(), 0.5)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(operator.itemgetter(0)([loss.item()]))
