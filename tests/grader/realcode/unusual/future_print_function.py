"""`from __future__ import print_function, division` in an old-style script."""
from __future__ import print_function, division

import torch
import torch.nn as nn

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(30):
    x = torch.randn(8, 4)
    loss = nn.functional.cross_entropy(model(x), (x[:, 0] > 0).long())
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 0:
        print('epoch %d loss %.4f ratio %.2f' % (epoch, loss.item(), 3 / 2))
